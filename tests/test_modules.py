"""The two evaluate modules, loaded with `evaluate.load` from the repository folders: scripted verdicts flow
through them exactly, `add_batch` accumulates, and the real embedded judges run end to end."""

import inspect
import math
import re
from pathlib import Path

import evaluate
import pytest
from helpers import ScriptedJudge

import localjudge.judges.registry
from localjudge import score_summaries, summarization_output
from localjudge.maths import bootstrap_ci
from localjudge.prompts import SENTENCE_QUESTION

REPOSITORY = Path(__file__).resolve().parent.parent

LIBRARY_SOURCE = (
    "The Fenwick public library will stay open until nine in the evening from next month. "
    "The longer hours are paid for by a grant from the Orla Trust. "
    "The children's room will also get forty new picture books."
)
LIBRARY_SENTENCES = [
    "The Fenwick public library will stay open until nine in the evening from next month.",
    "The longer hours are paid for by a grant from the Orla Trust.",
    "The children's room will also get forty new picture books.",
]
LIBRARY_SUMMARY = "The Fenwick library will open until nine in the evening. The mayor paid for the change."
LIBRARY_VERDICTS = {
    "The Fenwick library will open until nine in the evening.": 1.0,
    "The mayor paid for the change.": 0.0,
    SENTENCE_QUESTION.format(sentence=LIBRARY_SENTENCES[0]): 1.0,
    SENTENCE_QUESTION.format(sentence=LIBRARY_SENTENCES[1]): 1.0,
}
FERRY_SOURCE = "The Dunmore ferry leaves every hour from seven in the morning. A return ticket costs six euros."
FERRY_SUMMARY = "The Dunmore ferry runs hourly and a return ticket costs six euros."

FRANCE_QUESTION = "Where is France and what is it's capital?"
FRANCE_ANSWER = "France is in Western Europe and its capital is Paris."
CUISINE_CHUNK = "French cooking is known for its sauces and cheeses, and its vineyards make famous wines."
FRANCE_CHUNK = "France is a country in Western Europe. Its capital and largest city is Paris."
FERRY_QUESTION = "How much is a return ticket on the Dunmore ferry?"
FERRY_ANSWER = "A return ticket costs six euros."
FERRY_CHUNKS = [
    "The Dunmore ferry crosses to Inishbeg island.",
    "A return ticket on the Dunmore ferry costs six euros.",
]

SUMMARIZATION_SCORES = [
    "summarization_score",
    "scores",
    "qa_scores",
    "conciseness_scores",
    "alignment_scores",
    "coverage_scores",
]
UTILIZATION_SCORES = ["context_utilization", "scores"]


def load(folder):
    return evaluate.load(str(REPOSITORY / folder))


@pytest.fixture
def summarization():
    return load("summarization_score")


@pytest.fixture
def utilization():
    return load("context_utilization")


def summarization_rows():
    return {"summary": [LIBRARY_SUMMARY, FERRY_SUMMARY], "contexts": [[LIBRARY_SOURCE], [FERRY_SOURCE]]}


def utilization_rows():
    return {
        "question": [FRANCE_QUESTION, FERRY_QUESTION],
        "answer": [FRANCE_ANSWER, FERRY_ANSWER],
        "contexts": [[CUISINE_CHUNK, FRANCE_CHUNK], FERRY_CHUNKS],
    }


def compute_in_two_batches(metric, rows, **options):
    for start in (0, 1):
        metric.add_batch(**{name: values[start : start + 1] for name, values in rows.items()})
    return metric.compute(**options)


def assert_scores_in_unit_interval(results, score_keys):
    for key in score_keys:
        values = results[key] if isinstance(results[key], list) else [results[key]]
        assert all(0.0 <= value <= 1.0 for value in values), (key, values)


# ---------------------------------------------------------------- scripted judge: exact numbers
@pytest.mark.parametrize("folder", ["summarization_score", "context_utilization"])
def test_compute_takes_no_extra_keyword_arguments(folder):
    parameters = inspect.signature(load(folder)._compute).parameters.values()
    assert all(p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in parameters)


@pytest.mark.parametrize("folder", ["summarization_score", "context_utilization"])
def test_the_judge_is_loaded_once_per_instance_and_setting(folder, monkeypatch):
    loads = []
    monkeypatch.setattr(localjudge.judges.registry, "load_judge", lambda judge: loads.append(judge) or ScriptedJudge({}))
    metric = load(folder)
    rows = summarization_rows() if folder == "summarization_score" else utilization_rows()
    for judge in ("judge-a", "judge-a", "judge-b", "judge-b"):
        metric.compute(**rows, judge=judge)
    assert loads == ["judge-a", "judge-b"]


