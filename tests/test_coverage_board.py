"""The coverage board (`benchmarks/coverage_board.py`) on project-written text: its scores from stored verdict
signals are the metric's own, and its measures (per-document and partial Spearman) do what they say. No model runs."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers import ScriptedJudge
from localjudge import score_summaries
from localjudge.prompts import DEFAULT_SETTINGS, SENTENCE_QUESTION
from localjudge.text import split_sentences

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import coverage_board  # noqa: E402

SOURCE = (
    "The river ferry at Calloway Point will stop running on the first of March. "
    "The county says the hull needs repairs that will take about six weeks. "
    "Commuters can use a free shuttle bus to the bridge at Denham instead. "
    "The ferry has carried passengers across the river since 1962."
)
SUMMARY = "The Calloway Point ferry stops on 1 March for six weeks of hull repairs."


def test_the_board_scores_a_summary_as_the_metric_does():
    """qa hard / soft and the Ragas score from the stored signals equal `summarization_score`'s for the same verdicts."""
    sentences = split_sentences(SOURCE)
    verdicts = {SENTENCE_QUESTION.format(sentence=sentences[0]): 0.9, SENTENCE_QUESTION.format(sentence=sentences[1]): 0.6,
                SENTENCE_QUESTION.format(sentence=sentences[2]): 0.2}
    (metric,) = score_summaries(ScriptedJudge(verdicts), [SUMMARY], [[SOURCE]])
    soft = score_summaries(ScriptedJudge(verdicts), [SUMMARY], [[SOURCE]], soft=True)[0]["qa_score"]
    row = {"id": "r", "set": "s", "doc": "d", "label": 1.0, "source": SOURCE, "summary": SUMMARY,
           "words": len(SUMMARY.split()), "sentences": sentences, "units": []}
    stored = {coverage_board.fact_key(s): {"p_yes": verdicts.get(SENTENCE_QUESTION.format(sentence=s), 0.0)} for s in sentences}
    line = coverage_board.row_signals(row, stored, DEFAULT_SETTINGS["coverage"], ["lead-3"])
    assert line["lead-3 qa hard"] == pytest.approx(metric["qa_score"]) == pytest.approx(2 / 3)
    assert line["lead-3 qa soft"] == pytest.approx(soft)
    assert line["lead-3 ragas"] == pytest.approx(metric["score"])


def test_a_row_missing_a_verdict_has_no_score_rather_than_a_zero():
    sentences = split_sentences(SOURCE)
    row = {"id": "r", "set": "s", "doc": "d", "label": 1.0, "source": SOURCE, "summary": SUMMARY, "words": 14,
           "sentences": sentences, "units": []}
    line = coverage_board.row_signals(row, {coverage_board.fact_key(sentences[0]): {"p_yes": 1.0}},
                                      DEFAULT_SETTINGS["coverage"], ["lead-3"])
    assert "lead-3 qa hard" not in line


def test_a_row_is_asked_its_rule_sentences_and_its_gold_units_once_each():
    sentences = split_sentences(SOURCE)
    row = {"sentences": sentences, "units": [{"text": "The ferry stops in March.", "present": 1}]}
    assert coverage_board.asked_facts(row, ["lead-3", "lead-3"]) == [*sentences[:3], "The ferry stops in March."]


def test_partial_spearman_removes_what_length_explains():
    rng = np.random.default_rng(0)
    length = rng.normal(size=400)
    driven_by_length = length + rng.normal(scale=0.1, size=400)
    label = length + rng.normal(scale=0.1, size=400)
    assert coverage_board.partial_spearman(driven_by_length, label, length) == pytest.approx(0.0, abs=0.15)
    own = rng.normal(size=400)
    assert coverage_board.partial_spearman(own, own + length, length) > 0.9


def test_per_document_leaves_out_equal_labels_and_counts_a_constant_signal_as_zero():
    frame = pd.DataFrame({
        "doc": ["a"] * 3 + ["b"] * 3 + ["c"] * 3,
        "label": [1, 2, 3, 1, 2, 3, 2, 2, 2],
        "signal": [1, 2, 3, 5, 5, 5, 1, 2, 3],
    })
    value, used, equal = coverage_board.per_document(frame, "signal")
    assert (value, used, equal) == (pytest.approx(0.5), 2, 1)


def test_central_sentences_pick_what_the_text_keeps_returning_to_in_source_order():
    from localjudge import keyfacts

    chat = [
        "Mira: hi, are you around today?",
        "Tom: yes, just got back from the gym.",
        "Mira: the plumber can fix the kitchen sink on Friday morning.",
        "Tom: Friday morning works, I can let the plumber in before work.",
        "Mira: great, the plumber said the sink repair takes two hours.",
        "Tom: ok, see you later then!",
    ]
    assert keyfacts.central_sentences(chat, 3) == [2, 3, 4]
    assert keyfacts.lead_sentences(chat, 3) == [0, 1, 2]
    assert keyfacts.central_sentences(chat[:2], 3) == [0, 1]
    assert keyfacts.central_sentences([], 3) == []


def test_the_metric_asks_the_central_sentences_when_told_and_the_lead_by_default():
    source = (
        "Good morning to everyone reading the newsletter this week.\n"
        "The library will open a repair cafe on Saturdays from May.\n"
        "Volunteers at the repair cafe will fix lamps, radios and bicycles.\n"
        "The repair cafe is free, and the library asks visitors to bring broken lamps or radios.\n"
        "Thanks for reading, and see you next week."
    )
    summary = "The library opens a free repair cafe on Saturdays."
    sentences = split_sentences(source)
    (lead,) = score_summaries(ScriptedJudge(), [summary], [[source]])
    (central,) = score_summaries(ScriptedJudge(), [summary], [[source]], key_facts="central")
    assert [q["fact"] for q in lead["questions"]] == sentences[:3]
    assert [q["fact"] for q in central["questions"]] == sentences[1:4]
    with pytest.raises(ValueError, match="key_facts"):
        score_summaries(ScriptedJudge(), [summary], [[source]], key_facts="middle")


