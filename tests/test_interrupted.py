"""Interrupted runs and the result cache: a run killed mid-way resumes, computing only the prompts that were
not committed, and ends with the same numbers as an uninterrupted run; the cache never serves a verdict to a
different judge or a reworded prompt. Real SmolLM2 judge, isolated caches."""

import copy
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from scoring_worker import count_computed, score_rows

from localjudge import prompts, score_summaries
from localjudge.cache import ResultCache

WORKER = Path(__file__).with_name("scoring_worker.py")
COMMITS_BEFORE_KILL = 3
# Made-up row written for these tests.
SUMMARY = "Elmvale approved a park opening in May."
SOURCE = "The Elmvale council approved a new park on Monday. It will open in May."


def worker_command(cache_path, *arguments):
    return [sys.executable, str(WORKER), str(cache_path), *arguments]


def run_worker(cache_path):
    finished = subprocess.run(worker_command(cache_path), capture_output=True, text=True, timeout=300, check=True)
    return json.loads(finished.stdout.splitlines()[-1])


def test_killed_run_resumes_with_only_the_missing_prompts(smol_judge, tmp_path):
    uninterrupted = score_rows(variant_of(smol_judge), tmp_path / "uninterrupted.sqlite")
    total = len(ResultCache(tmp_path / "uninterrupted.sqlite"))
    assert uninterrupted["computed"] == total > COMMITS_BEFORE_KILL

    path = tmp_path / "interrupted.sqlite"
    cache = ResultCache(path)
    worker = subprocess.Popen(worker_command(path, "0.2"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while len(cache) < COMMITS_BEFORE_KILL:
            assert worker.poll() is None, "the worker ended before it could be interrupted"
            assert time.monotonic() < deadline, "the worker committed nothing in time"
            time.sleep(0.05)
    finally:
        worker.kill()  # SIGKILL: no cleanup, no flush, as a crash or an out-of-memory kill
        worker.wait()
    committed = len(cache)
    assert COMMITS_BEFORE_KILL <= committed < total

    resumed = run_worker(path)
    assert resumed["computed"] == total - committed
    assert len(cache) == total
    # and the same numbers, to the last bit, as the run that was never interrupted (in this process)
    assert resumed["results"] == uninterrupted["results"]


def variant_of(judge, **attributes):
    """A copy of `judge` sharing its model, tokenizer and cache, with some attributes changed."""
    variant = copy.copy(judge)
    vars(variant).update(attributes)
    return variant


@pytest.fixture
def counted_judge(smol_judge, fresh_cache):
    """A copy of the SmolLM2 judge on an empty result cache; `.computed` lists the prompts its model computed."""
    judge = variant_of(smol_judge)
    judge.computed = count_computed(judge)
    return judge


def score(judge, **options):
    return score_summaries(judge, [SUMMARY], [[SOURCE]], progress=False, **options)


def test_options_that_only_change_the_maths_reuse_the_verdicts(counted_judge):
    (first,) = score(counted_judge)
    # one claim and two questions, each scored with and without its evidence
    assert len(counted_judge.computed) == len(counted_judge.cache) == 6
    counted_judge.computed.clear()
    (again,) = score(counted_judge)
    (as_min,) = score(counted_judge, final="min", coeff=0.2, batch_size=1)
    assert counted_judge.computed == []
    assert again == first
    assert as_min["coverage_score"] == first["coverage_score"] and as_min["score"] != first["score"]


def test_another_judge_fingerprint_never_reads_the_cache(counted_judge):
    (first,) = score(counted_judge)
    counted_judge.computed.clear()
    # other weights, dtype or revision give another fingerprint: the same model here, so the same numbers
    (other,) = score(variant_of(counted_judge, fingerprint=f"{counted_judge.fingerprint}:other"))
    assert len(counted_judge.computed) == 6
    assert len(counted_judge.cache) == 12
    assert other["score"] == pytest.approx(first["score"])


def test_a_reworded_likelihood_prompt_is_recomputed(counted_judge, monkeypatch):
    score(counted_judge)
    counted_judge.computed.clear()
    monkeypatch.setitem(prompts.LIKELIHOOD_PROMPTS["alignment"], "evidence", "{document}\n\nBriefly: ")
    score(counted_judge)
    assert len(counted_judge.computed) == 1  # the claim with its evidence; its baseline prompt did not change


def test_a_reworded_verdict_prompt_is_recomputed(counted_judge, monkeypatch):
    # a judge whose weights have no settings gets the default ones: yes/no prompts with P(yes) verdicts
    yes_no_judge = variant_of(counted_judge, name="smollm2 as a yes/no judge", settings_key="smollm2 as a yes/no judge")
    score(yes_no_judge)
    assert len(counted_judge.computed) == 3
    counted_judge.computed.clear()
    monkeypatch.setitem(prompts.VERDICT_PROMPTS, "coverage", "Read carefully. " + prompts.VERDICT_PROMPTS["coverage"])
    score(yes_no_judge)
    assert len(counted_judge.computed) == 2  # the two questions; the claim's prompt did not change
