"""Reliability: bad inputs through the evaluate modules (what evaluate rejects itself, what reaches the
pipeline and becomes a NaN row with its reason), hostile but valid texts, judge faults, and what loading
passes to transformers. The outcomes are tabulated in docs/reliability.md.

Exact behaviour is checked with the scripted judge; the real SmolLM2 judge is used only where its tokenizer
or model matters (truncation, non-English text, the out-of-memory retry)."""

import contextlib
import json
import math
import re
import signal
import sqlite3
from pathlib import Path

import evaluate
import pytest
import torch
import transformers
from helpers import ScriptedJudge

from localjudge import keyfacts, load_judge, score_contexts, score_summaries
from localjudge.cache import ResultCache
from localjudge.prompts import SENTENCE_QUESTION
from localjudge.summarization import window_ranges
from localjudge.text import split_sentences

REPOSITORY = Path(__file__).resolve().parent.parent

# Made-up texts written for these tests.
PARK_SOURCE = "The council of Elmvale approved a new park on Monday. The park will open in May next year."
PARK_SENTENCES = ["The council of Elmvale approved a new park on Monday.", "The park will open in May next year."]
PARK_SUMMARY = "Elmvale approved a new park that opens in May."
PARK_QUESTION = "When will the Elmvale park open?"
PARK_ANSWER = "The park will open in May next year."
BAKERY_CHUNK = "A bakery on Mill Street now sells rye bread on Sundays."
FERRY_SOURCE = "The Dunmore ferry leaves every hour from seven in the morning. A return ticket costs six euros."
FERRY_SENTENCES = [
    "The Dunmore ferry leaves every hour from seven in the morning.",
    "A return ticket costs six euros.",
]
FERRY_SUMMARY = "The Dunmore ferry runs hourly."

SUMMARY_FAILURES = {
    "summary": "empty or missing summary: pass a non-empty string",
    "contexts": "empty or missing contexts: pass the source text as a non-empty list of strings",
}
UTILIZATION_FAILURES = {
    "question": "empty or missing question: pass a non-empty string",
    "answer": "empty or missing answer: pass a non-empty string",
    "contexts": "contexts must be a non-empty list of chunk strings in retrieval rank order",
    "chunk": "every chunk in contexts must be a string",
}
CONTROL_CHARACTERS = ("\x00", "\x1b", "\u202e")


@pytest.fixture(scope="module")
def summarization():
    # in memory: no Arrow cache file, so no file lock held between the many computes of this file
    return evaluate.load(str(REPOSITORY / "summarization_score"), keep_in_memory=True)


@pytest.fixture(scope="module")
def utilization():
    return evaluate.load(str(REPOSITORY / "context_utilization"), keep_in_memory=True)


def assert_one_failed_row(results, score_key, index, reason):
    """Row `index` is NaN with `reason`; no row was dropped; the mean is over the other rows only."""
    scores = results["scores"]
    assert math.isnan(scores[index])
    assert results["details"][index]["error"] == reason
    assert results["num_failed"] == 1
    assert results[score_key] == pytest.approx(sum(s for i, s in enumerate(scores) if i != index) / (len(scores) - 1))


# ---------------------------------------------------------------- bad inputs that reach the pipeline
# The bad value sits in the second row: evaluate type-checks only the first row of each column.
@pytest.mark.parametrize(
    "summary, contexts, reason",
    [
        ("", [PARK_SOURCE], SUMMARY_FAILURES["summary"]),
        (" \n\t ", [PARK_SOURCE], SUMMARY_FAILURES["summary"]),
        (None, [PARK_SOURCE], SUMMARY_FAILURES["summary"]),
        (PARK_SUMMARY, [], SUMMARY_FAILURES["contexts"]),
        (PARK_SUMMARY, [" ", ""], SUMMARY_FAILURES["contexts"]),
        (PARK_SUMMARY, None, SUMMARY_FAILURES["contexts"]),
        (PARK_SUMMARY, [PARK_SOURCE, None], SUMMARY_FAILURES["contexts"]),
    ],
)
def test_summarization_module_records_a_bad_row_as_nan_with_its_reason(summarization, summary, contexts, reason):
    judge = ScriptedJudge(default=1.0)
    results = summarization.compute(
        summary=[PARK_SUMMARY, summary, PARK_SUMMARY],
        contexts=[[PARK_SOURCE], contexts, [PARK_SOURCE]],
        judge=judge,
        return_details=True,
    )
    assert_one_failed_row(results, "summarization_score", 1, reason)
    assert results["details"][1]["reason"] == f"Not scored: {reason}."
    # the good rows were judged in the same pass; the bad row asked nothing
    assert [len(prompts) for _, prompts in judge.calls] == [2, 4]


