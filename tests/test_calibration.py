"""Exact tests of benchmarks/calibration.py on a small made-up agreement results file (no judge is run)."""

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from localjudge.maths import calibrate
from localjudge.prompts import DEFAULT_SETTINGS, JUDGE_SETTINGS, Verdict

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import calibration

SETTINGS = {task: Verdict("likelihood", 2.0, 0.5) for task in ("alignment", "coverage", "utilization")}


def probabilities(raw):
    """What the judge's pipeline stored for these raw values under SETTINGS."""
    return [calibrate(x, 2.0, 0.5, "likelihood") for x in raw]


def summary_row(dataset, labels, claims=(), questions=(), error=None):
    details = {
        "claims": [{"p_yes": p} for p in probabilities(claims)],
        "questions": [{"p_yes": p} for p in probabilities(questions)],
        "error": error,
    }
    return {"dataset": dataset, "labels": labels, "details": details}


def rag_row(dataset, raw, useful, oracle_ap):
    """(row, chunk records) as benchmarks/agreement.py writes them."""
    p_useful = probabilities(raw)
    row = {"dataset": dataset, "verdicts": p_useful, "oracle_ap": oracle_ap, "details": {"error": None}}
    return row, [{"dataset": dataset, "useful": float(u), "p_useful": p} for u, p in zip(useful, p_useful)]


def made_up_report():
    """Raw values picked so that thresholds 0.5 and 0.9 (utilization), 0.5 and 0.2 (alignment), 0.5 and 0.35
    (coverage) give different, hand-computed measures."""
    rows = [
        summary_row("frank-cnndm", {"factual": 1}, claims=[1.0, 0.9]),
        summary_row("frank-cnndm", {"factual": 0}, claims=[1.0, 0.3]),
        # a failed row scores NaN and is left out; counted as alignment 0 it would spoil the AUC of 1.0 below
        summary_row("frank-cnndm", {"factual": 1}, error="empty or missing summary"),
        summary_row("realsumm", {"coverage": 0.9}, questions=[1.0, 1.0]),
        summary_row("realsumm", {"coverage": 0.5}, questions=[1.0, 0.4]),
        summary_row("realsumm", {"coverage": 0.1}, questions=[0.3, 0.4]),
    ]
    sentences = [
        {"dataset": "qags-xsum", "sentence majority": 1.0, "claim_p_yes": probabilities([0.9])[0]},
        {"dataset": "qags-xsum", "sentence majority": 0.0, "claim_p_yes": probabilities([0.3])[0]},
        # no claim reproduces this sentence: left out, not counted as a "no" verdict
        {"dataset": "qags-xsum", "sentence majority": 1.0, "claim_p_yes": math.nan},
    ]
    first, first_chunks = rag_row("town-qa", [1.0, 0.2, 0.8], [1, 0, 1], 1.0)
    second, second_chunks = rag_row("river-qa", [0.1, 0.7], [0, 1], 0.5)
    return {
        "judge": "Judge('made-up', device=cpu, dtype=torch.float32)",
        "prompt_version": "test",
        "settings": SETTINGS,
        "summaries": {"rows": rows, "sentences": sentences},
        "rag": {"rows": [first, second], "chunks": first_chunks + second_chunks},
    }


@pytest.fixture
def report():
    return json.loads(json.dumps(made_up_report()))  # as the script reads it: tuples become lists, NaN stays


@pytest.mark.parametrize(
    "value, settings, raw",
    [
        (0.3, Verdict("probability", 3.0, -0.28), math.log(0.3 / 0.7)),
        (0.3, Verdict("probability", 1.0, 0.0), math.log(0.3 / 0.7)),  # identity calibration keeps P(yes)
        (1.3, Verdict("likelihood", 2.0, 0.9), 1.3),
    ],
)
def test_raw_values_invert_calibrate(value, settings, raw):
    method, scale, offset, _ = settings
    p = calibrate(value, scale, offset, method)
    assert calibration.raw_values([p], settings)[0] == pytest.approx(raw, abs=1e-9)


def test_missing_verdict_stays_nan_and_counts_as_no():
    raw = calibration.raw_values([calibrate(math.nan, 2.0, 0.5, "likelihood")], SETTINGS["alignment"])
    assert math.isnan(raw[0])
    assert calibration.verdicts(raw, -100.0) == [0.0]


def test_settings_recorded_in_the_file_win(report):
    assert calibration.run_settings(report)[0] == SETTINGS


@pytest.mark.parametrize("name", ["smollm2-135m", "made-up"])
def test_settings_missing_from_the_file_are_todays(report, name):
    del report["settings"]
    report["judge"] = f"Judge('{name}', device=cpu, dtype=torch.float32)"
    assert calibration.run_settings(report)[0] == JUDGE_SETTINGS.get(name, DEFAULT_SETTINGS)