def test_summarization_mastra_numbers_flow_through_the_module(summarization):
    rows = summarization_rows()
    results = summarization.compute(**rows, judge=ScriptedJudge(LIBRARY_VERDICTS), final="min")
    # library row: 1 of 2 claims supported, 2 of 3 questions answered → min(1/2, 2/3); ferry row: nothing
    assert results["scores"] == [0.5, 0.0]
    assert results["alignment_scores"] == [0.5, 0.0]
    assert results["coverage_scores"] == [2 / 3, 0.0]
    assert results["summarization_score"] == 0.25
    assert results["num_failed"] == 0


def test_summarization_module_equals_the_pipeline(summarization):
    rows = summarization_rows()
    results = summarization.compute(**rows, judge=ScriptedJudge(LIBRARY_VERDICTS), coeff=0.3, return_details=True)
    pipeline_rows = score_summaries(ScriptedJudge(LIBRARY_VERDICTS), rows["summary"], rows["contexts"], coeff=0.3)
    expected = summarization_output(pipeline_rows, return_details=True)
    assert results == expected
    assert results["qa_scores"] == [2 / 3, 0.0]


def test_summarization_add_batch_equals_one_compute(summarization):
    whole = summarization.compute(**summarization_rows(), judge=ScriptedJudge(LIBRARY_VERDICTS))
    batched = compute_in_two_batches(summarization, summarization_rows(), judge=ScriptedJudge(LIBRARY_VERDICTS))
    assert batched == whole


def test_summarization_accepts_a_plain_string_per_row(summarization):
    as_lists = summarization.compute(**summarization_rows(), judge=ScriptedJudge(LIBRARY_VERDICTS))
    as_strings = summarization.compute(
        summary=[LIBRARY_SUMMARY, FERRY_SUMMARY],
        contexts=[LIBRARY_SOURCE, FERRY_SOURCE],
        judge=ScriptedJudge(LIBRARY_VERDICTS),
    )
    assert as_strings == as_lists


@pytest.mark.parametrize(
    "folder, batch, fix",
    [
        ("summarization_score", {"summary": LIBRARY_SUMMARY, "contexts": LIBRARY_SOURCE}, "summary=['The Fenwick"),
        ("summarization_score", {"summary": [LIBRARY_SUMMARY], "contexts": LIBRARY_SENTENCES}, "contexts=[[chunk"),
        ("context_utilization", {"question": FERRY_QUESTION, "answer": FERRY_ANSWER, "contexts": [FERRY_CHUNKS]},
         "question=['How much is a return"),
        ("context_utilization", {"question": [FERRY_QUESTION], "answer": [FERRY_ANSWER], "contexts": FERRY_CHUNKS},
         "contexts=[[chunk"),
    ],
)
def test_one_row_passed_bare_gets_an_error_that_says_how_to_pass_it(folder, batch, fix):
    """A string where a list of rows goes (evaluate would read it as a row a character) and one row's chunks as a
    flat list are refused before the judge is called, by `compute` and by `add_batch`, with the call that works."""
    judge = ScriptedJudge(default=1.0)
    with pytest.raises(TypeError, match=re.escape(fix)):
        load(folder).compute(**batch, judge=judge)
    with pytest.raises(TypeError, match=re.escape(fix)):
        load(folder).add_batch(**batch)
    assert judge.calls == []


def test_summarization_failed_row_through_the_module(summarization):
    results = summarization.compute(
        summary=[LIBRARY_SUMMARY, ""], contexts=[[LIBRARY_SOURCE], [FERRY_SOURCE]], judge=ScriptedJudge(default=1.0)
    )
    assert math.isnan(results["scores"][1])
    assert results["num_failed"] == 1
    assert results["summarization_score"] == results["scores"][0]


def test_utilization_numbers_flow_through_the_module(utilization):
    judge = ScriptedJudge({FRANCE_CHUNK: 1.0, FERRY_CHUNKS[1]: 0.5})
    results = utilization.compute(**utilization_rows(), judge=judge)
    assert results == {
        "context_utilization": 0.5,
        "scores": [0.5, 0.5],
        "verdicts": [[0.0, 1.0], [0.0, 0.5]],
        "num_failed": 0,
    }
    assert len(judge.calls) == 1
    compat = utilization.compute(**utilization_rows(), judge=judge, ragas_compat=True)
    assert compat["scores"] == [0.49999999995, 0.49999999995]
    # soft: v = [0, 0.5] → (0.5/2 · 0.5) / 0.5 = 0.25
    assert utilization.compute(**utilization_rows(), judge=judge, soft=True)["scores"] == [0.5, 0.25]