@pytest.mark.parametrize(
    "question, answer, contexts, reason",
    [
        ("", PARK_ANSWER, [PARK_SOURCE], UTILIZATION_FAILURES["question"]),
        (PARK_QUESTION, "\n ", [PARK_SOURCE], UTILIZATION_FAILURES["answer"]),
        (PARK_QUESTION, None, [PARK_SOURCE], UTILIZATION_FAILURES["answer"]),
        (None, PARK_ANSWER, [PARK_SOURCE], UTILIZATION_FAILURES["question"]),
        (PARK_QUESTION, PARK_ANSWER, [], UTILIZATION_FAILURES["contexts"]),
        (PARK_QUESTION, PARK_ANSWER, None, UTILIZATION_FAILURES["contexts"]),
        (PARK_QUESTION, PARK_ANSWER, [PARK_SOURCE, None], UTILIZATION_FAILURES["chunk"]),
    ],
)
def test_utilization_module_records_a_bad_row_as_nan_with_its_reason(utilization, question, answer, contexts, reason):
    judge = ScriptedJudge({PARK_SOURCE: 1.0})
    results = utilization.compute(
        question=[PARK_QUESTION, question, PARK_QUESTION],
        answer=[PARK_ANSWER, answer, PARK_ANSWER],
        contexts=[[BAKERY_CHUNK, PARK_SOURCE], contexts, [PARK_SOURCE]],
        judge=judge,
        return_details=True,
    )
    assert_one_failed_row(results, "context_utilization", 1, reason)
    assert results["scores"][0] == 0.5 and results["scores"][2] == 1.0
    assert results["verdicts"][1] == []


def test_empty_chunk_through_the_module_is_a_warning_not_a_failure(utilization):
    results = utilization.compute(
        question=[PARK_QUESTION],
        answer=[PARK_ANSWER],
        contexts=[["", PARK_SOURCE]],
        judge=ScriptedJudge({PARK_SOURCE: 1.0}),
        return_details=True,
    )
    assert results["scores"] == [0.5]
    assert results["num_failed"] == 0
    assert results["details"][0]["warnings"] == ["chunk 0 is empty: counted as not useful"]


@pytest.mark.parametrize("value", [None, 3, b"bytes", ["a list"]])
def test_pipelines_turn_a_non_string_into_a_failed_row(value):
    summary_rows = score_summaries(ScriptedJudge(default=1.0), [value, PARK_SUMMARY], [[PARK_SOURCE], [value]])
    assert [row["error"] for row in summary_rows] == [SUMMARY_FAILURES["summary"], SUMMARY_FAILURES["contexts"]]
    utilization_rows = score_contexts(
        ScriptedJudge(default=1.0), [value, PARK_QUESTION], [PARK_ANSWER, value], [[PARK_SOURCE], [PARK_SOURCE]]
    )
    assert [row["error"] for row in utilization_rows] == [
        UTILIZATION_FAILURES["question"],
        UTILIZATION_FAILURES["answer"],
    ]
    assert all(math.isnan(row["score"]) for row in summary_rows + utilization_rows)


# ---------------------------------------------------------------- bad inputs that evaluate rejects first
def test_utilization_module_rejects_a_non_string_first_row_naming_the_column(utilization):
    with pytest.raises(ValueError, match=r"don't match the expected format(.|\n)*Input answer: \[None"):
        utilization.compute(question=[PARK_QUESTION], answer=[None], contexts=[[PARK_SOURCE]], judge=ScriptedJudge())
    # a row's chunks as a string: evaluate's "Got a string but expected a list instead" before, now what to pass
    with pytest.raises(TypeError, match=re.escape("for one row, pass contexts=[[chunk, chunk, …]]")):
        utilization.compute(
            question=[PARK_QUESTION], answer=[PARK_ANSWER], contexts=[PARK_SOURCE], judge=ScriptedJudge()
        )


@pytest.mark.parametrize("summary", [None, 3])
def test_summarization_module_rejects_a_non_string_first_row_naming_the_column(summarization, summary):
    with pytest.raises((TypeError, ValueError), match="summary"):
        summarization.compute(summary=[summary], contexts=[[PARK_SOURCE]], judge=ScriptedJudge())


