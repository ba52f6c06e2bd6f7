"""Summarization score maths with scripted verdicts (no model): the Ragas docs number, the Mastra example,
options, denominators, the NaN policy, input validation, details and both ways of making units."""

import json
import math
import textwrap

import pytest
from helpers import ScriptedJudge

from localjudge import PROMPT_VERSION, keyfacts, maths, score_summaries, summarization_output
from localjudge.prompts import SENTENCE_QUESTION
from localjudge.text import (
    SPOKEN_PIECE_WORDS, claim_sentences, clean, furniture_lines, read_source, source_lines, source_sentences,
    split_sentences, transcript_read, unwrapped,
)

# A made-up app, sized like the Ragas docs example: a 310-character source and a 183-character summary,
# so conciseness = 1 - 183 / (310 + 1e-10).
APP_SOURCE = (
    "Stridewell, a fitness app by the Harbourside firm Kelpie Labs, launched in April 2023 and reached 40,000 "
    "paying users by June. It costs 9 dollars a month. The app plans workouts, counts steps and reminds users to "
    "drink water. A free version shows ads. Its founders, Ines Moreau and Raj Patel, plan a watch app."
)
APP_SUMMARY = (
    "Kelpie Labs launched Stridewell, a 9-dollar-a-month fitness app, in April 2023; it plans workouts, counts "
    "steps and reminds people to drink water, and had 40,000 paying users in June."
)
APP_QUESTIONS = [
    "Is Stridewell a fitness app?",
    "Did Kelpie Labs make Stridewell?",
    "Did Stridewell launch in April 2023?",
    "Did Stridewell reach 40,000 paying users by June?",
    "Does Stridewell cost 9 dollars a month?",
    "Does the app plan workouts?",
    "Does the app count steps and remind users to drink water?",
    "Do Ines Moreau and Raj Patel plan a watch app?",
]
# the summary answers the first seven questions, not the one about the founders
APP_ANSWERS = {question: 1.0 for question in APP_QUESTIONS[:7]}
APP_CLAIMS = ["Kelpie Labs launched Stridewell in April 2023.", "Stridewell costs 9 dollars a month."]

# The Mastra docs example (Tesla), in this project's words: the summary credits the wrong founder.
# the source sentence nearest to the unsupported claim, shown as its evidence in the reason
TESLA_EVIDENCE = "Tesla was founded in 2003 by Martin Eberhard and Marc Tarpenning."
TESLA_SOURCE = (
    "Tesla was founded in 2003 by Martin Eberhard and Marc Tarpenning. Elon Musk joined in 2004 as the largest "
    "investor. The company's first car, the Roadster, came out in 2008 and changed how people saw electric cars. "
    "The Model S sedan followed in 2012."
)
TESLA_SUMMARY = (
    "Tesla, founded by Elon Musk in 2003, changed the electric car industry, starting with the Roadster in 2008."
)
TESLA_CLAIMS = [
    "Tesla was founded by Elon Musk in 2003.",
    "Tesla changed the electric car industry with the Roadster in 2008.",
]
TESLA_QUESTIONS = [
    "Was Tesla founded in 2003?",
    "Did Martin Eberhard and Marc Tarpenning found Tesla?",
    "Did the Roadster come out in 2008?",
    "Did the Roadster change how people saw electric cars?",
]
TESLA_VERDICTS = {
    TESLA_CLAIMS[1]: 1.0,
    TESLA_QUESTIONS[0]: 1.0,
    TESLA_QUESTIONS[2]: 1.0,
    TESLA_QUESTIONS[3]: 1.0,
}

BAKERY_SOURCE = (
    "The Corbin Street bakery in Wexley reopened on Saturday after a kitchen fire in March. "
    "Its owner, Lena Okafor, hired four new bakers during the repairs. "
    "The bakery now opens at six in the morning, an hour earlier than before."
)
BAKERY_SUMMARY = "The Wexley bakery reopened after a fire. It now opens at six in the morning."
BAKERY_SENTENCES = [
    "The Corbin Street bakery in Wexley reopened on Saturday after a kitchen fire in March.",
    "Its owner, Lena Okafor, hired four new bakers during the repairs.",
    "The bakery now opens at six in the morning, an hour earlier than before.",
]


def generating_judge(questions, claims, verdicts, keyphrases=("Stridewell", "Kelpie Labs")):
    """A judge that writes the given keyphrases, questions and claims as JSON and answers with `verdicts`."""
    return ScriptedJudge(
        verdicts=verdicts,
        generations={
            "List the key phrases": json.dumps({"keyphrases": list(keyphrases)}),
            "Write closed questions": json.dumps({"questions": questions}),
            "Break the summary": json.dumps({"claims": claims}),
        },
    )


def score_app_example(**options):
    """The single row of the Ragas-sized example, units generated, seven of eight questions answered."""
    judge = generating_judge(APP_QUESTIONS, APP_CLAIMS, APP_ANSWERS)
    (row,) = score_summaries(judge, [APP_SUMMARY], [[APP_SOURCE]], extraction="generate", **options)
    return row


def score_tesla_example(**options):
    judge = generating_judge(TESLA_QUESTIONS, TESLA_CLAIMS, TESLA_VERDICTS, keyphrases=("Tesla", "2003"))
    (row,) = score_summaries(judge, [TESLA_SUMMARY], [[TESLA_SOURCE]], extraction="generate", final="min", **options)
    return row


def test_example_lengths_match_the_ragas_docs():
    assert (len(APP_SOURCE), len(APP_SUMMARY)) == (310, 183)


def test_ragas_docs_example_maths():
    qa = maths.fraction_yes([1.0] * 7 + [0.0], asked=8)
    conciseness = maths.conciseness_score(APP_SUMMARY, APP_SOURCE)
    assert qa == 0.875
    assert conciseness == 0.4096774193550291
    assert maths.ragas_summary_score(qa, conciseness) == 0.6423387096775146


def test_ragas_docs_example_through_the_pipeline():
    row = score_app_example()
    assert row["score"] == 0.6423387096775146
    assert row["conciseness_score"] == 0.4096774193550291
    assert row["qa_score"] == 0.875
    assert row["coverage_score"] == 0.875
    assert row["alignment_score"] == 0.0  # the scripted judge supports neither claim
    assert [q["question"] for q in row["questions"]] == APP_QUESTIONS
    assert row["keyphrases"] == ["Stridewell", "Kelpie Labs"]
    assert (row["error"], row["warnings"]) == (None, [])


def test_generation_order_and_prompts():
    judge = generating_judge(APP_QUESTIONS, APP_CLAIMS, APP_ANSWERS)
    score_summaries(judge, [APP_SUMMARY], [[APP_SOURCE]], extraction="generate")
    operations = [operation for operation, _ in judge.calls]
    assert operations == ["generate", "generate", "generate", "yes_probability", "yes_probability"]
    keyphrase_prompt, question_prompt, claim_prompt = (judge.calls[i][1][0] for i in range(3))
    assert "List the key phrases" in keyphrase_prompt and APP_SOURCE in keyphrase_prompt
    # the question prompt is built from the generated keyphrases
    assert "Key phrases: Stridewell, Kelpie Labs" in question_prompt
    assert "Break the summary" in claim_prompt and APP_SUMMARY in claim_prompt


def test_mastra_tesla_example():
    row = score_tesla_example()
    assert row["alignment_score"] == 0.5
    assert row["coverage_score"] == 0.75
    assert row["score"] == 0.5


def test_mastra_scale_multiplies_the_min():
    assert score_tesla_example(scale=10)["score"] == 5.0
    assert maths.min_score(0.5, 0.75, scale=10) == 5.0


def test_reason_names_unsupported_claims_and_uncovered_questions():
    reason = score_tesla_example()["reason"]
    assert reason == (
        "The score is 0.50 because 1 of 2 claims are not supported by the source "
        f'("{TESLA_CLAIMS[0]}", closest in the source: "{TESLA_EVIDENCE}") and the summary leaves 1 of 4 questions about the source unanswered '
        f'("{TESLA_QUESTIONS[1]}").'
    )


def test_reason_when_everything_is_supported_and_covered():
    judge = ScriptedJudge(default=1.0)
    (row,) = score_summaries(judge, [BAKERY_SUMMARY], [[BAKERY_SOURCE]])
    assert row["reason"] == (
        "The score is "
        f"{row['score']:.2f} because every claim of the summary (2) is supported by the source and the summary "
        "answers every question about the source (3)."
    )


@pytest.mark.parametrize("coeff, expected", [(0.0, "qa_score"), (1.0, "conciseness_score")])
def test_coeff_bounds_weigh_only_one_part(coeff, expected):
    row = score_app_example(coeff=coeff)
    assert row["score"] == row[expected]


@pytest.mark.parametrize("coeff", [-0.1, 1.5])
def test_coeff_outside_unit_interval_raises_before_any_judge_call(coeff):
    judge = ScriptedJudge()
    with pytest.raises(ValueError, match="coeff must be in"):
        score_summaries(judge, [BAKERY_SUMMARY], [[BAKERY_SOURCE]], coeff=coeff)
    assert judge.calls == []
    with pytest.raises(ValueError, match="coeff must be in"):
        maths.ragas_summary_score(1.0, 0.5, coeff=coeff)


def test_without_length_penalty_the_score_is_the_qa_score():
    # Ragas' legacy code returned qa * (1 - coeff) = 0.4375 here
    assert score_app_example(length_penalty=False)["score"] == 0.875


def test_summary_longer_than_source_has_near_zero_conciseness():
    long_summary = BAKERY_SOURCE + " The bakery also sells coffee."
    (row,) = score_summaries(ScriptedJudge(default=1.0), [long_summary], [[BAKERY_SOURCE]])
    # min() caps the length at the source's: 1 - n / (n + 1e-10) is about 1e-12, never negative
    assert 0.0 <= row["conciseness_score"] < 1e-9
    assert row["score"] == 0.5 + row["conciseness_score"] * 0.5


def test_denominators_are_the_questions_asked():
    # a judge that returns two verdicts for four questions cannot reach 1.0
    assert maths.fraction_yes([1.0, 1.0], asked=4) == 0.5
    assert maths.coverage_score([1.0, 1.0], asked=4) == 0.5
    # verdicts beyond the questions asked are ignored
    assert maths.fraction_yes([0.0, 0.0, 1.0, 1.0], asked=2) == 0.0
    assert math.isnan(maths.fraction_yes([], asked=0))
    assert maths.coverage_score([], asked=0) == 0.0
    assert maths.alignment_score([]) == 0.0


def test_soft_scores_are_mean_verdict_probabilities():
    verdicts = {TESLA_CLAIMS[0]: 0.2, TESLA_CLAIMS[1]: 0.9, TESLA_QUESTIONS[0]: 0.6, TESLA_QUESTIONS[1]: 0.3}
    judge = generating_judge(TESLA_QUESTIONS, TESLA_CLAIMS, verdicts, keyphrases=("Tesla", "2003"))
    (hard,) = score_summaries(judge, [TESLA_SUMMARY], [[TESLA_SOURCE]], extraction="generate", final="min")
    (soft,) = score_summaries(judge, [TESLA_SUMMARY], [[TESLA_SOURCE]], extraction="generate", final="min", soft=True)
    assert hard["alignment_score"] == 0.5 and hard["coverage_score"] == 0.25
    assert soft["alignment_score"] == pytest.approx((0.2 + 0.9) / 2)
    assert soft["coverage_score"] == pytest.approx((0.6 + 0.3 + 0.0 + 0.0) / 4)
    assert soft["qa_score"] == soft["coverage_score"]
    assert soft["score"] == pytest.approx(min(0.55, 0.225))
    # the same verdicts: soft changes the aggregation only
    assert [c["p_yes"] for c in soft["claims"]] == [c["p_yes"] for c in hard["claims"]]


def test_soft_counts_a_missing_verdict_as_zero_over_the_items_asked():
    assert maths.fraction_yes([0.8, float("nan")], asked=2, soft=True) == 0.4
    assert maths.fraction_yes([0.8], asked=4, soft=True) == 0.2
    assert maths.coverage_score([], asked=0, soft=True) == 0.0
    assert maths.alignment_score([], soft=True) == 0.0


def test_verdict_threshold_is_inclusive():
    verdicts = {BAKERY_SENTENCES[0]: 0.5, BAKERY_SENTENCES[1]: 0.49999}
    judge = ScriptedJudge(verdicts={SENTENCE_QUESTION.format(sentence=s): p for s, p in verdicts.items()})
    (row,) = score_summaries(judge, [BAKERY_SUMMARY], [[BAKERY_SOURCE]], length_penalty=False)
    assert [q["answered"] for q in row["questions"]] == [True, False, False]
    assert row["score"] == 1 / 3


@pytest.mark.parametrize("summary", ["", "   \n", None])
def test_empty_summary_is_a_failed_row_excluded_from_the_mean(summary):
    judge = ScriptedJudge(default=1.0)
    rows = score_summaries(judge, [BAKERY_SUMMARY, summary], [[BAKERY_SOURCE], [BAKERY_SOURCE]])
    failed = rows[1]
    assert math.isnan(failed["score"]) and math.isnan(failed["qa_score"]) and math.isnan(failed["alignment_score"])
    assert failed["reason"] == "Not scored: empty or missing summary: pass a non-empty string."
    output = summarization_output(rows)
    assert output["num_failed"] == 1
    assert output["summarization_score"] == rows[0]["score"]
    # the failed row asked the judge nothing: only the 2 claims and 3 questions of the first row were judged
    assert [len(prompts) for _, prompts in judge.calls] == [2, 3]


