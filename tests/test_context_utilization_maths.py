"""Context utilization maths with scripted verdicts (no model): the Ragas France example, Ragas
compatibility, soft scores, the verdict threshold, the NaN policy, empty chunks and batching."""

import math

import pytest
from helpers import ScriptedJudge

from localjudge import PROMPT_VERSION, maths, score_contexts, utilization_output

# The old Ragas docs example (question and answer verbatim, chunks written for these tests).
QUESTION = "Where is France and what is it's capital?"
ANSWER = "France is in Western Europe and its capital is Paris."
CUISINE_CHUNK = (
    "French cooking is famous for its sauces, its cheeses and its breads, and its wine regions such as Bordeaux "
    "and Burgundy sell bottles all over the world."
)
FRANCE_CHUNK = (
    "France is a country in Western Europe. Its capital and largest city is Paris, on the river Seine."
)
FRANCE_VERDICTS = {CUISINE_CHUNK: 0.0, FRANCE_CHUNK: 1.0}

GARDEN_QUESTION = "When does the Ashcombe community garden open?"
GARDEN_ANSWER = "The Ashcombe community garden opens at eight in the morning."
GARDEN_CHUNKS = [
    "The Ashcombe community garden opens every day at eight in the morning.",
    "Ashcombe has a population of about 12,000 people.",
    "Volunteers at the garden meet on Thursday evenings.",
]


def score_one(contexts, verdicts=FRANCE_VERDICTS, **options):
    (row,) = score_contexts(ScriptedJudge(verdicts=verdicts), [QUESTION], [ANSWER], [contexts], **options)
    return row["score"]


def test_useful_chunk_second_scores_one_half():
    # precision@1 = 0 (not useful), precision@2 = 1/2 (useful): (0 + 1/2) / 1 useful chunk
    assert score_one([CUISINE_CHUNK, FRANCE_CHUNK]) == 0.5


def test_useful_chunk_first_scores_one():
    assert score_one([FRANCE_CHUNK, CUISINE_CHUNK]) == 1.0


def test_ragas_compat_adds_epsilon_to_the_denominator():
    assert score_one([CUISINE_CHUNK, FRANCE_CHUNK], ragas_compat=True) == 0.49999999995
    assert score_one([FRANCE_CHUNK, CUISINE_CHUNK], ragas_compat=True) == 0.9999999999


def test_no_useful_chunk_scores_zero():
    assert score_one([CUISINE_CHUNK, CUISINE_CHUNK + " Lyon is known for its food."]) == 0.0
    assert score_one([CUISINE_CHUNK], ragas_compat=True) == 0.0


def test_several_useful_chunks():
    # verdicts 1, 0, 1: (1/1 · 1 + 1/2 · 0 + 2/3 · 1) / 2 = 5/6
    verdicts = {GARDEN_CHUNKS[0]: 0.9, GARDEN_CHUNKS[1]: 0.2, GARDEN_CHUNKS[2]: 0.7}
    (row,) = score_contexts(ScriptedJudge(verdicts=verdicts), [GARDEN_QUESTION], [GARDEN_ANSWER], [GARDEN_CHUNKS])
    assert row["score"] == (1 + 2 / 3) / 2
    assert maths.average_precision([1, 0, 1]) == (1 + 2 / 3) / 2


def test_soft_uses_the_probabilities_as_graded_verdicts():
    # v = [0.1, 0.9]: precision@1 = 0.1/1, precision@2 = (0.1 + 0.9)/2 = 0.5
    # (0.1 · 0.1 + 0.5 · 0.9) / (0.1 + 0.9) = (0.01 + 0.45) / 1.0 = 0.46
    verdicts = {CUISINE_CHUNK: 0.1, FRANCE_CHUNK: 0.9}
    assert score_one([CUISINE_CHUNK, FRANCE_CHUNK], verdicts, soft=True) == 0.46
    # the same probabilities as 0/1 verdicts: [0, 1] → 0.5
    assert score_one([CUISINE_CHUNK, FRANCE_CHUNK], verdicts) == 0.5


def test_soft_reverse_order():
    # v = [0.9, 0.1]: (0.9/1 · 0.9 + (1.0/2) · 0.1) / 1.0 = 0.81 + 0.05 = 0.86 (0.8600000000000001 in floats)
    verdicts = {CUISINE_CHUNK: 0.1, FRANCE_CHUNK: 0.9}
    assert score_one([FRANCE_CHUNK, CUISINE_CHUNK], verdicts, soft=True) == pytest.approx(0.86, abs=1e-15)