def test_utilization_add_batch_equals_one_compute(utilization):
    judge = ScriptedJudge({FRANCE_CHUNK: 1.0, FERRY_CHUNKS[1]: 0.5})
    whole = utilization.compute(**utilization_rows(), judge=judge, return_details=True)
    batched = compute_in_two_batches(utilization, utilization_rows(), judge=judge, return_details=True)
    assert batched == whole


def test_confidence_level_adds_the_interval_of_the_mean_from_the_per_row_scores(summarization, utilization):
    judge = ScriptedJudge(LIBRARY_VERDICTS)
    summary = summarization.compute(**summarization_rows(), judge=judge, final="min", confidence_level=0.9)
    assert summary["summarization_score_ci"] == bootstrap_ci([0.5, 0.0], 0.9)
    assert "summarization_score_ci" not in summarization.compute(**summarization_rows(), judge=judge)
    judge = ScriptedJudge({FRANCE_CHUNK: 1.0, FERRY_CHUNKS[0]: 1.0})
    rag = utilization.compute(**utilization_rows(), judge=judge, confidence_level=0.9)
    assert rag["context_utilization_ci"] == bootstrap_ci([0.5, 1.0], 0.9)
    assert rag["context_utilization"] == 0.75


def test_confidence_interval_of_one_scored_row_is_nan_with_a_warning(summarization, caplog):
    results = summarization.compute(
        summary=[LIBRARY_SUMMARY, ""],
        contexts=[[LIBRARY_SOURCE], [FERRY_SOURCE]],
        judge=ScriptedJudge(default=1.0),
        confidence_level=0.95,
    )
    assert all(math.isnan(bound) for bound in results["summarization_score_ci"])
    assert "summarization_score_ci is (NaN, NaN): an interval needs at least 2 scored rows" in caplog.text


# ---------------------------------------------------------------- real embedded judges
def test_summarization_with_the_small_real_judge(summarization, fresh_cache):
    options = {"judge": "smollm2-135m", "return_details": True}
    first = summarization.compute(**summarization_rows(), cache=False, **options)
    assert len(fresh_cache) == 0
    second = summarization.compute(**summarization_rows(), cache=True, **options)
    assert len(fresh_cache) > 0
    batched = compute_in_two_batches(summarization, summarization_rows(), cache=True, **options)
    assert first == second == batched
    assert sorted(first) == sorted([*SUMMARIZATION_SCORES, "num_failed", "details", "prompt_version", "verdict_settings"])
    assert first["num_failed"] == 0
    assert_scores_in_unit_interval(first, SUMMARIZATION_SCORES)
    library = first["details"][0]
    assert [q["fact"] for q in library["questions"]] == LIBRARY_SENTENCES
    assert all(0.0 <= unit["p_yes"] <= 1.0 for unit in library["questions"] + library["claims"])
    assert library["reason"].startswith("The score is ")


def test_utilization_with_the_small_real_judge(utilization, fresh_cache):
    first = utilization.compute(**utilization_rows(), judge="smollm2-135m", cache=False)
    second = utilization.compute(**utilization_rows(), judge="smollm2-135m", cache=True)
    batched = compute_in_two_batches(utilization, utilization_rows(), judge="smollm2-135m", cache=True)
    assert first == second == batched
    assert sorted(first) == sorted([*UTILIZATION_SCORES, "num_failed", "verdicts"])
    assert first["num_failed"] == 0
    assert_scores_in_unit_interval(first, UTILIZATION_SCORES)
    assert [len(verdicts) for verdicts in first["verdicts"]] == [2, 2]
    assert all(0.0 <= p <= 1.0 for verdicts in first["verdicts"] for p in verdicts)


def test_both_modules_with_the_default_judge(summarization, utilization):
    # no judge argument: the default judge, run for real (cache=False)
    summary = summarization.compute(summary=[FERRY_SUMMARY], contexts=[[FERRY_SOURCE]], cache=False)
    assert summary["num_failed"] == 0
    assert_scores_in_unit_interval(summary, SUMMARIZATION_SCORES)
    rag = utilization.compute(question=[FERRY_QUESTION], answer=[FERRY_ANSWER], contexts=[FERRY_CHUNKS], cache=False)
    assert rag["num_failed"] == 0
    assert_scores_in_unit_interval(rag, UTILIZATION_SCORES)