@pytest.mark.parametrize("summary", ["---", "✅", "[1]"])
def test_a_summary_of_layout_only_is_a_failed_row_that_names_it(summary):
    # nothing is left to judge once its layout is set aside: not a score of 0 for "every claim (0) supported"
    judge = ScriptedJudge(default=1.0)
    (row,) = score_summaries(judge, [summary], [[BAKERY_SOURCE]], final="min")
    assert math.isnan(row["score"]) and math.isnan(row["alignment_score"])
    assert row["reason"] == (f"Not scored: the summary {summary!r} states nothing, only layout (list marks, rules or "
                             "citations): pass the summary's text.")
    assert judge.calls == []


@pytest.mark.parametrize("contexts", [[], [""], ["  ", "\n"], "", None])
def test_empty_contexts_are_a_failed_row(contexts):
    (row,) = score_summaries(ScriptedJudge(), [BAKERY_SUMMARY], [contexts])
    assert math.isnan(row["score"])
    assert row["reason"].startswith("Not scored: empty or missing contexts")
    assert summarization_output([row])["num_failed"] == 1


def test_source_of_control_characters_only_is_nan_with_its_reason():
    # the source is only control characters (as from a broken text extraction), which cleaning removes
    judge = generating_judge([], ["A claim about the bakery."], {}, keyphrases=())
    judge.default = 1.0
    rows = score_summaries(
        judge, [BAKERY_SUMMARY, BAKERY_SUMMARY], [["\x00\x01"], [BAKERY_SOURCE]], extraction="generate"
    )
    failed, scored = rows
    assert math.isnan(failed["score"])
    assert failed["reason"] == (
        "Not scored: empty or missing contexts: pass the source text as a non-empty list of strings."
    )
    assert [q["question"] for q in scored["questions"]] == [
        SENTENCE_QUESTION.format(sentence=sentence) for sentence in BAKERY_SENTENCES
    ]
    output = summarization_output(rows)
    assert output["num_failed"] == 1
    assert output["summarization_score"] == scored["score"]
    assert math.isnan(output["scores"][0])


def test_all_rows_failed_gives_nan_not_a_mean_of_nothing():
    output = summarization_output(score_summaries(ScriptedJudge(), [None], [[BAKERY_SOURCE]]))
    assert math.isnan(output["summarization_score"])
    assert output["num_failed"] == 1


def test_failed_question_generation_falls_back_to_source_sentences():
    judge = generating_judge([], ["The bakery reopened."], {}, keyphrases=())
    (row,) = score_summaries(judge, [BAKERY_SUMMARY], [[BAKERY_SOURCE]], extraction="generate", max_questions=2)
    assert row["warnings"] == ["question generation failed (empty 'questions' list); used source sentences"]
    assert [q["question"] for q in row["questions"]] == [
        SENTENCE_QUESTION.format(sentence=sentence) for sentence in BAKERY_SENTENCES[:2]
    ]
    assert [c["claim"] for c in row["claims"]] == ["The bakery reopened."]


def test_generated_questions_are_bounded_by_max_questions():
    row = score_app_example(max_questions=3, length_penalty=False)
    assert [q["question"] for q in row["questions"]] == APP_QUESTIONS[:3]
    assert row["score"] == 1.0


def test_mismatched_column_lengths_raise_naming_the_lengths():
    with pytest.raises(ValueError, match=r"\{'summary': 2, 'contexts': 1\}"):
        score_summaries(ScriptedJudge(), [BAKERY_SUMMARY, BAKERY_SUMMARY], [[BAKERY_SOURCE]])


@pytest.mark.parametrize(
    "option, message",
    [
        ({"final": "mean"}, "final must be one of"),
        ({"extraction": "keyphrases"}, "extraction must be one of"),
        ({"max_questions": 0}, "max_questions must be between 1 and 100"),
        ({"max_questions": 101}, "max_questions must be between 1 and 100"),
    ],
)
def test_invalid_options_raise(option, message):
    with pytest.raises(ValueError, match=message):
        score_summaries(ScriptedJudge(), [BAKERY_SUMMARY], [[BAKERY_SOURCE]], **option)


def test_return_details():
    rows = [score_tesla_example()]
    plain = summarization_output(rows)
    detailed = summarization_output(rows, return_details=True)
    assert sorted(plain) == [
        "alignment_scores",
        "conciseness_scores",
        "coverage_scores",
        "num_failed",
        "qa_scores",
        "scores",
        "summarization_score",
    ]
    assert sorted(detailed) == sorted([*plain, "details", "prompt_version", "verdict_settings"])
    assert detailed["verdict_settings"] == f"shipped:scripted@{PROMPT_VERSION}"
    assert detailed["prompt_version"] == PROMPT_VERSION
    (details,) = detailed["details"]
    assert sorted(details) == ["claims", "error", "keyphrases", "questions", "reason", "warnings"]
    assert details["claims"] == [
        {"claim": TESLA_CLAIMS[0], "p_yes": 0.0, "supported": False, "evidence": TESLA_EVIDENCE},
        {
            "claim": TESLA_CLAIMS[1],
            "p_yes": 1.0,
            "supported": True,
            "evidence": "The company's first car, the Roadster, came out in 2008 and changed how people saw electric cars.",
        },
    ]
    assert details["questions"][1] == {
        "question": TESLA_QUESTIONS[1],
        "fact": TESLA_QUESTIONS[1],
        "p_yes": 0.0,
        "answered": False,
    }


def test_sentence_extraction_units():
    judge = ScriptedJudge(default=1.0)
    (row,) = score_summaries(judge, [BAKERY_SUMMARY], [[BAKERY_SOURCE]], extraction="sentences")
    assert row["questions"] == [
        {"question": f"Does the text state that: {sentence}", "fact": sentence, "p_yes": 1.0, "answered": True}
        for sentence in BAKERY_SENTENCES
    ]
    assert [c["claim"] for c in row["claims"]] == [
        "The Wexley bakery reopened after a fire.",
        "It now opens at six in the morning.",
    ]
    assert row["keyphrases"] == []
    assert [operation for operation, _ in judge.calls] == ["yes_probability", "yes_probability"]


def test_every_claim_of_a_long_summary_is_judged():
    # a summary of 40 sentences, the last one unsupported: each is a claim and each is judged, as Mastra judges them
    sentences = [f"The Wexley bakery sold {count} loaves of rye bread on day {count}." for count in range(1, 41)]
    judge = ScriptedJudge({sentences[-1]: 0.0}, default=1.0)
    (row,) = score_summaries(judge, [" ".join(sentences)], [[BAKERY_SOURCE]], final="min")
    assert [c["claim"] for c in row["claims"]] == sentences
    assert row["alignment_score"] == pytest.approx(39 / 40)
    assert row["warnings"] == []


def test_a_reasoning_models_thoughts_are_no_part_of_its_summary():
    # the reply after "<think>…</think>" is the summary: its claims, the text that answers the source's questions and
    # its length (conciseness) are the reply's, so both scores are the bare summary's; thoughts alone are a failed row
    thought = "<think>\nThe user wants a summary. The bakery reopened on Saturday after a fire in March.\n</think>\n\n"
    judge = ScriptedJudge({BAKERY_SENTENCES[1]: 0.0}, default=1.0)
    replied, bare, thoughts = score_summaries(
        judge, [thought + BAKERY_SUMMARY, BAKERY_SUMMARY, thought], [[BAKERY_SOURCE]] * 3, final="min"
    )
    for key in ("alignment_score", "qa_score", "conciseness_score", "score"):
        assert replied[key] == bare[key]
    assert [c["claim"] for c in replied["claims"]] == [c["claim"] for c in bare["claims"]]
    assert math.isnan(thoughts["score"]) and thoughts["reason"].startswith(
        "Not scored: the summary '<think>\\nThe user wants a summary. The ba' holds only a reasoning model's thoughts"
    )
    # with Ragas' final score too
    ragas_replied, ragas_bare = score_summaries(judge, [thought + BAKERY_SUMMARY, BAKERY_SUMMARY], [[BAKERY_SOURCE]] * 2)
    assert ragas_replied["score"] == ragas_bare["score"]


def test_sentence_questions_are_bounded_by_max_questions():
    judge = ScriptedJudge(default=1.0)
    (row,) = score_summaries(judge, [BAKERY_SUMMARY], [[BAKERY_SOURCE]], max_questions=2)
    assert [q["fact"] for q in row["questions"]] == BAKERY_SENTENCES[:2]
    coverage_prompts = judge.calls[1][1]
    assert len(coverage_prompts) == 2


# a project-written chat of 12 turns: by default its first 10 sentences are asked about, a prose text's first 3
CHAT_TURNS = [
    "Mara: did you book the hall for Saturday?", "Tomek: yes, the small one at the library, from 2 to 6.",
    "Mara: great, how much was it?", "Tomek: 40 euros, I paid already.", "Mara: I'll send you half tonight.",
    "Tomek: no rush. Who brings the projector?", "Mara: Ines said she would.", "Tomek: and the chairs?",
    "Mara: the library has chairs for 30 people.", "Tomek: perfect, we expect about 25.",
    "Mara: I'll print the posters tomorrow.", "Tomek: thanks, see you Saturday!",
]
CHAT_SUMMARY = "Tomek booked the library's small hall for Saturday for 40 euros; Ines brings the projector."


def test_a_dialogue_is_asked_about_its_first_ten_sentences_and_prose_about_three():
    judge = ScriptedJudge(default=1.0)
    chat, prose = score_summaries(judge, [CHAT_SUMMARY, BAKERY_SUMMARY], ["\n".join(CHAT_TURNS), [BAKERY_SOURCE]])
    chat_sentences = split_sentences("\n".join(CHAT_TURNS))
    assert len(chat_sentences) > 10
    assert [q["fact"] for q in chat["questions"]] == chat_sentences[:10]
    assert [q["fact"] for q in prose["questions"]] == BAKERY_SENTENCES[:3]
    # the turns as chunks are the same dialogue (contexts are joined with newlines); max_questions still decides
    (as_chunks,) = score_summaries(judge, [CHAT_SUMMARY], [CHAT_TURNS])
    assert as_chunks["questions"] == chat["questions"]
    (asked_two,) = score_summaries(judge, [CHAT_SUMMARY], [CHAT_TURNS], max_questions=2)
    assert [q["fact"] for q in asked_two["questions"]] == chat_sentences[:2]


@pytest.mark.parametrize(
    "text, kind",
    [
        ("\n".join(CHAT_TURNS), "dialogue"),
        ("#Person1#: Could you help me?\n#Person2#: Sure, what is it?\n#Person1#: My bike has a flat tyre.", "dialogue"),
        ("Speaker A: we start with the budget.\nSpeaker B: it is late again.\n(laughter)", "dialogue"),
        ("[SPEAKER_00]: we start with the budget.\n[SPEAKER_01]: it is late again.\n[SPEAKER_00]: by a week?", "dialogue"),
        ("李雷：你明天来吗？\n韩梅梅：来，下午三点。", "dialogue"),
        ("Anna: ¿Vienes mañana?\nJosé: Sí, a las tres.", "dialogue"),
        (BAKERY_SOURCE, "prose"),
        ("Note: the council met on Tuesday.\nIt voted to build a pool.\nWork starts in May.", "prose"),
        ("Mara: I went home.\nMara: then I slept.", "prose"),  # one speaker: a monologue
        ("10:30 doors open\n11:00 talks begin", "prose"),  # times, not speakers
        ("Menu: soup, bread.\nPrice: 12 euros.\nThe café is on Elm Road and opens at nine every day.\nIt closes at six.", "prose"),
    ],
)
def test_source_kind_finds_dialogues_by_their_speaker_turns(text, kind):
    assert keyfacts.source_kind(text) == kind
    assert keyfacts.question_count(text) == keyfacts.SENTENCE_QUESTIONS[kind]


# CHAT_TURNS as chat apps and meeting tools export them: each message's date and time, a name's header line above what
# was said, a generated dialogue's "Turn 1" lines, subtitle cues (their numbers, timings and voice tags; a speaker's words cut across cues)
_SPOKEN = [turn.split(": ", 1) for turn in CHAT_TURNS]


def _cue_time(index):
    return f"00:00:{3 * index:02d}.250 --> 00:00:{3 * index + 3:02d}.000"


EXPORTED_CHATS = {
    "WhatsApp (Android)": "\n".join(f"01/12/2026, 18:{index:02d} - {name}: {said}" for index, (name, said) in enumerate(_SPOKEN)),
    "WhatsApp (iOS)": "\n".join(f"[01/12/2026, 18:{index:02d}:41] {name}: {said}" for index, (name, said) in enumerate(_SPOKEN)),
    "a time in brackets": "\n".join(f"[18:{index:02d}] {name}: {said}" for index, (name, said) in enumerate(_SPOKEN)),
    "a time after the name": "\n".join(f"{name} (18:{index:02d}): {said}" for index, (name, said) in enumerate(_SPOKEN)),
    "Zoom's chat": "\n".join(f"18:{index:02d}:07 From {name} to Everyone: {said}" for index, (name, said) in enumerate(_SPOKEN)),
    "Slack": "\n".join(f"{name}  6:{index:02d} PM\n{said}" for index, (name, said) in enumerate(_SPOKEN)),
    "Teams": "\n\n".join(f"{name}   {index}:{index * 4:02d}\n{said}" for index, (name, said) in enumerate(_SPOKEN)),
    "Discord": "\n".join(f"{name} — Today at 6:{index:02d} PM\n{said}" for index, (name, said) in enumerate(_SPOKEN)),
    # what the app shows under a message, copied with it: reactions and their counts, a thread's replies, an edit
    "Slack, reactions, replies and edits": "\n".join(
        f"{name}  6:{index:02d} PM\n{said}" + " (edited)" * (index == 1) + "\n:+1:\n2" * (index % 3 == 0)
        + "\n2 replies\nView thread" * (index == 2) for index, (name, said) in enumerate(_SPOKEN)),
    "Discord, reactions": "\n".join(f"{name} — Today at 6:{index:02d} PM\n{said}" + "\n👍 3 🎉 1" * (index % 2)
                                     for index, (name, said) in enumerate(_SPOKEN)),
    "Fireflies, a dash before the time": "\n".join(f"{name} - 00:{index:02d}\n{said}" for index, (name, said) in enumerate(_SPOKEN)),
    "a generated dialogue's turn numbers": "\n\n".join(
        f"Turn {index + 1}\n{name}: {said}" for index, (name, said) in enumerate(_SPOKEN)),
    "a name, a time and a colon": "\n\n".join(f"{name} (00:{index:02d}:13):\n{said}" for index, (name, said) in enumerate(_SPOKEN)),
    "WebVTT, voice tags": "WEBVTT\nKind: captions\n\nNOTE made for the tests\n\n" + "\n\n".join(
        f"{_cue_time(index)} align:start\n<v {name}>{said}</v>" for index, (name, said) in enumerate(_SPOKEN)
    ),
    "Whisper's segment timings": "\n".join(f"[{_cue_time(index)}]  {name}: {said}" for index, (name, said) in enumerate(_SPOKEN)),
    "SRT, a turn cut across two cues": "\n\n".join(
        f"{2 * index + 1}\n{_cue_time(2 * index).replace('.', ',')}\n{name}: {said.split(' ', 1)[0]}\n\n"
        f"{2 * index + 2}\n{_cue_time(2 * index + 1).replace('.', ',')}\n{said.split(' ', 1)[1]}"
        for index, (name, said) in enumerate(_SPOKEN)
    ),
}