def test_verdict_threshold_is_inclusive():
    assert score_one([CUISINE_CHUNK, FRANCE_CHUNK], {FRANCE_CHUNK: 0.5}) == 0.5
    assert score_one([CUISINE_CHUNK, FRANCE_CHUNK], {FRANCE_CHUNK: 0.49999}) == 0.0


@pytest.mark.parametrize(
    "question, answer, contexts, error",
    [
        (QUESTION, ANSWER, [], "contexts must be a non-empty list of chunk strings in retrieval rank order"),
        (QUESTION, ANSWER, FRANCE_CHUNK, "contexts must be a non-empty list of chunk strings in retrieval rank order"),
        (QUESTION, ANSWER, [FRANCE_CHUNK, None], "every chunk in contexts must be a string"),
        ("", ANSWER, [FRANCE_CHUNK], "empty or missing question: pass a non-empty string"),
        (QUESTION, "  ", [FRANCE_CHUNK], "empty or missing answer: pass a non-empty string"),
        (QUESTION, None, [FRANCE_CHUNK], "empty or missing answer: pass a non-empty string"),
        (QUESTION, "- [1]", [FRANCE_CHUNK], "the answer '- [1]' states nothing, only layout (list marks, rules or "
         "citations): pass the answer's text"),
    ],
)
def test_unscorable_row_is_nan_with_its_reason(question, answer, contexts, error):
    judge = ScriptedJudge(verdicts=FRANCE_VERDICTS)
    rows = score_contexts(judge, [QUESTION, question], [ANSWER, answer], [[CUISINE_CHUNK, FRANCE_CHUNK], contexts])
    assert math.isnan(rows[1]["score"])
    output = utilization_output(rows, return_details=True)
    assert output["details"][1]["error"] == error
    assert output["num_failed"] == 1
    assert output["context_utilization"] == 0.5
    assert output["verdicts"][1] == []
    # only the good row's two chunks were judged
    assert [len(prompts) for _, prompts in judge.calls] == [2]


def test_the_judge_reads_an_answer_without_its_layout_citations_and_courtesies():
    # a RAG answer as a chat model writes it: the same statements as the plain answer, read as a summary's claims are
    replied = ("Certainly! Here is what I found:\n- France is in **Western Europe** [1].\n- Its capital is Paris [2].\n\n"
               "Sources:\n[1] An atlas\n[2] A gazetteer\n\nLet me know if you have any other questions!")
    judge = ScriptedJudge(verdicts=FRANCE_VERDICTS)
    score_contexts(judge, [QUESTION], [replied], [[FRANCE_CHUNK]])
    (prompt,) = judge.calls[0][1]
    assert "France is in Western Europe. Its capital is Paris." in prompt
    assert not any(mark in prompt for mark in ("Certainly", "what I found", "**", "[1]", "Sources", "atlas", "Let me know"))


@pytest.mark.parametrize("cited", ["Paris.[1]\n\n[1] A gazetteer", "Paris[^1]\n\n[^1]: A gazetteer, p. 12",
                                   "Paris.\n\nSources:\n[1] A gazetteer"])
def test_a_short_answer_with_its_sources_is_judged(cited):
    # the sources' heading was looked for among the answer's lines from its end, and a short answer, too short for a
    # sentence, was taken for it: the answer read empty and the row failed ("empty or missing answer")
    judge = ScriptedJudge(verdicts=FRANCE_VERDICTS)
    (row,) = score_contexts(judge, [QUESTION], [cited], [[FRANCE_CHUNK]])
    assert row["error"] is None
    (prompt,) = judge.calls[0][1]
    assert "Paris" in prompt and "gazetteer" not in prompt


# FRANCE_CHUNK as a RAG pipeline's converters hand it over: markdown (a heading, bold, a link), an HTML page's part,
# a PDF's page (hard-wrapped, with a heading), and a Wikipedia page's text through its API (MediaWiki's heading)
LAID_OUT_CHUNKS = {
    "markdown": "## France\n\n**France** is a country in [Western Europe](https://example.org/europe). Its capital and "
                "largest city is Paris, on the river Seine.",
    "html": "<h2>France</h2>\n<p><b>France</b> is a country in <a href='/europe'>Western Europe</a>. Its capital and\n"
            "largest city is Paris, on the river Seine.</p><script>load()</script>",
    "pdf": "France\n\nFrance is a country in Western Europe. Its capital and largest\ncity is Paris, on the river Seine. "
           "The Seine flows through it\nfrom the south-east to the north-west before it reaches the sea.",
    "mediawiki": "\n\n== France ==\n" + FRANCE_CHUNK,
}