def test_a_number_after_the_first_row_is_scored_as_its_text(summarization, utilization):
    # evaluate checks the first row's type only, and Arrow casts later numbers to strings: documented, not ours
    judge = ScriptedJudge(default=1.0)
    results = summarization.compute(
        summary=[PARK_SUMMARY, 7], contexts=[[PARK_SOURCE]] * 2, judge=judge, return_details=True
    )
    assert results["num_failed"] == 0
    assert results["details"][1]["claims"] == [{"claim": "7", "p_yes": 1.0, "supported": True, "evidence": "The council of Elmvale approved a new park on Monday."}]
    results = utilization.compute(
        question=[PARK_QUESTION] * 2, answer=[PARK_ANSWER, 7], contexts=[[PARK_SOURCE]] * 2, judge=judge
    )
    assert results["scores"] == [1.0, 1.0]


@pytest.mark.parametrize(
    "module, columns, message",
    [
        (
            "summarization",
            {"summary": [PARK_SUMMARY], "contexts": [[PARK_SOURCE]] * 2},
            r"\{'summary': 1, 'contexts': 2\}; pass one value per row",
        ),
        (
            "utilization",
            {"question": [PARK_QUESTION], "answer": [PARK_ANSWER] * 2, "contexts": [[PARK_SOURCE]]},
            r"\{'question': 1, 'answer': 2, 'contexts': 1\}; pass one value per row",
        ),
    ],
)
def test_mismatched_column_lengths_are_refused_naming_every_length(request, module, columns, message):
    # the modules check their columns as the pipelines do (`check_columns`), before evaluate's own message
    judge = ScriptedJudge()
    with pytest.raises(ValueError, match=message):
        request.getfixturevalue(module).compute(**columns, judge=judge)
    assert judge.calls == []


# ---------------------------------------------------------------- hostile but valid texts
class SmallWindowJudge(ScriptedJudge):
    """A scripted judge with one token per word and a window that leaves `SOURCE_WORDS` words for the source."""

    SOURCE_WORDS = 40
    context_window = 512 + SOURCE_WORDS  # the pipelines keep 512 tokens free for instructions and the item

    def truncate(self, text, max_tokens):
        words = list(re.finditer(r"\S+", text))
        if len(words) <= max_tokens:
            return text, 0
        end = words[max_tokens - 1].end()
        return text[:end], len(text) - end


class DocumentReadingJudge(SmallWindowJudge):
    """Supports a claim only when the document it is shown with holds it word for word."""

    def yes_probability(self, prompts, batch_size=None, cache=True, progress=None):
        self.calls.append(("yes_probability", list(prompts)))
        documents = [re.search(r"<document>\n(.*?)\n</document>", p, re.DOTALL) for p in prompts]
        return [float(bool(d) and self.item_of(p) in d.group(1)) for d, p in zip(documents, prompts)]


def first_words(text, count):
    return " ".join(text.split(" ")[:count])