@pytest.mark.parametrize("app", EXPORTED_CHATS)
def test_an_exported_chat_scores_as_the_typed_one(app):
    """The judge reads the same prompts for a chat whichever app exported it, and the row scores the same, its
    conciseness too (the timings and message times are no part of what the source says)."""
    typed = "\n".join(CHAT_TURNS)
    assert transcript_read(clean(EXPORTED_CHATS[app])) == typed
    assert transcript_read(typed) == typed
    assert keyfacts.source_kind(transcript_read(EXPORTED_CHATS[app])) == "dialogue"
    judge_typed, judge_exported = ScriptedJudge(default=1.0), ScriptedJudge(default=1.0)
    (as_typed,) = score_summaries(judge_typed, [CHAT_SUMMARY], [typed])
    (as_exported,) = score_summaries(judge_exported, [CHAT_SUMMARY], [EXPORTED_CHATS[app]])
    assert judge_exported.calls == judge_typed.calls
    assert len(as_exported["questions"]) == keyfacts.SENTENCE_QUESTIONS["dialogue"]
    for key in ("score", "qa_score", "conciseness_score", "alignment_score", "questions", "claims", "documents"):
        assert as_exported[key] == as_typed[key], key


@pytest.mark.parametrize("turns", [len(CHAT_TURNS), 4])
def test_google_meets_transcript_is_asked_about_what_was_said_not_about_its_header(turns):
    # Google Meet's transcript opens with its title, "Attendees" without a colon above the names, "Transcript" and a
    # note that a machine wrote it, and has times alone between the turns: the title and the names were the first
    # questions, the note a sentence, and a short meeting (4 turns) no dialogue, its header counted against its turns
    said = CHAT_TURNS[:turns]
    meet = ("Hall booking sync (2026-12-01 18:00 CET) - Transcript\nAttendees\nMara Lind, Tomek Nowak\nTranscript\n"
            "This editable transcript was computer generated and might contain errors. People can also change the "
            "text after it was created.\n00:00:00\n\n" + "\n".join(said[:2]) + "\n\n00:05:00\n\n" + "\n".join(said[2:]))
    (typed,) = score_summaries(ScriptedJudge(default=1.0), [CHAT_SUMMARY], ["\n".join(said)])
    (row,) = score_summaries(ScriptedJudge(default=1.0), [CHAT_SUMMARY], [meet])
    assert row["questions"] == typed["questions"]
    assert len(row["questions"]) == min(keyfacts.SENTENCE_QUESTIONS["dialogue"], len(typed["source_sentences"]))
    assert row["source_sentences"][:2] == ["Hall booking sync (2026-12-01 18:00 CET) - Transcript",
                                           "Attendees: Mara Lind, Tomek Nowak Transcript"]
    assert row["source_sentences"][2:] == typed["source_sentences"]


def test_teams_transcript_reads_as_its_speakers_turns():
    # Teams' transcript as it downloads: each cue's times without leading zeros, the speaker's name above the words;
    # the times were no cue's (not read as subtitles) and the names ran into the words before them
    names = {"Mara": "Mara Lind", "Tomek": "Tomek Nowak"}
    cues = [f"0:0:{3 * index}.0 --> 0:0:{3 * index + 2}.520\n{names[name]}\n{said}" for index, (name, said) in enumerate(_SPOKEN)]
    assert transcript_read("\n\n".join(cues)) == "\n".join(f"{names[name]}: {said}" for name, said in _SPOKEN)
    # a cue's first line in capitals that no other cue opens with, in most cues, is no speaker
    captions = "\n\n".join(["0:0:1.0 --> 0:0:3.0\nThe Council Met\non Tuesday evening.", "0:0:3.0 --> 0:0:5.0\nIt voted\nfor a pool."])
    assert transcript_read(captions) == "The Council Met on Tuesday evening. It voted for a pool."


def test_subtitles_without_speakers_read_as_running_text_and_timings_alone_are_a_failed_row():
    cues = ["The council met on Tuesday", "and voted to build a pool.", "Work starts in May", "and ends in 2027."]
    subtitles = "\n\n".join(f"{index + 1}\n{_cue_time(index).replace('.', ',')}\n{cue}" for index, cue in enumerate(cues))
    assert transcript_read(subtitles) == " ".join(cues)
    assert split_sentences(transcript_read(subtitles)) == ["The council met on Tuesday and voted to build a pool.",
                                                           "Work starts in May and ends in 2027."]
    # as Whisper prints them, each segment's timing in brackets before its words
    whisper = "\n".join(f"[{_cue_time(index)[3:]}]  {cue}" for index, cue in enumerate(cues))
    assert transcript_read(whisper) == " ".join(cues)
    # a diarised transcript's speakers in brackets are its turns' speakers, not sounds ("[Music]")
    diarised = "\n\n".join(f"{index + 1}\n{_cue_time(index)}\n[SPEAKER_0{index % 2}]: {cue}" for index, cue in enumerate(cues))
    assert transcript_read(diarised + "\n\n5\n00:00:12.250 --> 00:00:15.000\n[Music]") == "\n".join(
        f"[SPEAKER_0{index % 2}]: {cue}" for index, cue in enumerate(cues))
    timings_alone = "WEBVTT\n\n" + "\n\n".join(_cue_time(index) for index in range(3))
    (row,) = score_summaries(ScriptedJudge(default=1.0), ["The council will build a pool."], [timings_alone])
    assert math.isnan(row["score"]) and "subtitle file's timings" in row["error"] and "pass the text" in row["error"]


@pytest.mark.parametrize(
    "text",
    [
        "10:30 Bus: leaves from Elm Road.\n11:00 Train: leaves platform 2.\n11:30 Ferry: crosses to Holm.",  # a timetable
        "10:31 The mayor arrived at the site.\n10:45 Police closed the bridge.\n11:02 The first boats left.",  # a live blog
        "Registration 9:00\nCoffee in the hall.\nKeynote 9:30\nIlse Marr on river restoration.",  # an agenda
        "Mara: When shall we meet?\nTomek: Tomorrow.\n10:30 works for me.\nMara: Great.\nTomek: See you.",  # said
        "Title:\nRiver restoration in Holm\nAuthor(s):\nIlse Marr\nTitle:\nA second report",  # a form's fields
        "\n".join(CHAT_TURNS),
        BAKERY_SOURCE,
    ],
)
def test_times_that_say_something_stay(text):
    """A message's time goes only from a conversation in which someone speaks twice; a timetable's, a live blog's, an
    agenda's times, and a time a speaker says, stay, as does a form's "Title:" (a field, not a speaker)."""
    assert transcript_read(text) == text


# a talk as a video's automatic captions give it: no punctuation, no capitals, one run of 111 words
TALK = (
    "hi everyone and welcome back to the garden show today we are talking about tomatoes on a small balcony "
    "so the first thing you need is a big pot at least forty litres because the roots go deep "
    "next you want a sunny spot the plant needs six to eight hours of sun every day "
    "water in the morning at the base of the plant and never on the leaves "
    "once the first flowers open give them a tomato feed every week "
    "and pinch out the side shoots so the plant puts its energy into fruit "
    "that's it for today next week we are building a worm bin see you then"
)
_TALK_WORDS = TALK.split()
# the same talk as a subtitle file, as its player's transcript copies it (a time alone above each caption), as a text
# editor wraps it
TALK_FORMS = {
    "typed": TALK,
    "subtitles": "\n\n".join(
        f"{index // 8 + 1}\n{_cue_time(index // 8).replace('.', ',')}\n{' '.join(_TALK_WORDS[index:index + 8])}"
        for index in range(0, len(_TALK_WORDS), 8)
    ),
    "player transcript": "\n".join(
        f"0:{3 * (index // 8):02d}\n{' '.join(_TALK_WORDS[index:index + 8])}" for index in range(0, len(_TALK_WORDS), 8)
    ),
    "wrapped": "\n".join(
        " ".join(_TALK_WORDS[index:index + 12]) for index in range(0, len(_TALK_WORDS), 12)
    ),
}
# and as YouTube's automatic captions come (WebVTT): each line shown in three cues as it rolls up, its words timed
_TALK_LINES = [" ".join(_TALK_WORDS[index:index + 5]) for index in range(0, len(_TALK_WORDS), 5)]


def _clock(seconds):
    return f"00:{seconds // 60:02d}:{seconds % 60:02d}.000"


TALK_FORMS["rolling captions"] = "WEBVTT\nKind: captions\nLanguage: en\n\n" + "\n\n".join(
    f"{_clock(3 * number)} --> {_clock(3 * number + 2)} align:start position:0%\n"
    f"{_TALK_LINES[number - 1] if number else ' '}\n{line.split()[0]}"
    + "".join(f"<{_clock(3 * number)[:-3]}{100 * step:03d}><c> {word}</c>" for step, word in enumerate(line.split()[1:], 1))
    + f"\n\n{_clock(3 * number + 2)} --> {_clock(3 * number + 3)} align:start position:0%\n{line}\n "
    for number, line in enumerate(_TALK_LINES)
).replace("\n ", "\n[Music]", 1)  # the automatic captions' note of music before the talk


@pytest.mark.parametrize("form", TALK_FORMS)
def test_speech_without_punctuation_is_read_in_pieces_of_a_sentence(form):
    """Captions without a stop are read in pieces of about a sentence's length, whatever file they come in: the
    coverage questions are the talk's first three pieces, not the whole talk as one question, and a piece is never
    more than twice the piece's length."""
    sentences = source_sentences(read_source(clean(TALK_FORMS[form])))
    assert " ".join(sentences) == TALK
    assert len(sentences) == round(len(_TALK_WORDS) / SPOKEN_PIECE_WORDS)
    assert all(len(piece.split()) <= 2 * SPOKEN_PIECE_WORDS for piece in sentences)
    (row,) = score_summaries(ScriptedJudge(default=1.0), ["The host explains how to grow tomatoes."], [TALK_FORMS[form]])
    assert [question["question"] for question in row["questions"]] == [
        SENTENCE_QUESTION.format(sentence=piece) for piece in sentences[:3]
    ]


def test_a_line_said_twice_in_a_subtitle_file_is_read_twice():
    """Only a file of rolling captions, most of whose lines repeat the one before, is read a line once."""
    cues = ["Can we move the match to May?", "No.", "No.", "The pitch is closed in May."]
    subtitles = "\n\n".join(f"{index + 1}\n{_cue_time(index).replace('.', ',')}\n{cue}" for index, cue in enumerate(cues))
    assert transcript_read(subtitles) == " ".join(cues)


def test_a_speaker_keeps_every_piece_of_a_long_turn():
    """Each piece of a long turn without stops names its speaker, so a talk of two voices stays a dialogue."""
    subtitles = "WEBVTT\n\n" + "\n\n".join(
        f"{_cue_time(index)}\n<v {name}>{said}</v>" for index, (name, said) in enumerate(
            [("Anna Berg", " ".join(_TALK_WORDS[:70])), ("Ivo", " ".join(_TALK_WORDS[70:]))])
    )
    pieces = source_sentences(read_source(subtitles))
    assert [piece.split(":")[0] for piece in pieces] == ["Anna Berg"] * 4 + ["Ivo"] * 2
    assert keyfacts.source_kind("\n".join(pieces)) == "dialogue"


@pytest.mark.parametrize(
    "source",
    [
        # one long sentence of edited prose, and a list of a band's albums: marks every few words
        "The court held that the contract, signed in Holm in 2019 by both parties and their lawyers, was void because "
        "the seller, who had known of the flooding since the spring, had not disclosed it, and that the buyer, having "
        "relied on the survey in good faith, was owed the deposit, the costs of the survey and interest from the day "
        "of the sale until the day of payment.",
        "The Kelpies: Low Tide (1969) Harbour Lights (1970) The Kelpies (1971) North Wind (1972) Holm Sessions (1973) "
        "Salt Roads (1975) Ferry Songs (1976) Grey Water (1977) Winter Harbour (1978) Made in Holm (1981) Live at "
        "the Quay (1983) Elm Road (1984) Last Boats (1989) Tides Again (2004) The Kelpies with the Holm Orchestra (2018)",
        BAKERY_SOURCE,
    ],
)
def test_edited_text_keeps_its_sentences(source):
    assert source_sentences(source) == split_sentences(source)