@pytest.mark.parametrize("layout", LAID_OUT_CHUNKS)
def test_a_chunk_is_read_as_its_text_typed_plainly(layout):
    # a chunk is read as a source is (`text.read_source`): the judge sees the text, not its markup or line breaks
    typed = {"markdown": "France: " + FRANCE_CHUNK, "html": "France: " + FRANCE_CHUNK,
             "mediawiki": "France: " + FRANCE_CHUNK,
             "pdf": "France\n\n" + FRANCE_CHUNK + " The Seine flows through it from the south-east to the north-west "
                    "before it reaches the sea."}[layout]
    judge_typed, judge_laid_out = ScriptedJudge(default=1.0), ScriptedJudge(default=1.0)
    (as_typed,) = score_contexts(judge_typed, [QUESTION], [ANSWER], [[typed, CUISINE_CHUNK]])
    (as_laid_out,) = score_contexts(judge_laid_out, [QUESTION], [ANSWER], [[LAID_OUT_CHUNKS[layout], CUISINE_CHUNK]])
    assert judge_laid_out.calls == judge_typed.calls
    assert as_laid_out["chunks"] == as_typed["chunks"] and as_laid_out["score"] == as_typed["score"]


def test_a_chunk_of_markup_alone_is_not_useful_and_not_judged():
    judge = ScriptedJudge(verdicts=FRANCE_VERDICTS)
    (row,) = score_contexts(judge, [QUESTION], [ANSWER], [["<script>track()</script><nav><a href='/'>Home</a></nav>", FRANCE_CHUNK]])
    assert row["score"] == 0.5
    assert row["warnings"] == ["chunk 0 holds no text but its markup: counted as not useful"]
    assert [judge.item_of(prompt) for prompt in judge.calls[0][1]] == [FRANCE_CHUNK]


def test_all_rows_failed_gives_nan():
    output = utilization_output(score_contexts(ScriptedJudge(), [""], [""], [[]]))
    assert math.isnan(output["context_utilization"])
    assert output["num_failed"] == 1


def test_empty_chunk_is_not_useful_and_not_judged():
    judge = ScriptedJudge(verdicts=FRANCE_VERDICTS)
    rows = score_contexts(judge, [QUESTION], [ANSWER], [["  ", FRANCE_CHUNK]])
    assert rows[0]["score"] == 0.5
    assert rows[0]["warnings"] == ["chunk 0 is empty: counted as not useful"]
    output = utilization_output(rows)
    assert output["verdicts"] == [[0.0, 1.0]]
    assert output["num_failed"] == 0
    ((operation, prompts),) = judge.calls
    assert operation == "yes_probability"
    assert [judge.item_of(prompt) for prompt in prompts] == [FRANCE_CHUNK]


def test_mismatched_column_lengths_raise_naming_the_lengths():
    with pytest.raises(ValueError, match=r"\{'question': 2, 'answer': 1, 'contexts': 2\}"):
        score_contexts(ScriptedJudge(), [QUESTION, QUESTION], [ANSWER], [[FRANCE_CHUNK], [FRANCE_CHUNK]])


def test_all_chunks_of_all_rows_go_to_the_judge_in_one_call():
    judge = ScriptedJudge(verdicts={**FRANCE_VERDICTS, GARDEN_CHUNKS[0]: 1.0})
    rows = score_contexts(
        judge,
        [QUESTION, GARDEN_QUESTION, QUESTION],
        [ANSWER, GARDEN_ANSWER, ANSWER],
        [[CUISINE_CHUNK, FRANCE_CHUNK], GARDEN_CHUNKS, [FRANCE_CHUNK]],
    )
    ((operation, prompts),) = judge.calls
    assert operation == "yes_probability"
    assert [judge.item_of(prompt) for prompt in prompts] == [CUISINE_CHUNK, FRANCE_CHUNK, *GARDEN_CHUNKS, FRANCE_CHUNK]
    # every prompt carries its own row's question and answer
    assert GARDEN_QUESTION in prompts[2] and GARDEN_ANSWER in prompts[4] and QUESTION in prompts[5]
    assert [row["score"] for row in rows] == [0.5, 1.0, 1.0]


def test_output_and_details():
    judge = ScriptedJudge(verdicts=FRANCE_VERDICTS)
    rows = score_contexts(judge, [QUESTION], [ANSWER], [[CUISINE_CHUNK, FRANCE_CHUNK]])
    plain = utilization_output(rows)
    assert plain == {"context_utilization": 0.5, "scores": [0.5], "verdicts": [[0.0, 1.0]], "num_failed": 0}
    detailed = utilization_output(rows, return_details=True)
    assert detailed["details"] == [{"useful": [False, True], "error": None, "warnings": []}]
    assert detailed["prompt_version"] == PROMPT_VERSION