def test_source_longer_than_the_window_is_judged_in_windows_and_a_chunk_truncated(summarization, utilization):
    stalls = " ".join(f"Stall {n} sells cheese." for n in range(1, 11))  # 40 words
    source = f"{PARK_SOURCE} {stalls}"
    judge = DocumentReadingJudge()
    results = summarization.compute(
        summary=["Stall 10 sells cheese."], contexts=[[source]], judge=judge, max_questions=100, return_details=True
    )
    (details,) = results["details"]
    # nothing dropped: the claim is judged against every window of the source, and the last one supports it
    assert details["warnings"] == []
    assert " ".join(q["fact"] for q in details["questions"]) == source
    assert details["claims"][0]["supported"] and details["claims"][0]["evidence"] == "Stall 10 sells cheese."
    claim_prompts = [p for name, prompts in judge.calls for p in prompts if "<claim>" in p]
    assert len(claim_prompts) > 1 and all(len(p.split()) < 512 + SmallWindowJudge.SOURCE_WORDS for p in claim_prompts)
    assert results["conciseness_scores"] == [1 - len("Stall 10 sells cheese.") / (len(source) + 1e-10)]
    # a chunk gets half of the source budget, the question and the answer a quarter each
    kept = first_words(source, SmallWindowJudge.SOURCE_WORDS // 2)
    results = utilization.compute(
        question=[PARK_QUESTION],
        answer=[PARK_ANSWER],
        contexts=[[source, BAKERY_CHUNK]],
        judge=SmallWindowJudge(default=1.0),
        return_details=True,
    )
    assert results["details"][0]["warnings"] == [
        f"chunk 0 truncated to the judge's window: {len(source) - len(kept)} of {len(source)} characters dropped"
    ]
    assert results["scores"] == [1.0]


def test_summary_longer_than_the_window_is_truncated_with_a_warning(summarization):
    summary = " ".join(f"Stall {n} sells cheese." for n in range(1, 13))  # 48 words
    kept = first_words(summary, SmallWindowJudge.SOURCE_WORDS)
    results = summarization.compute(
        summary=[summary], contexts=[[PARK_SOURCE]], judge=SmallWindowJudge(default=1.0), return_details=True
    )
    assert results["details"][0]["warnings"] == [
        f"summary truncated to the judge's window: {len(summary) - len(kept)} of {len(summary)} characters dropped"
    ]
    assert " ".join(claim["claim"] for claim in results["details"][0]["claims"]) == kept
    assert results["num_failed"] == 0


def test_real_judge_reads_a_long_source_in_windows_of_its_tokens(smol_judge, monkeypatch):
    # a 600-token window leaves 88 tokens of source per window: the real tokenizer counts, the real model scores
    monkeypatch.setattr(smol_judge, "context_window", 600)
    source = " ".join(f"Stall {n} at the Elmvale market sells {n + 2} kinds of cheese." for n in range(1, 41))
    sentences = split_sentences(source)
    windows = window_ranges(smol_judge, sentences)
    assert len(windows) > 1 and windows[0][0] == 0 and windows[-1][1] == len(sentences)
    assert all(smol_judge.count_tokens(" ".join(sentences[a:b])) <= 88 for a, b in windows)
    (row,) = score_summaries(smol_judge, ["Stall 40 at the Elmvale market sells 42 kinds of cheese."], [[source]], progress=False)
    assert row["warnings"] == []
    assert row["claims"][0]["evidence"] == sentences[-1]
    assert 0.0 <= row["score"] <= 1.0


NON_ENGLISH = {
    "German": (
        "Die Stadt Lindenau eröffnet im Mai ein neues Schwimmbad. Der Bau kostete zwei Millionen Euro.",
        "Lindenau eröffnet im Mai ein Schwimmbad.",
        "Wann eröffnet das Schwimmbad?",
        "Im Mai.",
    ),
    "Chinese": (
        "青石镇的新图书馆将于五月开放。图书馆共有三层，可容纳两万本书。",
        "青石镇新图书馆五月开放。",
        "图书馆什么时候开放？",
        "五月。",
    ),
    "Arabic": (
        "افتتحت بلدة الواحة الخضراء مكتبة جديدة يوم السبت. تضم المكتبة خمسة آلاف كتاب.",
        "افتتحت البلدة مكتبة جديدة.",
        "متى افتتحت المكتبة؟",
        "يوم السبت.",
    ),
    "mixed": (
        "The Harbourside café 🍰 opened on Friday. Der Kuchen kostet drei Euro. 咖啡很好喝。",
        "A café opened on Friday 🎉.",
        "When did the café open? 🤔",
        "On Friday.",
    ),
}


def test_non_english_and_mixed_scripts_with_the_real_judge(summarization, utilization, smol_judge):
    sources, summaries, questions, answers = zip(*NON_ENGLISH.values())
    results = summarization.compute(
        summary=list(summaries), contexts=[[s] for s in sources], judge=smol_judge, progress=False
    )
    assert results["num_failed"] == 0
    for key in ("scores", "qa_scores", "alignment_scores", "coverage_scores"):
        assert all(0.0 <= value <= 1.0 for value in results[key]), key
    results = utilization.compute(
        question=list(questions),
        answer=list(answers),
        contexts=[[BAKERY_CHUNK, s] for s in sources],
        judge=smol_judge,
        progress=False,
    )
    assert results["num_failed"] == 0
    assert all(0.0 <= value <= 1.0 for row in results["verdicts"] for value in row)
    assert all(0.0 <= value <= 1.0 for value in results["scores"])


def with_control_characters(text):
    return "\u202e" + text.replace(" ", " \x00", 1).replace(".", ".\x1b[0m", 1)


def test_control_characters_never_reach_the_judge(summarization, utilization):
    judge = ScriptedJudge(default=1.0)
    dirty = summarization.compute(
        summary=[with_control_characters(PARK_SUMMARY)], contexts=[[with_control_characters(PARK_SOURCE)]], judge=judge
    )
    dirty_utilization = utilization.compute(
        question=[with_control_characters(PARK_QUESTION)],
        answer=[with_control_characters(PARK_ANSWER)],
        contexts=[[with_control_characters(BAKERY_CHUNK), PARK_SOURCE]],
        judge=judge,
    )
    prompts = [prompt for _, batch in judge.calls for prompt in batch]
    assert len(prompts) == 1 + 2 + 2  # one claim, two questions, two chunks
    assert not any(char in prompt for prompt in prompts for char in CONTROL_CHARACTERS)
    assert dirty["num_failed"] == dirty_utilization["num_failed"] == 0
    assert dirty["qa_scores"] == dirty["alignment_scores"] == dirty_utilization["scores"] == [1.0]


def test_two_hundred_chunks_in_one_row_go_to_the_judge_in_one_call(utilization):
    chunks = [f"Note {n}: the Elmvale park bench number {n} was painted green." for n in range(1, 201)]
    judge = ScriptedJudge({chunks[1]: 1.0, chunks[199]: 1.0})
    results = utilization.compute(question=[PARK_QUESTION], answer=[PARK_ANSWER], contexts=[chunks], judge=judge)
    ((operation, prompts),) = judge.calls
    assert operation == "yes_probability" and len(prompts) == 200
    # useful chunks at ranks 2 and 200: (precision@2 + precision@200) / 2
    assert results["scores"] == [(1 / 2 + 2 / 200) / 2]
    assert len(results["verdicts"][0]) == 200


@contextlib.contextmanager
def read_within(seconds, what):
    """Fail with a TimeoutError when the block takes longer than `seconds`: a text that is never read through."""

    def too_long(signum, frame):
        raise TimeoutError(f"{what} was not read within {seconds} s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("line", [
    " ".join(map(str, range(1, 77))) + " Events Guide By Category",
    ":".join(map(str, range(1, 40))) + " Schedule",
    "By " * 40 + "Category",
])
def test_a_line_of_many_numbers_or_bys_is_read_in_one_pass(line):
    """A line of a page's calendar widget, its days and then its links ("1 2 3 … 76 Events Guide"), times run together
    ("1:2:3:…") or a word said again and again ("By By By …") is read once: the patterns of a date line and of a
    byline read each number whole and take no "By" for a name. Before, they tried each of the 2^67 ways to cut the
    two-digit days into digits (or the "By"s into bylines), and the row's scoring never ended (a page of
    ../shared/train did this)."""

    with read_within(10, "the line"):
        # the line alone, as a page with more punctuation around it reads it (in a text this short without
        # punctuation `text.source_sentences` cuts it into pieces of about 20 words)
        assert not keyfacts.is_page_furniture(line)
        (row,) = score_summaries(ScriptedJudge(default=1.0), [PARK_SUMMARY], ["\n".join([line, PARK_SOURCE])])
    assert PARK_SENTENCES[0] in [q["fact"] for q in row["questions"]]