def test_times_alone_on_their_lines_half_an_hour_apart_are_a_timetable():
    timetable = "10:30\nThe bus leaves from Elm Road.\n11:00\nThe train leaves platform 2.\n11:30\nThe ferry crosses to Holm."
    assert transcript_read(timetable) == timetable


# APP_SOURCE as a PDF's text or a plain-text e-mail gives it: a line break every 60-odd characters, inside sentences,
# under a heading; and a list whose items stay items
WRAPPED_APP = "\n".join([
    "Stridewell",
    "",
    "Stridewell, a fitness app by the Harbourside firm Kelpie Labs, launched",
    "in April 2023 and reached 40,000 paying users by June. It costs 9 dol-",
    "lars a month. The app plans workouts, counts steps and reminds users to",
    "drink water. A free version shows ads. Its founders, Ines Moreau and Raj",
    "Patel, plan a watch app.",
])


def test_a_hard_wrapped_source_scores_as_its_paragraphs():
    """A PDF's line breaks are no sentence ends: the wrapped source is judged and asked about as the same text on
    one line a paragraph (the judge reads the same prompts), and only its length differs (its heading)."""
    read = "Stridewell\n\n" + APP_SOURCE.replace("9 dollars", "9 dol-lars")
    assert unwrapped(WRAPPED_APP) == read
    judge_wrapped, judge_read = ScriptedJudge(default=1.0), ScriptedJudge(default=1.0)
    (as_wrapped,) = score_summaries(judge_wrapped, [APP_SUMMARY], [WRAPPED_APP])
    (as_read,) = score_summaries(judge_read, [APP_SUMMARY], [read])
    assert judge_wrapped.calls == judge_read.calls
    assert as_wrapped["questions"] == as_read["questions"]
    # the heading, too short for a sentence, opens the first one; the sentences are whole
    assert [q["fact"] for q in as_wrapped["questions"]] == [
        "Stridewell " + APP_SOURCE.split(". ")[0] + ".", "It costs 9 dol-lars a month.",
        "The app plans workouts, counts steps and reminds users to drink water.",
    ]


# a report's text as a PDF gives it, two pages: the running head above each, the page's number under it, and a
# sentence that goes on over the page break
REPORT_HEAD = "Wexley Council - Annual Report 2026"
REPORT_OVEN = "The bakery's new oven, bought with a grant from the Wexley council, bakes four hundred loaves an hour."
REPORT_LINES = textwrap.wrap(f"{BAKERY_SOURCE} {REPORT_OVEN}", 60)


@pytest.mark.parametrize("number", ["Page {} of 2", "{}", "- {} -", "Seite {} von 2"])
def test_a_pdfs_page_numbers_and_running_heads_are_not_read(number):
    """A page's number and the running head beside it (`text._without_page_marks`) are no text of the report: they
    broke the sentence that crosses the page ("… now opens at Page 1 of 2 Wexley Council - Annual Report 2026 six in
    the morning …") and ran onto the report's last sentence; the head where it opens the report is its title."""
    pages = [REPORT_HEAD, *REPORT_LINES[:3], number.format(1), REPORT_HEAD, *REPORT_LINES[3:], number.format(2)]
    assert source_sentences(read_source(clean("\n".join(pages)))) == [REPORT_HEAD, *BAKERY_SENTENCES, REPORT_OVEN]


@pytest.mark.parametrize(
    "text",
    [
        "\n".join(CHAT_TURNS),  # a dialogue's turns
        "The council met on Tuesday evening in the town hall\nIt voted to build a pool next to the Elm Road school\n"
        "Work starts in May and should end in June 2027.",  # a list of statements, one a line: too few inside a sentence
        "Key points of the plan:\n- a 25-metre pool with six lanes and a separate learners' pool\n"
        "- opening hours from six in the morning to ten at night\n- free entry for children under twelve on weekdays",
        BAKERY_SOURCE,
        "Roses are red\nviolets are blue\nthe pool opens in June\nand so do you",  # short lines
        "Bakeries in Wexley by loaves a day\n1\nCorbin Street bakery\n2\nHolm bakery\n3\nHarbour Street bakery",  # a ranking
    ],
)
def test_a_text_that_is_not_hard_wrapped_keeps_its_lines(text):
    assert unwrapped(text) == text


# BAKERY_SOURCE pasted from a web page: a headline, a byline, when it was published, a photo's credit, the page's words
PASTED_BAKERY = "\n".join([
    "Wexley bakery reopens after kitchen fire",
    "By Ilse Marr and Tomek Nowak, Harbourside Herald",
    "Updated 3:14 PM EST, Tue December 1, 2026",
    "Share",
    "4 min read",
    "Photo: Tomek Nowak/Harbourside Herald",
    BAKERY_SOURCE,
])


@pytest.mark.parametrize("key_facts", ["lead", "central"])
def test_a_pasted_articles_byline_and_date_are_not_asked_about(key_facts):
    """What a web page puts around an article (`keyfacts.is_page_furniture`) is no key fact: the questions of the
    pasted article are its headline and its first sentences, the questions of the bare one past its headline."""
    judge = ScriptedJudge(default=1.0)
    pasted, bare = score_summaries(judge, [BAKERY_SUMMARY] * 2, [PASTED_BAKERY, BAKERY_SOURCE], key_facts=key_facts)
    facts = [q["fact"] for q in pasted["questions"]]
    assert not any(keyfacts.is_page_furniture(fact) for fact in facts)
    assert not any(word in " ".join(facts) for word in ("Updated", "Share", "min read", "Photo:", "Ilse Marr"))
    if key_facts == "lead":
        assert facts == ["Wexley bakery reopens after kitchen fire", *BAKERY_SENTENCES[:2]]
        assert [q["fact"] for q in bare["questions"]] == BAKERY_SENTENCES[:3]


# BAKERY_SOURCE pasted from news sites' pages in three house styles, each line of the page a line of the paste: what
# the page shows around the article is short, and each short line joined its neighbour, the headline or the lead
PAGE_PASTES = {
    # a broadcaster's: the date, the page's buttons, the reporter's name and desk, a photo's caption under its label
    "broadcaster": ["Wexley bakery reopens after kitchen fire", "1 December 2026", "Share", "Save", "Ilse Marr",
                    "Harbourside News", "Image caption,", "The bakery's new ovens were fitted in October"],
    # an agency's: the byline alone, when it was published and updated, and the credits under the story
    "agency": ["Wexley bakery reopens after kitchen fire", "By Ilse Marr",
               "December 1, 2026 3:14 PM UTC Updated 2 hours ago"],
    # a newspaper's: the standfirst, the reporter's name alone above the date, the share button
    "newspaper": ["Wexley bakery reopens after kitchen fire", "Corbin Street shop opens an hour earlier after repairs",
                  "Ilse Marr", "Tue 1 Dec 2026 14.05 GMT", "Share"],
}


@pytest.mark.parametrize("blank_lines", [False, True], ids=["lines", "paragraphs"])
@pytest.mark.parametrize("style", PAGE_PASTES)
def test_a_pasted_pages_short_furniture_lines_join_neither_headline_nor_lead(style, blank_lines):
    """Each line of a web page's furniture is a sentence of its own and no key fact (`text.furniture_lines`): the
    date, the buttons, a byline with or without its "By" and the desk under it, a caption under its label. Before,
    each was too short for a sentence and joined the headline ("Wexley bakery reopens after kitchen fire 1 December
    2026 Share Save Ilse Marr Harbourside News Image caption,") or, when the paste's lines stood apart, the short
    line above a long one read as a heading typed plainly ("Share: The Corbin Street bakery …"). The questions are
    the headline (and a newspaper's standfirst) and the lead, as for the article pasted alone."""
    page = PAGE_PASTES[style] + [*BAKERY_SENTENCES, "Reporting by Ilse Marr; Editing by Tomek Nowak"]
    pasted = ("\n\n" if blank_lines else "\n").join(page)
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [pasted])
    headlines = PAGE_PASTES[style][:2] if style == "newspaper" else PAGE_PASTES[style][:1]
    assert [q["fact"] for q in row["questions"]] == [*headlines, *BAKERY_SENTENCES][:3]
    assert set(BAKERY_SENTENCES) <= set(row["source_sentences"])
    assert PAGE_PASTES[style][0] in row["source_sentences"]


# a news page pasted in German, French, Spanish, Chinese and Japanese: its headline, when it was published (and by
# whom, which agency), then its lead; written for this test
FOREIGN_PASTES = {
    "de": ["Harlow Bay baut neues Hallenbad", "Stand: 03.03.2026 10:31 Uhr", "Von Anna Berg, dpa",
           "Der Gemeinderat von Harlow Bay hat am Dienstag den Bau eines Schwimmbads beschlossen.",
           "Das Bad kostet 3,2 Millionen Euro und soll im Juni 2027 öffnen."],
    "fr": ["Harlow Bay va construire une piscine publique", "Publié le 03/03/2026 à 10h31, mis à jour à 12h05",
           "Le conseil municipal de Harlow Bay a voté mardi la construction d'une piscine publique.",
           "La piscine coûtera 3,2 millions d'euros et devrait ouvrir en juin 2027."],
    "es": ["Harlow Bay construirá una piscina pública", "Publicado el 3 de marzo de 2026 a las 10:31",
           "El consejo municipal de Harlow Bay votó el martes construir una piscina pública.",
           "La piscina costará 3,2 millones de euros y abrirá en junio de 2027."],
    "zh": ["哈尔洛湾议会批准建设公共游泳池", "2026-03-03 10:31 来源：新华社 编辑：李明", "分享到：微信 微博",
           "哈尔洛湾市议会周二投票决定在榆树路学校旁修建一座公共游泳池。", "该泳池耗资320万欧元，预计2027年6月开放。"],
    "ja": ["ハーロウ湾、公営プール建設を承認", "2026年3月3日 10時31分", "共同通信",
           "ハーロウ湾町議会は火曜日、エルム通り小学校の隣に公営プールを建設することを決めた。", "費用は320万ユーロで、2027年6月に開業する予定だ。"],
}


@pytest.mark.parametrize("language", FOREIGN_PASTES)
def test_a_pasted_pages_date_line_is_furniture_in_other_languages_too(language):
    """When a page was published, in the words of its language ("Stand: … Uhr", "Publié le … à 10h31", "2026年3月3日
    10時31分"), with a Chinese page's source, editor and share buttons and the agency under a Japanese page's date,
    is no key fact: the questions are the headline and the lead, which the date line had displaced."""
    page = FOREIGN_PASTES[language]
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], ["\n".join(page)])
    assert [q["fact"] for q in row["questions"]] == [page[0], *page[-2:]]


def test_wikipedias_maintenance_tags_and_notes_are_not_read():
    """A copied Wikipedia article's "[citation needed]", "[who?]", "[dubious – discuss]", "[update]", "[a]" and
    "[note 3]" say what the article lacks or where its notes are, not what it states: read, they opened the next
    sentence ("[citation needed] Its owner, …") and so its question, and stood in the judge's evidence."""
    tagged = (f"{BAKERY_SENTENCES[0][:-1]}[update].[citation needed] {BAKERY_SENTENCES[1]}[who?][note 3] "
              f"{BAKERY_SENTENCES[2]}[dubious – discuss][a]")
    (plain,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [BAKERY_SOURCE])
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [tagged])
    assert row["source_sentences"] == BAKERY_SENTENCES
    assert row["questions"] == plain["questions"] and row["documents"] == plain["documents"]
    assert claim_sentences(f"{BAKERY_SENTENCES[1]}[citation needed]") == [BAKERY_SENTENCES[1]]
    # code's index and a quotation's edit are no notes
    for kept in ('The loop reads x[i] for each row.', 'She said, "[t]he bakery reopened on Saturday."'):
        assert claim_sentences(kept) == [kept]


def test_markdown_footnotes_read_as_their_text():
    """A markdown footnote's reference ("[^1]", "[^note]") is no word of its sentence, and its definition under the
    text reads as what it says ("[^1]: …" had read ": Wexley Gazette, …", a named reference as words); a summary's
    footnotes are its sources, no claims."""
    noted = (f"{BAKERY_SENTENCES[0][:-1]}.[^1] {BAKERY_SENTENCES[1]}[^owner] {BAKERY_SENTENCES[2]}\n\n"
             "[^1]: Wexley Gazette, 2 April 2026.\n[^owner]: Interview with Lena Okafor.")
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [noted])
    assert row["source_sentences"] == [*BAKERY_SENTENCES, "Wexley Gazette, 2 April 2026.", "Interview with Lena Okafor."]
    assert claim_sentences(noted) == BAKERY_SENTENCES


SOCIAL_POSTS = {
    "Reddit": ["r/wexley · Posted by u/corbin_regular · 3h", *BAKERY_SENTENCES, "⬆ 128 ⬇ 💬 42 comments", "Reply",
               "Share", "Report"],
    "Reddit, old layout": ["Posted by u/corbin_regular", "3 hr. ago", *BAKERY_SENTENCES, "42 comments", "Share", "Save"],
    "X": ["Wexley Gazette", "@wexleygazette · 3h", *BAKERY_SENTENCES, "10:31 AM · Dec 6, 2026 · 12.3K Views",
          "12 Reposts 3 Quotes 240 Likes 5 Bookmarks"],
    "LinkedIn": ["2d • Edited", *BAKERY_SENTENCES, "👍 128 · 14 comments · 3 reposts", "Like Comment Repost Send"],
}