def test_alignment_measures_at_two_thresholds(report):
    frame, sentences = calibration.summary_frames(report["summaries"], SETTINGS)
    at_offset = calibration.alignment_measures(frame, sentences, 0.5)
    assert at_offset["frank-cnndm factual roc_auc"] == 1.0  # alignment 1.0 against 0.5
    assert at_offset["mean factual roc_auc"] == 1.0
    assert at_offset["qags-xsum sentences balanced_accuracy"] == 1.0
    assert at_offset["share yes"] == 3 / 4
    lower = calibration.alignment_measures(frame, sentences, 0.2)
    assert lower["frank-cnndm factual roc_auc"] == 0.5  # every claim supported: both rows tie
    assert lower["qags-xsum sentences balanced_accuracy"] == 0.5


def test_coverage_measures_at_two_thresholds(report):
    frame, _ = calibration.summary_frames(report["summaries"], SETTINGS)
    assert calibration.coverage_measures(frame, 0.5)["realsumm coverage spearman"] == pytest.approx(1.0)
    # coverage 1, 1, 0.5 against 0.9, 0.5, 0.1: ranks (2.5, 2.5, 1) against (3, 2, 1)
    lower = calibration.coverage_measures(frame, 0.35)
    assert lower["realsumm coverage spearman"] == pytest.approx(math.sqrt(3) / 2)
    assert lower["mean spearman"] == pytest.approx(math.sqrt(3) / 2)


def test_utilization_measures_at_two_thresholds(report):
    frame, chunks = calibration.rag_frames(report["rag"], SETTINGS["utilization"])
    at_offset = calibration.utilization_measures(frame, chunks, 0.5)
    # town-qa verdicts 1, 0, 1: AP (1 + 2/3) / 2 against oracle 1; river-qa verdicts 0, 1: AP 0.5 = oracle
    assert at_offset["town-qa mean |AP - oracle_ap|"] == pytest.approx(1 / 6)
    assert at_offset["river-qa mean |AP - oracle_ap|"] == pytest.approx(0.0)
    assert at_offset["pooled mean |AP - oracle_ap|"] == pytest.approx(1 / 12)
    assert at_offset["pooled chunks f1"] == 1.0
    higher = calibration.utilization_measures(frame, chunks, 0.9)
    # town-qa verdicts 1, 0, 0: AP 1; river-qa no useful chunk: AP 0 against 0.5
    assert higher["pooled mean |AP - oracle_ap|"] == pytest.approx(0.25)
    assert higher["pooled chunks f1"] == pytest.approx(0.5)  # precision 1, recall 1/3
    assert higher["pooled chunks balanced_accuracy"] == pytest.approx((1 / 3 + 1) / 2)
    assert higher["share yes"] == pytest.approx(1 / 5)


def test_balanced_accuracy_of_one_class_is_undefined():
    assert calibration.balanced_accuracy([1.0, 0.0, 0.0], [1.0, 1.0, 0.0]) == pytest.approx(0.75)
    assert math.isnan(calibration.balanced_accuracy([1.0, 1.0], [1.0, 0.0]))


def test_candidates_always_hold_the_run_offset():
    assert calibration.candidates(0.9, [1.0, 0.8]) == [0.8, 0.9, 1.0]
    grid = calibration.candidates(0.5, None)
    assert grid == pytest.approx([-0.1, 0.1, 0.3, 0.5, 0.7, 0.9, 1.1])
    assert 0.5 in grid


def test_best_thresholds_list_ties_and_follow_the_direction():
    table = calibration.pd.DataFrame({"threshold": [0.1, 0.2, 0.3], "m": [0.4, 0.7, 0.7]})
    assert calibration.best_thresholds(table, "m", True) == [0.2, 0.3]
    assert calibration.best_thresholds(table, "m", False) == [0.1]
    assert calibration.best_thresholds(table.assign(m=np.nan), "m", True) == []


def test_script_marks_the_run_offset_and_names_the_best_threshold(report, tmp_path, monkeypatch, capsys):
    path = tmp_path / "agreement.json"
    path.write_text(json.dumps(report))
    monkeypatch.setattr(sys, "argv", ["calibration.py", "--results", str(path), "--utilization", "0.9"])
    calibration.main()
    output = capsys.readouterr().out
    assert "# 1 summary rows the judge could not score are left out of the measures" in output
    assert "# QAGS sentences reproduced by a claim: qags-xsum 2 of 3" in output
    run_rows = [line for line in output.splitlines() if line.endswith(calibration.RUN_MARK)]
    assert len(run_rows) == 3 and all(line.split()[0] == "0.500" for line in run_rows)
    assert (
        "utilization: best on this data (beware of tuning on the evaluation set): threshold 0.5 "
        "(pooled mean |AP - oracle_ap| 0.083; the run's 0.5: 0.083)"
    ) in output