@pytest.mark.parametrize("blank", [" ", "\t", "\u00a0"])
def test_a_long_blank_run_is_read_in_one_pass(blank):
    """A run of 100,000 spaces, tabs or no-break spaces between two sentences (a PDF's or a web page's text can have
    one) is read once, in a source, a summary, a chunk and an answer alike. Before, each pattern that may open with
    blanks (a citation, a pictograph, a message's time stamp, a table's rule) tried the run from each of its
    characters: the row took minutes (40,000 spaces: 16 s as a source, 48 s as a summary)."""
    run = blank * 100_000
    source, summary = run.join(PARK_SENTENCES), f"{PARK_SUMMARY}{run}{PARK_SENTENCES[1]}"
    with read_within(10, "the blank run"):
        (row,) = score_summaries(ScriptedJudge(default=1.0), [summary], [source])
        (used,) = score_contexts(ScriptedJudge(default=1.0), ["When does the park open?"], [summary], [[source]])
    assert [q["fact"] for q in row["questions"]] == PARK_SENTENCES
    assert [claim["claim"] for claim in row["claims"]] == [PARK_SUMMARY, PARK_SENTENCES[1]]
    assert used["score"] == 1.0


# ---------------------------------------------------------------- judge faults
class FaultyGenerationJudge(ScriptedJudge):
    """Generates good units for the park row and a given faulty output for every other row."""

    def __init__(self, faulty_output):
        super().__init__(default=1.0)
        self.faulty_output = faulty_output

    def generate(self, prompts, max_new_tokens=256, batch_size=None, cache=True, progress=None):
        self.calls.append(("generate", list(prompts)))
        good = json.dumps(
            {
                "keyphrases": ["Elmvale"],
                "questions": ["Did Elmvale approve a park?"],
                "claims": ["Elmvale approved a park."],
            }
        )
        return [good if "Elmvale" in prompt else self.faulty_output for prompt in prompts]