@pytest.mark.parametrize("platform", SOCIAL_POSTS)
def test_a_copied_social_posts_handle_counts_and_buttons_are_furniture(platform):
    """A post copied from its page brings its author's handle and time ("Posted by u/…", "@… · 3h"), its counts of
    replies and reactions ("42 comments", "12.3K Views") and its buttons: no key facts, and no part of the sentence
    before them ("… earlier than before. 42 comments"); the questions are what the post says."""
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], ["\n".join(SOCIAL_POSTS[platform])])
    assert [q["fact"] for q in row["questions"]] == BAKERY_SENTENCES
    assert set(BAKERY_SENTENCES) <= set(row["source_sentences"])
    # a sentence that counts comments, views or likes is text
    for sentence in ("The plan drew 42 comments, most of them in favour.", "Its video had 12,000 views by Sunday.",
                     "Like the bakery, the café opens at six."):
        assert not keyfacts.is_page_furniture(sentence)


@pytest.mark.parametrize("sentence", ["Mai 2027 beginnt der Bau des Bades.", "Le 3 mars, le conseil a voté.",
                                      "De 2020 a 2026 el precio subió un 12 %.", "2027年6月，泳池将开放。"])
def test_a_sentence_with_a_date_in_another_language_is_no_furniture(sentence):
    assert not keyfacts.is_page_furniture(sentence)


def test_a_name_alone_is_a_byline_only_beside_page_furniture():
    """A line of a person's name alone is the page's byline where the page's furniture stands beside it; elsewhere
    it is text, a title or a heading ("Lena Okafor" above the article about her is its first key fact)."""
    sentences = ["Lena Okafor", "Tue 1 Dec 2026 14.05 GMT", *BAKERY_SENTENCES]
    assert furniture_lines(sentences) == {0, 1}
    assert furniture_lines(["Lena Okafor", *BAKERY_SENTENCES]) == set()
    titled = "\n".join(["Lena Okafor", *BAKERY_SENTENCES])
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [titled])
    assert row["questions"][0]["fact"].startswith("Lena Okafor")


@pytest.mark.parametrize("sentence", [
    "By Ilse Marr, Harbourside Herald", "By Ilse Marr and Tomek Nowak", "By ILSE MARR", "Von Ilse Marr, dpa",
    "Par Ilse Marr", "Updated 3:14 PM EST, Tue December 1, 2026", "Tue 1 Dec 2026 15.14 GMT", "2026-12-01 15:14",
    "Published on December 1, 2026 by Ilse Marr · 4 min read", "Photo: Tomek Nowak/Getty Images", "Share", "4 min read",
    "For other uses, see Wexley (disambiguation).", "Wexley This article is about the town in Kent.",
    "Not to be confused with Wexford.", "Main article: History of Wexley", '"Corbin" redirects here.',
    "Updated 2 hours ago", "December 1, 2026 3:14 PM UTC Updated 45 minutes ago", "Save", "Share on Facebook",
    "Share via Email", "Image caption,", "Image caption, The bakery's new ovens were fitted in October",
    "Image source, Getty Images", "Media caption, Lena Okafor on the first morning",
    "Reporting by Ilse Marr; Editing by Tomek Nowak", "Additional reporting by Tomek Nowak in Wexley",
    # links to other articles, calls to follow or subscribe, a republished piece's note, the copyright line
    "Read more: Wexley bakery wins regional prize", "READ MORE: Kitchen fire closes Corbin Street", "Related: Wexley's "
    "other bakeries", "Most read", "Recommended for you", "Follow us on Twitter", "Subscribe now", "Already a "
    "subscriber? Log in", "Gift this article", "This article was originally published on The Conversation.",
    "Copyright 2026 Harbourside Herald. All rights reserved.", "© 2026 Harbourside Herald",
])
def test_page_furniture(sentence):
    assert keyfacts.is_page_furniture(sentence)


# BAKERY_SOURCE as an encyclopedia's article copied from its page: the page's tagline and links above it, a hatnote
# sending readers elsewhere, a section's heading with its link to edit it
WIKI_BAKERY = "\n".join([
    "Corbin Street bakery", "From Wikipedia, the free encyclopedia", "Jump to navigation", "Jump to search",
    "This article is about the bakery in Wexley. For the street, see Corbin Street.",
    BAKERY_SOURCE.replace("March. ", "March.[1] "), "History[edit]", "The bakery was founded in 1952 by the Okafor family.",
])


def test_a_web_readers_header_is_not_read():
    """A page as a web reader hands it to a language model (Jina Reader: "Title: …", "URL Source: …", "Published Time:
    …", "Markdown Content:") is read as its headline and text: the header's lines had been the first key facts, and
    read as turns of four speakers, the page as a dialogue asked its first 10 sentences."""
    headline = "Wexley bakery reopens after kitchen fire"
    for opening in ("Markdown Content:\n", "Markdown Content: "):
        page = (f"Title: {headline}\n\nURL Source: https://harbourside.example/bakery\n\n"
                f"Published Time: 2026-03-03T10:31:00+00:00\n\n{opening}{BAKERY_SOURCE}")
        assert keyfacts.source_kind(source_lines(page)) == "prose"
        (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [page])
        assert row["source_sentences"] == [headline, *BAKERY_SENTENCES]
    # a title field above a sentence is the text's own
    assert source_lines(f"Title: {headline}\n{BAKERY_SOURCE}") == f"Title: {headline}\n{BAKERY_SOURCE}"


def test_a_copied_encyclopedia_page_is_read_as_its_article():
    """What the page shows around the article is not read (`text._PAGE_CHROME`), its hatnote is no key fact
    (`keyfacts.is_page_furniture`), and a section's heading introduces its text: the questions are the article's
    title, as a pasted article's headline is, and its first sentences."""
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [WIKI_BAKERY])
    assert [q["fact"] for q in row["questions"]] == ["Corbin Street bakery", *BAKERY_SENTENCES[:2]]
    read = " ".join(row["source_sentences"])
    assert not any(chrome in read for chrome in ("Wikipedia", "Jump to", "[edit]", "[1]"))
    assert "History: The bakery was founded in 1952 by the Okafor family." in row["source_sentences"]
    assert "For the street, see Corbin Street." in row["source_sentences"]

# the table of contents the page shows after an article's lead, as a copy of it brings it along: the older box with
# its numbered entries, the newer sidebar with its own words among them, and a German page's
CONTENTS_BOXES = {
    "box": ["Contents", "1 History", "1.1 Founding", "2 Reopening", "3 References"],
    "box, spaced": ["Contents [hide]", "", "    1 History", "        1.1 Founding", "    2 Reopening"],
    "sidebar": ["Contents", "hide", "(Top)", "1 History", "Toggle History subsection", "1.1 Founding", "2 Reopening"],
    "de": ["Inhaltsverzeichnis", "1 Geschichte", "2 Wiedereröffnung", "3 Einzelnachweise"],
}


@pytest.mark.parametrize("box", CONTENTS_BOXES)
def test_a_copied_pages_table_of_contents_is_not_read(box):
    """A table of contents is no text of the article (`text._contents_lines`): its entries joined the lead's last
    sentence and the section after them ("… earlier than before. Contents", "1 History: 1.1 Founding: 2 Reopening …
    The bakery was founded …") and were asked as key facts."""
    page = "\n".join([BAKERY_SENTENCES[0], "", *CONTENTS_BOXES[box], "", "History[edit]",
                      "The bakery was founded in 1952 by the Okafor family."])
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [page])
    assert row["source_sentences"] == [BAKERY_SENTENCES[0], "History: The bakery was founded in 1952 by the Okafor family."]


@pytest.mark.parametrize("lines", [
    ["Contents", "The box holds a cake, two loaves and a jar of honey."],
    ["Contents", "1 cake", "The box holds a cake and two loaves of bread from the Corbin Street bakery."],
    ["The box's contents: 2 loaves", "3 cakes"],
])
def test_contents_that_head_no_numbered_entries_are_read(lines):
    # a heading "Contents" above a sentence or a single numbered line is the text's own
    assert source_lines("\n".join(lines)).splitlines() == lines


@pytest.mark.parametrize("sentence", [
    "By Tuesday, the council had approved the plan.", "By 2030 the town will have 180 new homes.",
    "By Ilse Marr's own account, the vote was close.", "The council approved the plan on 1 December 2026.",
    "Share prices fell 3 % on Tuesday.", "May 2027 is when work begins on the depot site.",
    "HARBOURSIDE (Reuters) - The council approved the plan on Tuesday.", "Par ailleurs, le conseil a voté le plan.",
    "Por eso, el consejo votó el plan.", "Wexley bakery reopens after kitchen fire",
    "The council said this article is about the new law.", "For the first time, see-through panels were used.",
    "For the council, seeing the plan through was hard.", "Keywords are what search engines rank pages by.",
    "2 hours ago the council approved the plan.", "Save the date: the bakery reopens on Saturday.",
    "Reporting by the council showed the plan would cost more.", "Image quality matters to the bakery's website.",
    "Related costs rose by 4 percent.", "Read more books, the council says.", "Subscribers pay 4 euros a month.",
    "Copyright law changed in 2019.", "Recommended dose is 5 mg.",
])
def test_what_states_a_fact_is_no_page_furniture(sentence):
    assert not keyfacts.is_page_furniture(sentence)


# BAKERY_SOURCE as an e-mail thread: Outlook's header lines above each message and the line between them, in English
# and German (Gmail's and Apple Mail's are the same lines)
MAIL_HEADERS = {
    "en": ["From: Lena Okafor <lena@corbin-bakery.example>", "Sent: Sunday, March 29, 2026 8:02 AM",
           "To: Tomek Nowak <tomek@harbourside.example>", "Cc: Wexley council <office@wexley.example>",
           "Subject: RE: Reopening"],
    "de": ["Von: Lena Okafor <lena@corbin-bakery.example>", "Gesendet: Sonntag, 29. März 2026 08:02",
           "An: Tomek Nowak <tomek@harbourside.example>", "Betreff: AW: Wiedereröffnung"],
}
QUOTED_MESSAGE = ["-----Original Message-----", "From: Tomek Nowak <tomek@harbourside.example>",
                  "Subject: Reopening", "", "Is the bakery open again?"]


@pytest.mark.parametrize("language", MAIL_HEADERS)
def test_an_e_mails_header_lines_are_not_asked_about(language):
    """Who sent an e-mail to whom, when and under which subject is no key fact (`keyfacts.header_lines`): the
    questions of the thread are its message's first sentences, for `lead` and `central` alike; the header lines stay
    in the text the claims are judged against."""
    thread = "\n".join([*MAIL_HEADERS[language], "", BAKERY_SOURCE, "", *QUOTED_MESSAGE])
    for key_facts in ("lead", "central"):
        (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [thread], key_facts=key_facts)
        facts = [q["fact"] for q in row["questions"]]
        assert facts == BAKERY_SENTENCES if key_facts == "lead" else set(facts) <= {*BAKERY_SENTENCES, QUOTED_MESSAGE[-1]}
    assert "Lena Okafor <lena@corbin-bakery.example>" in " ".join(row["documents"])


# a reply above the message it quotes, as mail clients quote it: the line of when and by whom it was written, then
# its lines marked with ">" (Gmail, Apple Mail, Thunderbird), in English, German and French
QUOTE_HEADERS = {
    "en": "On Tue, Mar 31, 2026 at 8:02 AM Tomek Nowak <tomek@harbourside.example> wrote:",
    "de": "Am Di., 31. März 2026 um 08:02 Uhr schrieb Tomek Nowak <tomek@harbourside.example>:",
    "fr": "Le mar. 31 mars 2026 à 08:02, Tomek Nowak <tomek@harbourside.example> a écrit :",
}


@pytest.mark.parametrize("language", QUOTE_HEADERS)
def test_the_line_above_a_replys_quote_is_no_key_fact(language):
    """The line above a quoted message is a mail client's (`text.MAIL_SEPARATOR`), a sentence of its own and no key
    fact: it was asked as one, with the quote's greeting joined to it, and the reply's closing and signature above it
    ran onto the reply's last sentence ("… earlier than before. Best, Lena")."""
    reply = ["Hi Tomek,", "", *BAKERY_SENTENCES[:2], "", "Best,", "Lena", ""]
    mail = "\n".join([*reply, QUOTE_HEADERS[language], "> Is the bakery open again?", ">", "> Tomek"])
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [mail])
    assert [q["fact"] for q in row["questions"]] == [*BAKERY_SENTENCES[:2], "Is the bakery open again? Tomek"]
    assert row["source_sentences"][3:6] == ["Best,", "Lena", QUOTE_HEADERS[language]]


@pytest.mark.parametrize("line", ["On 3 March the mayor wrote: the bakery must reopen.", "On Saturday at 10:30 it opened."])
def test_a_sentence_that_quotes_a_letter_is_no_mail_separator(line):
    assert not keyfacts.MAIL_SEPARATOR.match(line)


def test_a_chat_whose_speakers_are_called_like_a_header_keeps_their_turns():
    # "An" and "Van" are names as well as German and Dutch header words: a run of such lines alone is a chat
    turns = ["An: did you book the hall for Saturday?", "Van: yes, the small one at the library.", "An: great, I will bring the cake then!"]
    assert keyfacts.header_lines(turns) == set()
    (row,) = score_summaries(ScriptedJudge(default=1.0), [CHAT_SUMMARY], ["\n".join(turns)])
    assert [q["fact"] for q in row["questions"]] == turns


# a paper's first page as a PDF's text (hard-wrapped, its headings alone on their lines), in the three ways journals
# head an abstract, and as markdown: its title, authors, affiliations and addresses come before the abstract
PAPER_FRONT = ["Small Judges Read Long Papers Poorly", "Anna Berg1, Tomas Lind2 and Mei Chen1",
               "1Department of Linguistics, Uppsala University, Sweden", "2Nordic Language Lab, Oslo, Norway",
               "{anna.berg,mei.chen}@lingfil.uu.se, tomas.lind@nll.no"]
