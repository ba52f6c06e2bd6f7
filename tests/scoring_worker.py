"""Scores six tiny rows through the summarization module with the embedded SmolLM2 judge, one prompt per
batch, into the result cache at a given path; prints one JSON line: how many prompts the model computed and
the module's results. test_interrupted.py kills it mid-run and runs it again, and calls `score_rows` itself
for the uninterrupted run.

Usage: python tests/scoring_worker.py CACHE_PATH [SECONDS_PER_BATCH]
The optional pause after each batch gives the test time to kill the run between two commits.
"""

import json
import os
import sys
import time
from pathlib import Path

# as in conftest.py: idle OpenMP threads must sleep on a shared machine; set before torch is imported
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import evaluate  # noqa: E402

from localjudge import load_judge  # noqa: E402
from localjudge.cache import ResultCache  # noqa: E402

REPOSITORY = Path(__file__).resolve().parent.parent

# Made-up rows written for these tests.
SOURCES = [
    "The Elmvale council approved a new park on Monday. It will open in May.",
    "Harwick Foods recalled its oat biscuits on Tuesday. Shops will refund buyers.",
    "The Lumen Bay ferry stops in January for repairs. A bus will replace it.",
    "Brackenford opened a library on Saturday. It holds twenty thousand books.",
    "The Corvale rowing club won the regatta. It was their third win in a row.",
    "A bakery opened on Mill Street in Oster Vale. It sells rye bread on Sundays.",
]
SUMMARIES = [
    "Elmvale approved a park opening in May.",
    "Harwick Foods recalled oat biscuits.",
    "The ferry stops in January.",
    "Brackenford opened a library with twenty thousand books.",
    "The rowing club won the regatta again.",
    "A new bakery sells rye bread.",
]


def count_computed(judge, seconds_per_batch=0.0):
    """Count through `judge._run_batch`: returns the list that receives the index of every prompt its model
    computes (prompts served from the cache never reach it)."""
    computed = []
    run_batch = judge._run_batch

    def counting_run_batch(sequences, tails, batch, reduce):
        computed.extend(batch)
        results = run_batch(sequences, tails, batch, reduce)
        time.sleep(seconds_per_batch)
        return results

    judge._run_batch = counting_run_batch
    return computed


def score_rows(judge, cache_path, seconds_per_batch=0.0):
    """{"computed": prompts the model computed, "results": the module's results}; `judge` is changed in place."""
    judge.cache = ResultCache(cache_path)
    computed = count_computed(judge, seconds_per_batch)
    metric = evaluate.load(str(REPOSITORY / "summarization_score"), keep_in_memory=True)
    results = metric.compute(
        summary=SUMMARIES, contexts=[[s] for s in SOURCES], judge=judge, batch_size=1, progress=False
    )
    return {"computed": len(computed), "results": results}


if __name__ == "__main__":
    print(json.dumps(score_rows(load_judge("smollm2-135m"), sys.argv[1], *map(float, sys.argv[2:]))))