def generate_two_rows(summarization, faulty_output):
    judge = FaultyGenerationJudge(faulty_output)
    return summarization.compute(
        summary=[PARK_SUMMARY, FERRY_SUMMARY],
        contexts=[[PARK_SOURCE], [FERRY_SOURCE]],
        judge=judge,
        extraction="generate",
        length_penalty=False,
        return_details=True,
    )


@pytest.mark.parametrize(
    "faulty_output, problem",
    [("", "no '{key}' in the judge's output"), ('{"questions": [], "claims": []}', "empty '{key}' list")],
)
def test_empty_generation_falls_back_to_sentences_with_a_warning(summarization, faulty_output, problem):
    results = generate_two_rows(summarization, faulty_output)
    good, faulty = results["details"]
    assert good["warnings"] == [] and [q["question"] for q in good["questions"]] == ["Did Elmvale approve a park?"]
    assert faulty["warnings"] == [
        f"question generation failed ({problem.format(key='questions')}); used source sentences",
        f"claim generation failed ({problem.format(key='claims')}); used summary sentences",
    ]
    assert [q["question"] for q in faulty["questions"]] == [
        SENTENCE_QUESTION.format(sentence=s) for s in FERRY_SENTENCES
    ]
    assert results["scores"] == [1.0, 1.0] and results["num_failed"] == 0


@pytest.mark.parametrize(
    "faulty_output", ["I cannot help with that.", 'Sure! Here you go: {"questions": ["Did the ferry']
)
def test_unparsable_generation_is_a_warning_not_a_unit(summarization, faulty_output):
    results = generate_two_rows(summarization, faulty_output)
    faulty = results["details"][1]
    assert len(faulty["warnings"]) == 2
    assert [q["question"] for q in faulty["questions"]] == [
        SENTENCE_QUESTION.format(sentence=s) for s in FERRY_SENTENCES
    ]


class ShortChangingJudge(ScriptedJudge):
    """Returns one verdict fewer than it was asked for."""

    def yes_probability(self, prompts, batch_size=None, cache=True, progress=None):
        return super().yes_probability(prompts)[:-1]


def test_fewer_verdicts_than_asked_keep_the_denominators(summarization):
    results = summarization.compute(
        summary=[PARK_SUMMARY], contexts=[[PARK_SOURCE]], judge=ShortChangingJudge(default=1.0), return_details=True
    )
    # 2 questions asked, 1 answered: the score cannot reach 1.0
    assert results["qa_scores"] == [0.5]
    assert results["details"][0]["warnings"]


@pytest.mark.parametrize("verdict", [0.0, 1.0])
def test_a_judge_with_one_verdict_for_everything_still_scores(summarization, utilization, verdict):
    judge = ScriptedJudge(default=verdict)
    results = summarization.compute(summary=[PARK_SUMMARY], contexts=[[PARK_SOURCE]], judge=judge, final="min")
    assert results["alignment_scores"] == results["coverage_scores"] == results["scores"] == [verdict]
    results = utilization.compute(
        question=[PARK_QUESTION], answer=[PARK_ANSWER], contexts=[[BAKERY_CHUNK, PARK_SOURCE]], judge=judge
    )
    assert results["scores"] == [verdict] and results["num_failed"] == 0