PAPER_ABSTRACT = [
    "We study how well small language models judge summaries of long scientific papers.",
    "On a new set of 300 papers, a judge with half a billion parameters agrees with human raters only when the paper "
    "is cut into windows of a few hundred words.",
    "Reading the whole paper at once halves its agreement.",
]
PAPER_INTRODUCTION = ("Automatic metrics for summaries are often tested on news, where the key facts come first. "
                      "Scientific papers put them in the abstract and spread the rest over many sections. A judge "
                      "that reads such a paper must find the few sentences a summary draws on. Earlier work used large "
                      "models served over an API, which few research groups can run on their own data. We ask "
                      "whether a small judge run on a laptop can do the same, and what it needs to read to do it.")


def _wrapped(text):
    return "\n".join(textwrap.wrap(text, 72))


PAPERS = {
    "heading alone": [*PAPER_FRONT, "Abstract", _wrapped(" ".join(PAPER_ABSTRACT)),
                      "Keywords: summarization, evaluation, small language models, scientific papers", "1 Introduction",
                      _wrapped(PAPER_INTRODUCTION)],
    "heading and a dash": [*PAPER_FRONT, _wrapped("Abstract—" + " ".join(PAPER_ABSTRACT)), "I. INTRODUCTION",
                           _wrapped(PAPER_INTRODUCTION)],
    "heading and a full stop": [*PAPER_FRONT, _wrapped("Abstract. " + " ".join(PAPER_ABSTRACT)), "1 Introduction",
                                _wrapped(PAPER_INTRODUCTION)],
    "markdown": [f"# {PAPER_FRONT[0]}", "", *PAPER_FRONT[1:], "", "## Abstract", "", " ".join(PAPER_ABSTRACT), "",
                 "## 1 Introduction", "", PAPER_INTRODUCTION],
}


@pytest.mark.parametrize("form", PAPERS)
def test_a_papers_front_matter_is_not_asked_about(form):
    """A paper's key facts are its abstract's first sentences, asked without the abstract's heading, not its title,
    authors and their affiliations (`keyfacts.abstract_start`), for `lead` and `central` alike; the front matter stays
    in the text the claims are judged against, and the abstract's first sentence does not run on from the line of
    e-mail addresses above it (`text.unwrapped`)."""
    paper = "\n".join(PAPERS[form])
    for key_facts in ("lead", "central"):
        (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [paper], key_facts=key_facts)
        facts = [q["fact"] for q in row["questions"]]
        assert facts == PAPER_ABSTRACT if key_facts == "lead" else not {*facts} & {*PAPER_FRONT}
    assert [q["question"] for q in row["questions"]][:1] != [SENTENCE_QUESTION.format(sentence=PAPER_FRONT[0])]
    assert "Anna Berg1, Tomas Lind2 and Mei Chen1" in " ".join(row["documents"])
    assert not any("nll.no" in sentence and "We study" in sentence for sentence in row["source_sentences"])


def test_a_papers_keywords_are_not_asked_about():
    """A short abstract's keywords ("Keywords: …", "Index Terms—…") state none of its findings: the third question
    is the introduction's first sentence (`keyfacts.is_page_furniture`)."""
    for keywords in ("Keywords: summarization; evaluation; small language models; long scientific documents",
                     "Index Terms—summarization, evaluation, small language models, long documents", "关键词：摘要；评估"):
        paper = "\n".join([*PAPER_FRONT, "Abstract", *PAPER_ABSTRACT[:2], keywords, "1 Introduction", PAPER_INTRODUCTION])
        (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [paper])
        assert [q["fact"] for q in row["questions"]] == [*PAPER_ABSTRACT[:2], "1 Introduction: " + split_sentences(
            PAPER_INTRODUCTION)[0]]

@pytest.mark.parametrize("heading, language", [
    ("Zusammenfassung", "de"), ("Résumé :", "fr"), ("Resumen.", "es"), ("摘要", "zh"), ("ABSTRACT", "en"),
    ("Executive summary", "en"),
])
def test_an_abstract_is_found_by_its_heading_in_its_language(heading, language):
    paper = "\n".join([PAPER_FRONT[0], *PAPER_FRONT[1:3], heading, *PAPER_ABSTRACT])
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [paper])
    assert [q["fact"] for q in row["questions"]] == PAPER_ABSTRACT, language


@pytest.mark.parametrize("summary, claims", [
    ("21 Jump Street", ["21 Jump Street"]), ("2 Broke Girls\nIt ran for six seasons.", ["2 Broke Girls It ran for six seasons."]),
    ("Summary:\nThe bakery reopened.", ["Summary: The bakery reopened."]),
])
def test_a_pdfs_headings_are_read_in_sources_only(summary, claims):
    """A short line of a number and words is a PDF's section heading in a source; in a summary or an answer it is
    text, a title as it stands ("21 Jump Street"), and a summary's own lead-in stays as it was."""
    assert claim_sentences(summary) == claims

@pytest.mark.parametrize("sentence", [
    "Summary statistics show that the judge agrees with raters on 300 papers.",
    "Abstract art was shown in the town hall for the first time in 1962.",
    "Resume the study in May, the committee said.",
])
def test_a_sentence_that_opens_with_an_abstracts_name_is_no_abstract(sentence):
    source = "\n".join([*BAKERY_SENTENCES, sentence])
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [source])
    assert [q["fact"] for q in row["questions"]] == BAKERY_SENTENCES
    assert keyfacts.abstract_start(source_sentences(read_source("\n".join([sentence, *BAKERY_SENTENCES])))) == 0

# BAKERY_SOURCE with a headline and a section, typed plainly, as markdown (a web page converted to it, a note) and as
# the HTML page it was published on (what the page has around the article: its head, scripts, navigation, footer)
TYPED_BAKERY = "\n".join([
    "Wexley bakery reopens after kitchen fire", "", " ".join(BAKERY_SENTENCES[:2]), "",
    "Opening hours: " + BAKERY_SENTENCES[2],
])
MARKDOWN_BAKERY = "\n".join([
    "# Wexley bakery reopens after kitchen fire",
    "",
    "The **Corbin Street bakery** in Wexley reopened on Saturday after a kitchen fire in March.[1] Its owner, "
    "[Lena Okafor](https://example.org/people/lena-okafor), hired four new bakers during the repairs.",
    "![The bakery's new oven](https://example.org/oven.jpg)",
    "",
    "## Opening hours",
    "",
    "- " + BAKERY_SENTENCES[2],
])
# the same as a PDF converter's markdown gives it: a comment where the PDF had a figure, and one at its page break
CONVERTED_BAKERY = MARKDOWN_BAKERY.replace("# Wexley bakery reopens after kitchen fire\n",
                                           "# Wexley bakery reopens after kitchen fire\n\n<!-- image -->\n").replace(
    "## Opening hours", "<!-- PageBreak -->\n\n## Opening hours <!-- section 2 -->")
# and as a word processor's document pasted as text gives it: its headings are lines of their own, unmarked
PLAIN_BAKERY = "\n".join([
    "Wexley bakery reopens after kitchen fire", "", " ".join(BAKERY_SENTENCES[:2]), "", "Opening hours",
    BAKERY_SENTENCES[2],
])
HTML_BAKERY = "\n".join([
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Wexley bakery reopens | Harbourside Herald</title>',
    '<style>p { margin: 0 }</style><script>track("view", {page: "bakery"});</script></head>',
    '<body><nav><a href="/">Home</a> <a href="/local">Local</a></nav>',
    "<article><h1>Wexley bakery reopens after kitchen fire</h1>",
    '<figure><img src="front.jpg" alt="The bakery"><figcaption>Lena Okafor outside her bakery on Saturday. '
    "Photo: Harbourside Herald</figcaption></figure>",
    "<p>The <b>Corbin Street bakery</b> in Wexley reopened on Saturday after a kitchen fire in March. Its owner,",
    '<a href="/people/lena-okafor">Lena Okafor</a>, hired four new bakers during the repairs.</p>',
    '<img src="oven.jpg" alt="The bakery\'s new oven">',
    "<h2>Opening hours</h2>",
    f"<p>{BAKERY_SENTENCES[2]}</p></article>",
    '<footer>&copy; 2026 Harbourside Herald &middot; <a href="/privacy">Privacy</a></footer></body></html>',
])

# the same page as a site serves it: a skip link, a cookie banner, the site's header and breadcrumbs before the article
# (marked as the page's text by `<main>`), share buttons in it, related links after it, a newsletter box; and as a page
# that marks no main text, its furniture named by its classes
_ARTICLE = HTML_BAKERY[HTML_BAKERY.index("<article>"):HTML_BAKERY.index("</article>")]
SITE_BAKERY = "\n".join([
    HTML_BAKERY[:HTML_BAKERY.index("<body>")] + "<body>",
    '<a class="skip-link" href="#main">Skip to main content</a>',
    '<div id="cookie-banner" class="cookie-consent"><p>We use cookies to give you the best experience on our site.',
    "By continuing to browse, you agree to our use of cookies.</p><button>Accept all</button></div>",
    '<header role="banner"><div class="logo">Harbourside Herald</div><a href="/subscribe">Subscribe</a></header>',
    '<div class="breadcrumbs"><a href="/">Home</a> &gt; <a href="/local">Local</a></div>',
    f'<main id="main">{_ARTICLE}<div class="share-buttons">Share on Facebook</div></article>',
    '<section class="related-articles"><h2>More from Wexley</h2><ul><li>The library extends its hours</li></ul></section>',
    '</main><div class="newsletter"><p>Sign up for our free daily newsletter.</p></div></body></html>',
])
DIV_BAKERY = "\n".join([
    "<html><body>",
    '<div class="gdpr-popup"><p>This site uses cookies to improve your experience. Accept?</p></div>',
    '<div id="top-menu"><a href="/">Home</a> | <a href="/local">Local news</a></div>',
    f'<div class="content">{_ARTICLE.replace("<article>", "")}</div>',
    '<div class="ad-slot">Advertisement: Fresh bread delivered daily from Holm.</div>',
    '<div class="comments"><p>Anna: Finally! Best bread in town.</p></div>',
    "</body></html>",
])


@pytest.mark.parametrize(
    "written", [MARKDOWN_BAKERY, CONVERTED_BAKERY, HTML_BAKERY, SITE_BAKERY, DIV_BAKERY, PLAIN_BAKERY],
    ids=["markdown", "converted from a pdf", "html", "site", "div page", "plain headings"],
)
def test_a_web_page_or_markdown_scores_as_the_article_typed_plainly(written):
    """The judge reads the same prompts for an article whether it comes as markdown, as its web page or typed, and
    the row scores the same, its conciseness too: heading marks, bold, links' addresses, HTML comments (a PDF
    converter's "<!-- image -->"), images and their captions
    (a figure's, between the headline and the lead, was the second key fact), citation marks, a page's head, scripts,
    navigation and footer, and what a site puts around its text (a cookie banner, its header,
    share buttons, related links, adverts, comments) are no part of what the source says. A section's heading, too short
    for a sentence, introduces the section's first sentence rather than ending the sentence before it."""
    assert read_source(clean(written)) == TYPED_BAKERY
    judge_typed, judge_written = ScriptedJudge(default=1.0), ScriptedJudge(default=1.0)
    (as_typed,) = score_summaries(judge_typed, [BAKERY_SUMMARY], [TYPED_BAKERY])
    (as_written,) = score_summaries(judge_written, [BAKERY_SUMMARY], [written])
    assert judge_written.calls == judge_typed.calls
    assert [q["fact"] for q in as_written["questions"]] == ["Wexley bakery reopens after kitchen fire", *BAKERY_SENTENCES[:2]]
    for key in ("score", "qa_score", "conciseness_score", "alignment_score", "questions", "claims", "documents"):
        assert as_written[key] == as_typed[key], key
    (late_section,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [written], max_questions=4)
    assert late_section["questions"][3]["fact"] == "Opening hours: " + BAKERY_SENTENCES[2]


# a job advert, meeting notes and a contract as pasted from a word processor: headings alone on their lines, lists,
# an agenda numbered as a PDF numbers its sections
JOB_ADVERT = "\n".join([
    "Senior Data Engineer", "Berlin, full-time, hybrid.", "", "About us",
    "Tidepool builds software that water utilities use to find leaks.", "", "What you'll do",
    "- Build pipelines that read two million sensor readings a day.", "- Own the data warehouse and its costs.",
])
MEETING_NOTES = "\n".join([
    "Product sync, 3 March", "", "Agenda", "1. Launch date", "2. Budget", "", "Discussion",
    "Priya reported that the launch moves from April to May because the payment provider is late.",
    "Tom asked for 20,000 euros more for advertising, and Lena approved 10,000.",
])
CONTRACT = "\n".join([
    "SERVICE AGREEMENT", "", "This agreement is made on 1 March 2026 between Acme Ltd and Birch GmbH.", "",
    "1. SERVICES", "1.1 Acme hosts the online shop of Birch GmbH.", "1.2 Acme keeps the shop online 99.9% of each month.",
    "", "2. FEES", "2.1 Birch GmbH pays 500 euros a month.", "", "3. TERM", "3.1 The agreement runs for two years.",
])


