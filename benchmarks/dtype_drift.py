"""How far bf16 moves a judge's verdicts from fp32, per task, on rows of the dev set.

`load_judge(dtype=None)` picks bf16 on a CPU that computes it natively (AVX512-BF16 or AMX), where it runs about
twice as fast as fp32. This scores the same rows with the judge in both dtypes (result cache off, so nothing
is shared) and prints, per task (alignment: summary claims; coverage: source questions; utilization: chunks),
the mean and largest |Δp| of the verdict probabilities, how many verdicts (p ≥ 0.5) flip, and the largest
change of a row's score.

    python benchmarks/dtype_drift.py --judge qwen2.5-coder-0.5b --rows 4
"""

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from localjudge import load_judge, score_contexts, score_summaries  # noqa: E402

UNITS = {"alignment": ("claims", "p_yes"), "coverage": ("questions", "p_yes"), "utilization": ("chunks", "p_useful")}


def first_rows(path, rows):
    frame = pd.read_json(path, lines=True, dtype=False)
    return frame.groupby("dataset", sort=False).head(rows).reset_index(drop=True)


def score(judge, summaries, rag):
    start = time.perf_counter()
    summary_rows = score_summaries(judge, list(summaries["summary"]), [[s] for s in summaries["source"]], cache=False)
    rag_rows = score_contexts(judge, list(rag["question"]), list(rag["answer"]), list(rag["contexts"]), cache=False)
    return {"alignment": summary_rows, "coverage": summary_rows, "utilization": rag_rows}, time.perf_counter() - start


def drift(task, fp32_rows, bf16_rows):
    units, key = UNITS[task]
    fp32 = np.array([unit[key] for row in fp32_rows for unit in row[units]])
    bf16 = np.array([unit[key] for row in bf16_rows for unit in row[units]])
    score_key = {"alignment": "alignment_score", "coverage": "coverage_score", "utilization": "score"}[task]
    row_change = [abs(a[score_key] - b[score_key]) for a, b in zip(fp32_rows, bf16_rows)]
    return {
        "task": task,
        "items": len(fp32),
        "mean |Δp|": float(np.mean(np.abs(fp32 - bf16))),
        "max |Δp|": float(np.max(np.abs(fp32 - bf16))),
        "verdicts flipped": int(np.sum((fp32 >= 0.5) != (bf16 >= 0.5))),
        "rows": len(row_change),
        "rows whose score changed": int(np.sum(np.array(row_change) > 0)),
        "max |Δ row score|": float(max(row_change)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", default="qwen2.5-coder-0.5b")
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "devset"))
    parser.add_argument("--rows", type=int, default=4, help="rows of each dataset")
    args = parser.parse_args()
    summaries = first_rows(Path(args.data) / "summaries.jsonl", args.rows)
    rag = first_rows(Path(args.data) / "rag.jsonl", args.rows)
    results = {}
    for dtype in ("float32", "bfloat16"):
        results[dtype], seconds = score(load_judge(args.judge, dtype=dtype), summaries, rag)
        print(f"# {args.judge} {dtype}: {len(summaries)} summaries + {len(rag)} RAG rows in {seconds:.0f} s", flush=True)
    table = pd.DataFrame([drift(task, results["float32"][task], results["bfloat16"][task]) for task in UNITS])
    print(table.to_string(index=False, float_format="{:.4f}".format))


if __name__ == "__main__":
    main()