def test_out_of_memory_halves_the_batch_and_answers_every_prompt_once(smol_judge_fp32, monkeypatch, caplog):
    # fp32: smaller batches must give the same numbers up to float rounding
    story = "The Elmvale council approved a park with a pond, a playground and forty new oak trees on Monday."
    claims = [
        "The park has a pond.",
        "The park has a playground.",
        "Forty trees will be planted.",
        "It was Monday.",
        "The council met on Friday.",
        "The park has a zoo.",
    ]
    prompts = [
        smol_judge_fp32.render(f"{story}\n\nClaim: {claim}\nIs the claim supported? Answer yes or no.") for claim in claims
    ]
    expected = smol_judge_fp32.yes_probability(prompts, batch_size=8, cache=False)
    answered, refused = [], []
    run_batch = smol_judge_fp32._run_batch

    def run_batch_with_little_memory(sequences, tails, batch, reduce):
        if len(batch) > 2:
            refused.append(len(batch))
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        answered.extend(batch)
        return run_batch(sequences, tails, batch, reduce)

    monkeypatch.setattr(smol_judge_fp32, "_run_batch", run_batch_with_little_memory)
    assert smol_judge_fp32.yes_probability(prompts, batch_size=8, cache=False) == pytest.approx(expected, abs=1e-4)
    assert refused and sorted(answered) == list(range(len(prompts)))
    assert "Out of memory on a batch of" in caplog.text


def test_out_of_memory_in_generation_halves_the_batch(smol_judge, monkeypatch):
    prompts = [smol_judge.render(q) for q in ("Name a colour.", "Name a fruit.", "Name a town in Elmvale county.")]
    # one by one, as the retry ends up running them: left padding in a batch may change a greedy token
    expected = [smol_judge.generate([prompt], max_new_tokens=3, cache=False)[0] for prompt in prompts]
    generate = smol_judge.model.generate
    batch_sizes = []

    def generate_with_little_memory(**inputs):
        batch_sizes.append(inputs["input_ids"].shape[0])
        if batch_sizes[-1] > 1:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return generate(**inputs)

    monkeypatch.setattr(smol_judge.model, "generate", generate_with_little_memory)
    assert smol_judge.generate(prompts, max_new_tokens=3, cache=False) == expected
    assert batch_sizes.count(1) == len(prompts)


def test_a_corrupted_cache_file_is_named_in_the_error(tmp_path):
    path = tmp_path / "results.sqlite"
    path.write_bytes(b"not a database " * 100)
    with pytest.raises(sqlite3.DatabaseError, match=re.escape(str(path))):
        ResultCache(path)


# ---------------------------------------------------------------- what loading asks of transformers
class StopLoading(OSError):
    pass


@pytest.fixture
def captured_from_pretrained(monkeypatch):
    """Replace transformers' Auto classes: record each `from_pretrained` call's keyword arguments; the tokenizer
    "loads" as a dummy and the model stops the load before any weights are read."""
    calls = []

    def fake_class(name, result):
        def from_pretrained(source, **kwargs):
            calls.append((name, kwargs))
            return result()

        return type(name, (), {"from_pretrained": staticmethod(from_pretrained)})

    def stop():
        raise StopLoading("stopped by the test before reading any weights")

    monkeypatch.setattr(transformers, "AutoTokenizer", fake_class("AutoTokenizer", object))
    monkeypatch.setattr(transformers, "AutoModelForCausalLM", fake_class("AutoModelForCausalLM", stop))
    return calls


def test_hub_and_directory_loads_forbid_remote_code_and_pickles(captured_from_pretrained, tmp_path):
    directory = tmp_path / "some-model"
    directory.mkdir()
    (directory / "config.json").write_text("{}")
    for source in ("some-org/some-judge", str(directory)):
        captured_from_pretrained.clear()
        with pytest.raises(OSError, match="stopped by the test"):
            load_judge(source, cache_dir=tmp_path / "cache")
        assert [name for name, _ in captured_from_pretrained] == ["AutoTokenizer", "AutoModelForCausalLM"]
        for _, kwargs in captured_from_pretrained:
            assert kwargs["trust_remote_code"] is False and kwargs["use_safetensors"] is True


def test_gguf_conversion_forbids_remote_code(captured_from_pretrained, tmp_path):
    gguf = tmp_path / "judge.gguf"
    gguf.write_bytes(b"GGUF not really")
    with pytest.raises(StopLoading):
        load_judge(str(gguf), cache_dir=tmp_path / "cache")
    assert len(captured_from_pretrained) == 2
    for _, kwargs in captured_from_pretrained:
        assert kwargs["trust_remote_code"] is False and kwargs["gguf_file"] == "model.gguf"
    assert not any((tmp_path / "cache" / "models").iterdir())  # no half-converted judge left behind