@pytest.mark.parametrize("source, sentences", [
    (JOB_ADVERT, ["Senior Data Engineer", "Berlin, full-time, hybrid.",
                  "About us: Tidepool builds software that water utilities use to find leaks.",
                  "What you'll do: Build pipelines that read two million sensor readings a day.",
                  "Own the data warehouse and its costs."]),
    # the agenda's first item, too short for a sentence, joins the title before it, as any short piece does
    (MEETING_NOTES, ["Product sync, 3 March Agenda: Launch date Budget",
                     "Discussion: " + MEETING_NOTES.splitlines()[-2], MEETING_NOTES.splitlines()[-1]]),
    # the title opens the first sentence, as a short first line always has
    (CONTRACT, ["SERVICE AGREEMENT This agreement is made on 1 March 2026 between Acme Ltd and Birch GmbH.",
                "SERVICES: 1.1 Acme hosts the online shop of Birch GmbH.",
                "1.2 Acme keeps the shop online 99.9% of each month.", "FEES: 2.1 Birch GmbH pays 500 euros a month.",
                "TERM: 3.1 The agreement runs for two years."]),
])
def test_a_documents_plain_headings_introduce_their_sections(source, sentences):
    """A heading typed on a line of its own introduces the section after it, as markdown's "## About us" does, and
    does not end the sentence before it ("… to find leaks. What you'll do"); an agenda's numbered items are a list,
    not a PDF's section headings ("Agenda: Launch date: Budget: Discussion"), while a contract's numbered sections
    still head their clauses ("1. SERVICES" above "1.1 …"); each document is prose and is asked its first three
    sentences."""
    assert keyfacts.source_kind(source_lines(source)) == "prose"
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [source])
    assert row["source_sentences"] == sentences
    assert [q["fact"] for q in row["questions"]] == sentences[:3]


# an article in sections of a paragraph each, as markdown (a page fetched as markdown, a model's report) and as
# MediaWiki's markup (the text of a Wikipedia page through its API, the `wikipedia` package's `page.content`)
SECTIONED_ARTICLE = {
    "markdown": "\n".join([
        "# Corbin Street bakery", "", BAKERY_SENTENCES[0], "", "## History",
        "The bakery was founded in 1952 by the Okafor family.", "", "## Staff", BAKERY_SENTENCES[1], "", "### Hours",
        BAKERY_SENTENCES[2],
    ]),
    "mediawiki": "\n".join([
        BAKERY_SENTENCES[0], "", "", "== History ==", "The bakery was founded in 1952 by the Okafor family.", "", "",
        "== Staff ==", BAKERY_SENTENCES[1], "", "", "=== Hours ===", BAKERY_SENTENCES[2],
    ]),
}


@pytest.mark.parametrize("markup", SECTIONED_ARTICLE)
def test_an_article_in_short_sections_is_prose_and_its_headings_introduce_them(markup):
    """A section's heading introduces its first sentence ("History: The bakery was founded …"), in MediaWiki's
    markup ("== History ==") as in markdown's, and the article is prose, asked its first 3 sentences: whether a
    source is a dialogue is read from its lines before their layout (`text.source_lines`), where a heading joined to
    its section's line read as a speaker's turn and an article of one-paragraph sections as a dialogue."""
    source = SECTIONED_ARTICLE[markup]
    assert keyfacts.source_kind(source_lines(source)) == "prose"
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [source])
    assert row["source_sentences"][-3:] == [
        "History: The bakery was founded in 1952 by the Okafor family.", f"Staff: {BAKERY_SENTENCES[1]}",
        f"Hours: {BAKERY_SENTENCES[2]}",
    ]
    assert not any("=" in sentence for sentence in row["source_sentences"])
    assert len(row["questions"]) == keyfacts.SENTENCE_QUESTIONS["prose"]


def test_a_pdfs_section_and_its_first_subsection_are_both_headings():
    paper = "\n".join(["2 Method", "2.1 Data", "We collected 300 papers from four journals in 2025.", "",
                       "3 Results", "The small judge agreed with the raters on 210 of the 300 papers."])
    assert split_sentences(read_source(paper)) == [
        "2 Method: 2.1 Data: We collected 300 papers from four journals in 2025.",
        "3 Results: The small judge agreed with the raters on 210 of the 300 papers."]


PRESS_RELEASE = "\n".join([
    "FOR IMMEDIATE RELEASE", "", "Northwind Robotics unveils an apple-picking drone", "",
    "PORTLAND, Ore., March 3, 2026 – Northwind Robotics today announced the Harvest H2, a drone that picks apples.",
    "The drone costs $12,000 and ships in June.", "", "Media contact: Sam Reyes, press@northwind.example", "", "###",
])


def test_a_press_releases_notes_to_editors_are_not_read():
    """"FOR IMMEDIATE RELEASE" (or "Embargoed until …") above a press release's headline and its end mark ("###",
    "-30-") are notes to editors: not asked about, not judged against."""
    assert "RELEASE" not in read_source(PRESS_RELEASE) and "###" not in read_source(PRESS_RELEASE)
    embargoed = PRESS_RELEASE.replace("FOR IMMEDIATE RELEASE", "Embargoed until 00:01 GMT, 3 March 2026")
    for source in (PRESS_RELEASE, embargoed):
        (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [source])
        assert [q["fact"] for q in row["questions"]][0] == "Northwind Robotics unveils an apple-picking drone"



@pytest.mark.parametrize("mark", ["Advertisement", "Story continues below advertisement", "Continue reading",
                                  "ADVERTISEMENT - SCROLL TO CONTINUE", "Anzeige", "Publicité"])
def test_a_news_sites_marks_between_paragraphs_are_not_read(mark):
    """Where an advert or a button stood between an article's paragraphs, a copied page keeps a line ("Advertisement",
    "Story continues below advertisement"): it is not read, and introduces no paragraph as a heading would."""
    page = "\n\n".join([BAKERY_SENTENCES[0], mark, BAKERY_SENTENCES[1], mark, BAKERY_SENTENCES[2]])
    assert split_sentences(read_source(page)) == BAKERY_SENTENCES

@pytest.mark.parametrize("link", ["View this email in your browser", "Having trouble viewing this email? View it in your browser",
                                  "View in browser", "Unsubscribe | Update preferences", "Manage your preferences · Unsubscribe"])
def test_a_newsletters_links_to_itself_are_not_read(link):
    # a mailed newsletter opens and closes with links to itself: the first was the first key fact
    newsletter = "\n\n".join([link, BAKERY_SOURCE, link])
    assert split_sentences(read_source(newsletter)) == BAKERY_SENTENCES


# minutes of a meeting as typed: a title, the record's header (when and where it met, who attended, who sent
# apologies, who chaired it and took the minutes) and what was decided, in English and German
MINUTES_HEADERS = {
    "en": ["Bakery committee", "Date: 3 March 2026", "Time: 10:00-11:00", "Location: Room 4B",
           "Attendees: Lena Okafor, Tomek Nowak, Ines Marr", "Apologies: Sam Patel", "Chair: Lena Okafor"],
    "de": ["Bäckereiausschuss", "Datum: 3. März 2026", "Ort: Raum 4B", "Teilnehmer: Lena Okafor, Tomek Nowak",
           "Entschuldigt: Sam Patel", "Protokoll: Ines Marr"],
}


@pytest.mark.parametrize("language", MINUTES_HEADERS)
def test_a_meeting_records_header_is_not_asked_about(language):
    """When and where a meeting met and who attended it is no key fact where the minutes list it above the record
    (`text.header_lines`): the minutes are prose, not a dialogue of "Date", "Attendees" and "Chair", and are asked
    the record's first sentences, not its title, which names the meeting ("Bakery committee"); the title and each
    header line are a sentence of their own and stay in the text the claims are judged against."""
    title, *header = MINUTES_HEADERS[language]
    minutes = "\n".join([title, *header, "", BAKERY_SOURCE])
    assert keyfacts.source_kind(source_lines(minutes)) == "prose"
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [minutes])
    assert [q["fact"] for q in row["questions"]] == BAKERY_SENTENCES
    assert row["source_sentences"] == [title, *header, *BAKERY_SENTENCES]


# meeting notes as note apps' templates lay them out, in English and German: a title, who attended (on the field's
# line, or one name a line under a field written alone), the agenda, then the record
MEETING_NOTES = {
    "one line": ["Bakery committee sync", "Attendees: Lena Okafor, Tomek Nowak, Ines Marr", "", BAKERY_SOURCE],
    "names under the field": ["Bakery committee sync", "", "Attendees:", "Lena Okafor", "Tomek Nowak", "Ines Marr",
                              "", BAKERY_SOURCE],
    "agenda": ["Bakery committee sync", "March 3, 2026", "Attendees: Lena Okafor, Tomek Nowak", "Agenda:",
               "- Reopening", "- Opening hours", "", BAKERY_SOURCE],
    "markdown": ["# Bakery committee, 3 March 2026", "", "**Present:** Lena Okafor, Tomek Nowak",
                 "**Apologies:** Sam Patel", "", BAKERY_SOURCE],
    "de": ["Bäckereiausschuss", "Teilnehmer:", "Lena Okafor", "Tomek Nowak", "Tagesordnung: Wiedereröffnung", "",
           BAKERY_SOURCE],
}


@pytest.mark.parametrize("layout", MEETING_NOTES)
def test_meeting_notes_are_asked_what_the_record_states_not_who_attended(layout):
    """Meeting notes open with a title that names the meeting, who attended and the agenda: a header of one field
    found nowhere else ("Attendees:", `text.header_lines`) at the text's top is one, with the title and date above
    it and the names under a field written alone; the questions are the record's first sentences. The header stays
    in the text the claims are judged against, the names under "Attendees:" on its line."""
    notes = "\n".join(MEETING_NOTES[layout])
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [notes])
    assert [q["fact"] for q in row["questions"]] == BAKERY_SENTENCES
    assert row["source_sentences"][-3:] == BAKERY_SENTENCES
    if layout == "names under the field":
        assert "Attendees: Lena Okafor Tomek Nowak Ines Marr" in row["source_sentences"]


@pytest.mark.parametrize("lines", [
    # a transcript's speaker called like a field: it opens more lines than one
    ["Subject: I was born in Wexley and baked bread there for forty years.",
     "Interviewer: When did the bakery reopen?", "Subject: On Saturday, after the kitchen fire in March."],
    # a structured abstract's field further down the text
    ["We tested whether a bakery's opening hours change its sales over a year.",
     "Participants: 40 bakeries in Wexley and Harbourside took part.", "Results: sales rose by a tenth."],
    # an invitation's programme beside when and where: its key facts
    ["Open day at the Corbin Street bakery", "Date: Saturday 4 April 2026", "Agenda: baking workshops and tastings"],
    # a drafted e-mail's subject alone above it is its headline, not a mail client's header
    ["Subject: The Corbin Street bakery reopens on Saturday", "", "Hi Tomek,", BAKERY_SOURCE],
])
def test_a_field_alone_that_is_no_header_is_asked_about(lines):
    assert keyfacts.header_lines(lines) == set()


def test_an_e_mails_short_header_lines_are_not_asked_about():
    # "To: Tom" is too short for a sentence: joined to the lines around it, the header had been asked as a key fact
    mail = "\n".join(["From: Lena", "To: Tom", "Subject: Reopening", "", BAKERY_SOURCE])
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [mail])
    assert [q["fact"] for q in row["questions"]] == BAKERY_SENTENCES



@pytest.mark.parametrize("closing", ["Best regards,", "Mit freundlichen Grüßen", "Cordialement,", "Met vriendelijke groet,"])
def test_a_letters_closing_and_signature_are_not_asked_about(closing):
    """The closing of a letter or an e-mail and the signature under it (the sender's name, role and number) are no
    key facts (`text.signature_lines`) and join no sentence of the message: a short message is asked its own
    sentences only; the signature stays in the text the claims are judged against, up to a quoted message, whose
    sentences are asked about again."""
    signature = [closing, "", "Lena Okafor", "Owner, Corbin Street bakery", "Phone: 01234 567890"]
    mail = "\n".join([*BAKERY_SENTENCES[:2], "", *signature])
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [mail])
    assert [q["fact"] for q in row["questions"]] == BAKERY_SENTENCES[:2]
    assert row["source_sentences"] == [*BAKERY_SENTENCES[:2], *(line for line in signature if line)]
    (thread,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [f"{mail}\n\n" + "\n".join(QUOTED_MESSAGE)])
    assert [q["fact"] for q in thread["questions"]] == [*BAKERY_SENTENCES[:2], QUOTED_MESSAGE[-1]]


@pytest.mark.parametrize("greeting", ["Hi Tom,", "Dear Ms Okafor,", "Hello everyone!", "Hallo zusammen,", "Bonjour Marie,",
                                      "Hola a todos:", "Hi team"])
def test_a_letters_greeting_is_not_asked_about(greeting):
    """The greeting that opens a letter or an e-mail, alone on its line, is a sentence of its own and no key fact
    (`text.letter_lines`), at the text's top or under the mail's header: it ran onto the first sentence ("Hi Tom, The
    Corbin Street bakery …"), which was asked with it."""
    header = ["From: Lena Okafor <lena@corbin.example>", "To: Tom Reyes", "Subject: Reopening", ""]
    for above in ([], header):
        mail = "\n".join([*above, greeting, "", *BAKERY_SENTENCES, "", "Best regards,", "Lena"])
        (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [mail])
        assert [q["fact"] for q in row["questions"]] == BAKERY_SENTENCES
        assert greeting in row["source_sentences"]


@pytest.mark.parametrize("first", ["Cara: hey", "Hey Man Nice Shot", "Hello, mate. How's it going?"])
def test_a_turn_a_title_or_a_sentence_that_greets_is_no_letters_greeting(first):
    # a chat's first turn, a song's title and a sentence that opens with a greeting are no letter's greeting: they
    # stay where they were read
    source = "\n".join([first, *BAKERY_SENTENCES])
    assert keyfacts.letter_lines(source.splitlines()) == set()
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [source])
    assert row["source_sentences"][0].startswith(first.split()[0])


@pytest.mark.parametrize("greeting", ["Hi all, ", "Dear Ms. Okafor, ", "Good morning everyone: ", "Hallo zusammen, ",
                                      "Bonjour à tous, ", "Hola Tomek – "])