def test_keyphrase_sentences_pick_the_sentences_holding_the_text_s_keyphrases_in_source_order():
    article = [
        "Good evening and welcome to the weekly round-up.",
        "The Harwick tram line will close for track renewal in June.",
        "It has rained on most days this month.",
        "Harwick tram passengers can take replacement buses during the track renewal.",
        "Thanks for listening.",
    ]
    # YAKE favours words early in a text, so the greeting comes too; the asides do not
    assert coverage_board.keyphrase_sentences(article, 3) == [0, 1, 3]
    assert coverage_board.keyphrase_sentences(article[:1], 3) == [0]
    assert coverage_board.keyphrase_sentences([], 3) == []


def test_clauses_cut_a_sentence_at_its_clause_breaks_and_keep_short_parts_with_their_clause():
    sentence = "The council will repave Mill Road in April, and the work will cost 40,000 pounds; buses divert via Elm Street."
    assert coverage_board.clauses(sentence) == [
        "The council will repave Mill Road in April", "and the work will cost 40,000 pounds", "buses divert via Elm Street.",
    ]
    assert coverage_board.clauses("Tea, and cake, were served at noon.") == ["Tea, and cake, were served at noon."]


def test_the_board_asks_each_rule_s_facts_and_gold_units_once():
    sentences = split_sentences(SOURCE)
    row = {"source": SOURCE, "sentences": sentences, "question_count": 3, "units": []}
    facts = coverage_board.asked_facts(row, ["lead-3", "clauses-3", "central-3", "by-kind"])
    assert facts[:3] == sentences[:3] and len(facts) == len(set(facts))
    assert set(facts) == {*sentences[:3], *coverage_board.RULES["central-3"](row)}


def test_the_tuned_fact_check_reads_the_fact_against_the_summary_alone():
    """The tuned coverage verdict's prompt: the summary is the document, the fact the statement (Ragas' semantics),
    never the source."""
    from localjudge import learned
    from localjudge.prompts import VERIFICATION_FIELDS, VERIFICATION_PROMPTS

    document, statement = VERIFICATION_FIELDS["coverage"]
    item = {"summary": SUMMARY, "question": "Does the text state that: X", "fact": "The ferry stops in March."}
    prompt = VERIFICATION_PROMPTS["coverage"].format(document=item[document], statement=learned.statement(item[statement]))
    assert prompt.startswith(SUMMARY) and "The ferry stops in March." in prompt and SOURCE not in prompt


def test_a_stored_pass_is_read_back_only_while_its_templates_are_unchanged(tmp_path):
    """Both boards store passes the same way (`verdict_board.save_pass` / `stored_pass`): the coverage board's carry
    its own templates' fingerprint, per verdict, and its judge seconds."""
    from types import SimpleNamespace

    judge = SimpleNamespace(settings_key="qwen2.5-coder-0.5b", fingerprint="qwen2.5-coder-0.5b:abc:torch.float32")
    values = {"r": {coverage_board.fact_key("A fact."): {"p_yes": 0.75}}}
    shipped, tuned = coverage_board.prompts_fingerprint("shipped"), coverage_board.prompts_fingerprint("tuned")
    assert shipped != tuned
    coverage_board.save_pass(tmp_path, judge, "coverage", "summeval", values, shipped, seconds=12.5)
    assert coverage_board.stored_pass(tmp_path, judge.settings_key, "coverage", "summeval", shipped) == (values, judge.fingerprint)
    assert coverage_board.stored_pass(tmp_path, judge.settings_key, "coverage", "summeval", tuned) == (None, None)
    assert coverage_board.stored_pass(tmp_path, judge.settings_key, "coverage", "realsumm", shipped) == (None, None)


def test_a_document_s_units_are_called_at_a_threshold_fitted_on_the_other_documents_only():
    frame = pd.DataFrame({"doc": ["a"] * 4 + ["b"] * 2, "present": [1, 1, 0, 0, 1, 0], "p": [0.9, 0.8, 0.3, 0.2, 0.6, 0.1]})
    called, fitted = coverage_board.out_of_document_calls(frame)
    # b alone is separated by any threshold above logit(0.1), the first of which calls all of a present; a alone by the
    # first above logit(0.3), which still calls b's 0.6 present and its 0.1 absent
    assert called.tolist() == [True, True, True, True, True, False]
    assert np.log(0.3 / 0.7) < fitted <= np.log(0.6 / 0.4)


def test_a_signal_is_compared_with_the_first_document_by_document():
    frame = pd.DataFrame({
        "doc": ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 3,
        "label": [1, 2, 3, 1, 2, 3, 1, 2, 3, 2, 2, 2],
        "first": [1, 2, 3, 1, 2, 3, 3, 2, 1, 1, 2, 3],
        "second": [1, 2, 3, 1, 2, 3, 1, 2, 3, 3, 2, 1],
    })
    # ρ of the first 1, 1, −1 and of the second 1, 1, 1 (d has equal labels: left out); differences 0, 0, 2
    ((signal, (difference, error)),) = coverage_board.against_first(frame, ["first", "second"]).items()
    assert signal == "second" and difference == pytest.approx(2 / 3) and error == pytest.approx(np.std([0, 0, 2], ddof=1) / np.sqrt(3))