def test_a_greeting_that_opens_a_key_sentence_is_not_asked_about(greeting):
    """A message that greets on its first line and goes on in the same sentence ("Hi all, the bakery reopened …") is
    asked what the sentence says without its greeting (`keyfacts.key_fact`, `text.GREETING_OPENING`): no summary
    states "Hi all", and its words were a part of the fact the summary could not explain. A turn keeps its speaker;
    a sentence that opens with a greeting's word and no mark after it is asked whole."""
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [greeting + BAKERY_SOURCE])
    assert [q["fact"] for q in row["questions"]] == BAKERY_SENTENCES
    assert row["source_sentences"][0] == greeting + BAKERY_SENTENCES[0]
    assert keyfacts.key_fact("Ines: hey, can you bring the projector?") == "Ines: can you bring the projector?"
    # a sentence that opens with a greeting's word and no mark, a greeting before small talk or before the next turn
    # of a chat whose short turns run together, and a greeting whose names end at a colon in a turn (the next
    # speaker's) are asked as they are
    for untouched in ("Hello Kitty turns 50 this year.", "Dear John letters were common in the war.",
                      "Ana: Hi, Tom! How are you?", "Ana: Hi, Josie! Josie: Ciao, Ana!", "Ana: Hey Tom: the hall is booked."):
        assert keyfacts.key_fact(untouched) == untouched


def test_a_chats_short_turns_are_asked_about_one_at_a_time():
    """A chat's short turn runs onto the sentence before it when the text is read ("Mara: Hey! Tomek: Hi!"), and one
    question held two speakers' turns (`keyfacts.turns_apart`): now each turn is a fact of its own, so a greeting, an
    acknowledgement or a sent file alone ("Mara: <file_photo>", WhatsApp's "<Media omitted>") is no question, and a
    speaker's name of two words is no turn boundary."""
    chat = ["Mara: Hey!", "Tomek: Hi!", *CHAT_TURNS[:2], "Mara: Yup", "Mara Lind: <file_photo>", "Tomek: <Media omitted>",
            "Mara Lind: so it is booked?", "Tomek: Yes", *CHAT_TURNS[2:]]
    (row,) = score_summaries(ScriptedJudge(default=1.0), [CHAT_SUMMARY], ["\n".join(chat)])
    facts = [q["fact"] for q in row["questions"]]
    assert facts == [*CHAT_TURNS[:2], "Mara Lind: so it is booked?", *CHAT_TURNS[2:9]]
    # the sentences, the windows and the claims read as before: only the questions change
    assert any("Mara: Hey! Tomek: Hi!" in sentence for sentence in row["source_sentences"])
    assert keyfacts.turns_apart(["Anna Berg: fine Ben Ortiz: ok then", "Ben Ortiz: sure"]) == [
        "Anna Berg: fine", "Ben Ortiz: ok then", "Ben Ortiz: sure"]
    # prose keeps its sentences as they are
    assert keyfacts.turns_apart(["Note: Ana said: come at 9.", "The hall is booked."]) == [
        "Note: Ana said: come at 9.", "The hall is booked."]


MEETING_SMALL_TALK = ["Anna Berg: Good morning everyone, thanks for joining.", "Ben Ortiz: Morning! Can everyone hear me okay?",
                      "Anna Berg: Yes, we can hear you.", "Chloe Nkemelu: Sounds good."]
MEETING_CONTENT = ["Anna Berg: The boathouse roof repairs start on 12 March and take six weeks.",
                   "Ben Ortiz: I've booked the Mere Street pool for Tuesday and Thursday evenings.",
                   "Chloe Nkemelu: Okay, we approve that."]


def test_small_talk_is_not_asked_about():
    """What a meeting, a talk or a letter says to get going states none of its content (`keyfacts.is_small_talk`):
    a meeting's first ten questions were its greetings and "Sounds good." (a faithful summary's `qa_score` 0.4), a
    podcast's "Thanks for tuning in." and a sales e-mail's "I hope this email finds you well." were key facts."""
    (meeting,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], ["\n".join(MEETING_SMALL_TALK + MEETING_CONTENT)])
    assert [q["fact"] for q in meeting["questions"]] == MEETING_CONTENT
    for opening in (["Hey everybody, welcome back to the show.", "Thanks for tuning in."],
                    ["I hope this email finds you well."], ["Guten Morgen zusammen!", "Merci à tous."]):
        (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [" ".join(opening + BAKERY_SENTENCES)])
        assert [q["fact"] for q in row["questions"]] == BAKERY_SENTENCES
    # an acknowledgement is small talk in a chat, a verdict in prose (a review's "Everything here was great."), and
    # a text that is nothing but small talk is asked what it says
    assert keyfacts.is_small_talk("Ben: Great, thank you very much!", dialogue=True)
    assert not keyfacts.is_small_talk("Everything here was great.")
    # a question of content without a noun ("how much was it?") is asked about, and so is what a courtesy's words
    # say elsewhere
    assert not keyfacts.is_small_talk("Mara: great, how much was it?", dialogue=True)
    assert not keyfacts.is_small_talk("Lucas: I'm free in the evening", dialogue=True)
    # a letter's courtesies between its news ("Let me know if you have any questions.")
    courtesies = ["Let me know if you have any questions.", "Looking forward to hearing from you.",
                  "Please feel free to reach out."]
    (mail,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY],
                              [" ".join(BAKERY_SENTENCES[:1] + courtesies + BAKERY_SENTENCES[1:])])
    assert [q["fact"] for q in mail["questions"]] == BAKERY_SENTENCES
    (alone,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], ["\n".join(MEETING_SMALL_TALK)])
    assert [q["fact"] for q in alone["questions"]] == MEETING_SMALL_TALK


@pytest.mark.parametrize("page", [
    "Bakery reopens\n\nMedia playback is unsupported on your device\n\n" + BAKERY_SOURCE,
    "Bakery reopens\nShare this with\nEmail\nFacebook\nMessenger\nTwitter\nPinterest\nWhatsApp\nLinkedIn\nCopy this link\n"
    + BAKERY_SOURCE,
    # as a corpus scraped from the pages holds them (XSum's BBC articles), run into the lead
    "Bakery reopens\nShare this withEmailFacebookMessengerMessengerTwitterPinterestWhatsAppLinkedInCopy this link"
    + BAKERY_SOURCE,
    "Bakery reopens\nmedia playback is not supported on this device" + BAKERY_SOURCE,
])
def test_a_news_sites_video_note_and_share_panel_are_not_read(page):
    """A news site's video player's note and its share panel are no part of the article: they were the first key
    fact, or ran into it ("Share this withEmail…Copy this linkThe Corbin Street bakery …")."""
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [page])
    (typed,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [page.split("\n")[0] + "\n\n" + BAKERY_SOURCE])
    assert row["questions"] == typed["questions"]
    assert not any("media playback" in s.lower() or "Share this" in s for s in row["source_sentences"])


def test_thanks_above_more_of_the_message_is_no_closing():
    lines = ["Thanks!", "", BAKERY_SOURCE]
    assert keyfacts.letter_lines(lines) == set()
    assert split_sentences("\n".join(lines))[-1] == BAKERY_SENTENCES[-1]

def test_an_invitations_when_and_where_are_asked_about():
    """"Date:", "Time:" and "Location:" head a meeting's record and an event's invitation alike: without a field
    that only a header has ("Attendees", "Subject"), they are what the invitation states and are asked about."""
    invitation = "\n".join(["Open day at the Corbin Street bakery", "Date: Saturday 4 April 2026",
                            "Time: 10:00 to 16:00", "Location: 12 Corbin Street, Wexley", "",
                            "Families can join free baking workshops all day.", "Entry is free and no booking is needed."])
    assert keyfacts.header_lines(invitation.splitlines()) == set()
    assert keyfacts.source_kind(source_lines(invitation)) == "prose"
    (row,) = score_summaries(ScriptedJudge(default=1.0), [BAKERY_SUMMARY], [invitation])
    assert [q["fact"] for q in row["questions"]] == invitation.splitlines()[:3]


def test_a_hearing_whose_speakers_are_its_chair_and_secretary_is_a_dialogue():
    hearing = "\n".join(["Chair: The committee will come to order to discuss the bakery's reopening.",
                         "Secretary: The first witness is Lena Okafor, the bakery's owner.",
                         "Chair: Ms Okafor, please begin.", "Lena Okafor: Thank you. We reopened on Saturday."])
    assert keyfacts.header_lines(hearing.splitlines()) == set()
    assert keyfacts.source_kind(hearing) == "dialogue"


@pytest.mark.parametrize("lines, not_heading", [
    (["Dear Tom,", "", BAKERY_SENTENCES[0], "", "Best regards,", "", "Lena", "Owner, Corbin Street bakery"], "Lena"),
    (["Bakery reopens", "", "[Image]", BAKERY_SENTENCES[0]], "[Image]"),
    (["Bakery reopens", "", "WEXLEY --", BAKERY_SENTENCES[0]], "WEXLEY --"),
    (["Bakery reopens", "", "Date: 3 March 2026", BAKERY_SENTENCES[0]], "Date: 3 March 2026"),
    (["Support call", "", "Turn 1", "Client: Hello, is the Corbin Street bakery open again?", "Agent: Yes."], "Turn 1"),
    (["Bakery reopens", "", "Email alerts", "RSS feeds", "", BAKERY_SENTENCES[0]], "Email alerts"),
])
def test_a_short_line_that_introduces_no_section_is_no_heading(lines, not_heading):
    """The name under a letter's closing, an image's placeholder, a dateline, a field, a line above a turn and a
    menu's link above another introduce no section: no sentence reads them as a heading ("Lena: Owner, …")."""
    sentences = split_sentences(read_source("\n".join(lines)))
    assert not any(f"{not_heading}: " in sentence for sentence in sentences)


@pytest.mark.parametrize(
    "page",
    [
        # a wrapper whose class reads like furniture, and a <main> a script fills: the page is read whole
        f'<html><body class="menu-open"><div id="page" class="site has-sidebar">{_ARTICLE}</article></div></body></html>',
        f'<html><body><main id="app"></main><div class="content">{_ARTICLE}</article></div></body></html>',
    ],
)
def test_a_page_whose_named_parts_would_leave_nothing_is_read_whole(page):
    assert read_source(clean(page)) == TYPED_BAKERY


def test_markdown_with_some_html_keeps_its_lines():
    # a README's logo in HTML and a "<br>" among markdown's lines: the lines stay markdown's, the tags go
    readme = "\n".join(['<p align="center"><img src="logo.png" alt="Wexley bakery"></p>', "",
                         "# Wexley bakery reopens after kitchen fire", "", f"{BAKERY_SENTENCES[0]}<br>", BAKERY_SENTENCES[1],
                         "", "## Opening hours", "", "- " + BAKERY_SENTENCES[2]])
    assert split_sentences(read_source(readme)) == split_sentences(TYPED_BAKERY)


def test_a_chat_written_in_markdown_is_a_dialogue():
    bold_names = "\n".join(f"**{name}:** {said}" for name, said in _SPOKEN)
    assert read_source(bold_names) == "\n".join(CHAT_TURNS)
    assert keyfacts.source_kind(source_lines(bold_names)) == "dialogue"


@pytest.mark.parametrize(
    "text",
    [
        "Lauda called them 'egocentric b*******', and said: 'you're s***, all of you'.",  # censored words
        "Kristi: You remembered! (*^0^*)\nLeah: I have a favor as well (;_;) (*_*)\nKristi: sure ^_^",  # emoticons
        "19. Yüzyılın sonunda bu konuda çok fazla tartışma vardı.",  # an ordinal opening a line, not a list's number
        "1. FC Köln won 2-1 on Saturday.\nThe club's fans celebrated in the old town.",
        "- said my wife, raising an eyebrow.",  # a dash opening a line alone
        "The emission rate is 24.63 g {\\ce {NO}}_{x} per hour, or {\\ce {g\\ NO}}_{x} in the other form.",  # LaTeX
        "We rename snake_case_names in the module, and the #MeToo movement grew on the site.",
        "Roses are red\nviolets are blue\nthe pool opens in June\nand so do you",
        BAKERY_SOURCE,
        "\n".join(CHAT_TURNS),
        "Price: 5 < 7 euros, and 3 > 2 in this text.",  # angle brackets that are no HTML
    ],
)
def test_text_that_only_looks_like_markup_is_read_as_it_is(text):
    """Marks around no word (a censored word, an emoticon), an ordinal or a dash opening a line that is no list's,
    LaTeX's underscores and angle brackets are what the text says: the source reads as written."""
    assert read_source(text) == text


def test_contexts_are_joined_with_newlines_and_a_string_is_one_context():
    chunks = [BAKERY_SENTENCES[0], " ".join(BAKERY_SENTENCES[1:])]
    as_chunks, as_string = score_summaries(
        ScriptedJudge(default=1.0), [BAKERY_SUMMARY, BAKERY_SUMMARY], [chunks, "\n".join(chunks)]
    )
    assert as_chunks["conciseness_score"] == as_string["conciseness_score"]
    assert as_chunks["conciseness_score"] == maths.conciseness_score(BAKERY_SUMMARY, "\n".join(chunks))
    assert [q["fact"] for q in as_chunks["questions"]] == BAKERY_SENTENCES


def test_all_rows_share_one_batched_pass_per_task():
    judge = ScriptedJudge(default=1.0)
    summaries, sources = [BAKERY_SUMMARY, TESLA_SUMMARY, APP_SUMMARY], [[BAKERY_SOURCE], [TESLA_SOURCE], [APP_SOURCE]]
    score_summaries(judge, summaries, sources)
    assert [operation for operation, _ in judge.calls] == ["yes_probability", "yes_probability"]
    alignment_prompts, coverage_prompts = (prompts for _, prompts in judge.calls)
    assert all("<claim>" in prompt for prompt in alignment_prompts)
    assert all("<question>" in prompt for prompt in coverage_prompts)
    assert len(coverage_prompts) == 3 + 3 + 3  # the first 3 sentences of each source by default
