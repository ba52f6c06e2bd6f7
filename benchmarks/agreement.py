"""Agreement of the judge with human labels on the development split, beside a lexical-overlap baseline.

Scores `summaries.jsonl` through `./summarization_score` and `rag.jsonl` through `./context_utilization`
(labels: see the README of the data folder) and prints one table per task, per dataset and label:

* summaries: Spearman of `alignment_scores` with SummEval consistency; of `coverage_scores`, `qa_scores` and
  `scores` with SummEval relevance and REALSumm coverage; ROC-AUC of `alignment_scores` with FRANK and QAGS
  `factual`. "alignment_soft" (the mean claim probability) is measured beside `alignment_scores`: it shows
  whether the judge ranks well before the 0.5 threshold throws the ranking away; "coverage_soft" likewise. For QAGS, the sentence-level
  ROC-AUC of the claim probabilities against the annotators' majority vote, on the summary sentences that
  the claims reproduce (how many do is noted);
* RAG, per dataset and pooled: chunk-level ROC-AUC of the chunk probabilities and precision/recall/F1 of
  verdict ≥ 0.5 against `useful`; mean |AP − oracle_ap| and Spearman of the scores with `oracle_ap`.

Each judge signal sits beside a baseline signal from `localjudge.baselines`, computed in the same run. Rows
the judge could not score (NaN) are counted in the table and left out of its measure, never dropped silently.

    python benchmarks/agreement.py --judge smollm2-135m --limit 2 --out agreement.json
"""

import argparse
import json
import math
import os
import time
from itertools import zip_longest
from pathlib import Path

# Idle OpenMP threads sleep instead of spinning: on a small shared CPU, spinning made forward passes far slower.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import evaluate  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402
from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score  # noqa: E402

import localjudge  # noqa: E402
from devset import load_rows  # noqa: E402  (benchmarks/devset.py)
from localjudge import baselines  # noqa: E402
from localjudge.maths import is_yes  # noqa: E402
from localjudge.prompts import DEFAULT_SETTINGS  # noqa: E402
from localjudge.summarization import EXTRACTIONS, FINALS  # noqa: E402
from localjudge.verdicts import judge_settings  # noqa: E402

REPOSITORY = Path(__file__).resolve().parents[1]

# (judge signals, baseline signals); the two lists are printed pairwise, row by row
FACTUALITY = (("alignment_scores", "alignment_soft"), ("unigram_precision", "bigram_precision"))
COVERAGE = (("coverage_scores", "coverage_soft", "qa_scores", "scores"), ("lead3_coverage",))
SUMMARY_TARGETS = {  # dataset → (label, measure, signals)
    "summeval": [("consistency", "spearman", FACTUALITY), ("relevance", "spearman", COVERAGE)],
    "realsumm": [("coverage", "spearman", COVERAGE)],
    "frank-cnndm": [("factual", "roc_auc", FACTUALITY)],
    "frank-xsum": [("factual", "roc_auc", FACTUALITY)],
    "qags-cnndm": [("factual", "roc_auc", FACTUALITY)],
    "qags-xsum": [("factual", "roc_auc", FACTUALITY)],
}
SENTENCE_TARGET = ("sentence majority", "roc_auc", (("claim_p_yes",), ("unigram_precision", "bigram_precision")))
CHUNK_TARGETS = [
    ("useful", "roc_auc", (("p_useful",), ("overlap",))),
    *(("useful", measure, (("verdict >= 0.5",), ("overlap >= row median",))) for measure in ("precision", "recall", "f1")),
]
ROW_TARGETS = [
    ("oracle_ap", "mean |AP - oracle_ap|", (("scores",), ("overlap_ap",))),
    ("oracle_ap", "spearman", (("scores",), ("overlap_ap",))),
]
POOLED = "pooled"
def spearman(truth, predicted):
    if len(truth) < 3:
        return math.nan, "fewer than 3 scored rows"
    if np.ptp(truth) == 0 or np.ptp(predicted) == 0:
        return math.nan, "constant input"
    return spearmanr(truth, predicted).statistic, ""


def roc_auc(truth, predicted):
    if len(set(truth)) < 2:
        return math.nan, "one class only"
    return roc_auc_score(truth, predicted), ""


def mean_absolute_error(truth, predicted):
    return np.mean(np.abs(predicted - truth)), ""


def classification(score):
    """A measure from an sklearn classification score; NaN (not 0) where it divides by zero."""

    def measure(truth, predicted):
        value = score(truth, predicted, zero_division=np.nan)
        return value, "undefined: no positive verdict or label" if np.isnan(value) else ""

    return measure


MEASURES = {
    "spearman": spearman,
    "roc_auc": roc_auc,
    "precision": classification(precision_score),
    "recall": classification(recall_score),
    "f1": classification(f1_score),
    "mean |AP - oracle_ap|": mean_absolute_error,
}


def measure_signal(frame, measure, truth, signal):
    """(value, note, rows failed) of `measure` between columns `truth` and `signal`, on the signal's non-NaN rows."""
    if signal is None:
        return math.nan, "", 0
    values = frame[signal].to_numpy(dtype=float)
    scored = ~np.isnan(values)
    if not scored.any():
        return math.nan, "no scored rows", len(values)
    value, note = MEASURES[measure](frame[truth].to_numpy(dtype=float)[scored], values[scored])
    return float(value), note, int((~scored).sum())


def agreement(frame, dataset, target, note=""):
    """Table rows for one (dataset, label, measure): judge and baseline signals side by side."""
    label, measure, (judge_signals, baseline_signals) = target
    rows = []
    for judge_signal, baseline_signal in zip_longest(judge_signals, baseline_signals):
        judge, judge_note, failed = measure_signal(frame, measure, label, judge_signal)
        baseline, baseline_note, baseline_failed = measure_signal(frame, measure, label, baseline_signal)
        notes = [note] + [f"{who}: {text}" for who, text in (("judge", judge_note), ("baseline", baseline_note)) if text]
        rows.append(
            {
                "dataset": dataset,
                "label": label,
                "measure": measure,
                "judge signal": judge_signal or "",
                "judge": judge,
                "baseline signal": baseline_signal or "",
                "baseline": baseline,
                "n rows": len(frame),
                "n failed": failed,
                "baseline n failed": baseline_failed,
                "note": "; ".join(text for text in notes if text),
            }
        )
    return rows


def format_timing(timing):
    # cached verdicts make a rerun fast: say so beside the numbers
    cache = "result cache on" if timing["cache"] else "result cache off"
    return f"{timing['rows']} rows in {timing['seconds']:.1f} s ({timing['rows_per_second']:.2f} rows/s, {cache})"


def timed_compute(task, module, rows, **inputs):
    """The module's results on all rows, and the timing of the run (judge already loaded)."""
    metric = evaluate.load(str(REPOSITORY / module))
    start = time.perf_counter()
    results = metric.compute(**inputs, return_details=True, progress=True)
    seconds = time.perf_counter() - start
    timing = {"task": task, "rows": rows, "seconds": seconds, "rows_per_second": rows / seconds, "cache": inputs["cache"]}
    print(f"# {task}: {format_timing(timing)}", flush=True)
    return results, timing


def normalise_whitespace(text):
    return " ".join(text.split())


def mean_probability(units):
    """The soft score of a row's claims or questions (what `soft=True` returns), NaN for a row without any."""
    return float(np.mean([unit["p_yes"] for unit in units])) if units else math.nan


def sentence_rows(frame):
    """QAGS summary sentences with their majority vote, the probability of the claim with the same text
    (NaN when no claim has it), and the sentence's baseline signals."""
    records = []
    for row in frame[frame["dataset"].isin(["qags-cnndm", "qags-xsum"])].to_dict("records"):
        claims = {normalise_whitespace(claim["claim"]): claim["p_yes"] for claim in row["details"]["claims"]}
        for sentence, votes in zip(row["summary_sentences"], row["labels"]["sentence_votes"]):
            records.append(
                {
                    "id": row["id"],
                    "dataset": row["dataset"],
                    "sentence majority": float(sum(votes) >= 2),
                    "claim_p_yes": claims.get(normalise_whitespace(sentence), math.nan),
                    "unigram_precision": baselines.ngram_precision(sentence, row["source"], 1),
                    "bigram_precision": baselines.ngram_precision(sentence, row["source"], 2),
                }
            )
    return pd.DataFrame(
        records, columns=["id", "dataset", "sentence majority", "claim_p_yes", "unigram_precision", "bigram_precision"]
    )


def summary_agreement(frame, judge, args):
    """Scores the summaries; returns (table, per-row records, sentence records, timing)."""
    results, timing = timed_compute(
        "summaries",
        "summarization_score",
        len(frame),
        summary=list(frame["summary"]),
        contexts=[[source] for source in frame["source"]],
        judge=judge,
        extraction=args.extraction,
        max_questions=args.max_questions,
        final=args.final,
        cache=not args.no_cache,
    )
    for signal in ("scores", "qa_scores", "conciseness_scores", "alignment_scores", "coverage_scores"):
        frame[signal] = results[signal]
    frame["details"] = results["details"]
    frame["alignment_soft"] = [mean_probability(details["claims"]) for details in frame["details"]]
    frame["coverage_soft"] = [mean_probability(details["questions"]) for details in frame["details"]]
    frame["unigram_precision"] = [baselines.ngram_precision(s, t, 1) for s, t in zip(frame["summary"], frame["source"])]
    frame["bigram_precision"] = [baselines.ngram_precision(s, t, 2) for s, t in zip(frame["summary"], frame["source"])]
    frame["lead3_coverage"] = [baselines.lead_coverage(s, t) for s, t in zip(frame["summary"], frame["source"])]
    labelled = frame.join(pd.DataFrame(list(frame["labels"]), index=frame.index))

    rows = []
    for dataset, targets in SUMMARY_TARGETS.items():
        subset = labelled[labelled["dataset"] == dataset]
        if len(subset):
            rows += [row for target in targets for row in agreement(subset, dataset, target)]
    sentences = sentence_rows(frame)
    for dataset, subset in sentences.groupby("dataset", sort=False):
        matched = subset[subset["claim_p_yes"].notna()]
        note = f"claims matched {len(matched)} of {len(subset)} sentences"
        rows += agreement(matched, dataset, SENTENCE_TARGET, note)
    per_row = frame.drop(columns=["source", "summary", "reference", "summary_sentences"], errors="ignore")
    return pd.DataFrame(rows), per_row, sentences, timing


def chunk_rows(frame):
    """One record per chunk: `useful`, the judge's probability and verdict, the baseline's overlap and verdict.

    A row the judge failed has no probabilities: its chunks get NaN and count as failed.
    """
    records = []
    for row in frame.to_dict("records"):
        probabilities = row["verdicts"] if len(row["verdicts"]) == len(row["useful"]) else [math.nan] * len(row["useful"])
        overlap_verdicts = baselines.median_verdicts(row["overlaps"])
        for useful, probability, overlap, overlap_verdict in zip(row["useful"], probabilities, row["overlaps"], overlap_verdicts):
            records.append(
                {
                    "id": row["id"],
                    "dataset": row["dataset"],
                    "useful": float(useful),
                    "p_useful": probability,
                    "verdict >= 0.5": math.nan if math.isnan(probability) else float(is_yes(probability)),
                    "overlap": overlap,
                    "overlap >= row median": overlap_verdict,
                }
            )
    return pd.DataFrame(records)


def of_dataset(table, dataset):
    return table if dataset == POOLED else table[table["dataset"] == dataset]


def rag_agreement(frame, judge, args):
    """Scores the RAG rows; returns (table, per-row records, chunk records, timing)."""
    results, timing = timed_compute(
        "rag",
        "context_utilization",
        len(frame),
        question=list(frame["question"]),
        answer=list(frame["answer"]),
        contexts=list(frame["contexts"]),
        judge=judge,
        cache=not args.no_cache,
    )
    frame["scores"] = results["scores"]
    frame["verdicts"] = results["verdicts"]
    frame["details"] = results["details"]
    frame["overlaps"] = [
        [baselines.chunk_overlap(question, answer, chunk) for chunk in chunks]
        for question, answer, chunks in zip(frame["question"], frame["answer"], frame["contexts"])
    ]
    frame["overlap_ap"] = frame["overlaps"].map(baselines.overlap_average_precision)
    chunks = chunk_rows(frame)

    rows = []
    for dataset in [*frame["dataset"].unique(), POOLED]:
        rows += [row for target in CHUNK_TARGETS for row in agreement(of_dataset(chunks, dataset), dataset, target, "chunks")]
        rows += [row for target in ROW_TARGETS for row in agreement(of_dataset(frame, dataset), dataset, target)]
    per_row = frame.drop(columns=["question", "answer", "contexts", "meta"])
    return pd.DataFrame(rows), per_row, chunks, timing


def print_table(title, table):
    print(f"\n## {title}")
    with pd.option_context("display.width", 250, "display.max_columns", None, "display.max_colwidth", 70):
        print(table.to_string(index=False, float_format="{:.3f}".format))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/devset", help="folder with summaries.jsonl and rag.jsonl")
    parser.add_argument("--judge", required=True, help="judge name or path, as for localjudge.load_judge")
    parser.add_argument("--dtype", choices=("float32", "bfloat16"), help="judge dtype (default: the device's)")
    parser.add_argument("--limit", type=int, help="score only the first N rows of each dataset")
    parser.add_argument("--datasets", help="comma-separated dataset names (default: all)")
    parser.add_argument("--extraction", choices=EXTRACTIONS, default="sentences")
    parser.add_argument("--max-questions", type=int, default=None)
    parser.add_argument("--final", choices=FINALS, default="ragas", help="which summarization `scores` to correlate")
    parser.add_argument("--no-cache", action="store_true", help="do not reuse cached verdicts (honest timings)")
    parser.add_argument("--out", help="write all numbers and the per-row judge outputs to this JSON file")
    args = parser.parse_args()

    data = Path(args.data)
    datasets = args.datasets.split(",") if args.datasets else None
    summaries = load_rows(data / "summaries.jsonl", datasets, args.limit)
    rag = load_rows(data / "rag.jsonl", datasets, args.limit)
    if datasets:
        unknown = set(datasets) - set(summaries["dataset"]) - set(rag["dataset"])
        if unknown:
            parser.error(f"unknown datasets {sorted(unknown)}")

    judge = localjudge.load_judge(args.judge, dtype=args.dtype)
    print(f"# judge {judge!r}, prompts {localjudge.PROMPT_VERSION}, {vars(args)}", flush=True)
    report = {
        "arguments": vars(args),
        "judge": repr(judge),
        "prompt_version": localjudge.PROMPT_VERSION,
        # the calibration the probabilities were made with
        "settings": {task: judge_settings(judge, task) for task in DEFAULT_SETTINGS},
    }
    for task, rows, run in (("summaries", summaries, summary_agreement), ("rag", rag, rag_agreement)):
        if rows.empty:
            continue
        table, per_row, units, timing = run(rows, judge, args)
        print_table(f"{task}: judge {args.judge} vs lexical baseline", table)
        report[task] = {
            "timing": timing,
            "table": table.to_dict("records"),
            "rows": per_row.to_dict("records"),
            "sentences" if task == "summaries" else "chunks": units.to_dict("records"),
        }
    for timing in (report[task]["timing"] for task in ("summaries", "rag") if task in report):
        print(f"# timing {timing['task']}: {format_timing(timing)}")
    if args.out:
        with open(args.out, "w") as handle:
            # NaN stays NaN (Python's json reads it back); numpy scalars become Python numbers
            json.dump(report, handle, indent=1, default=lambda value: value.item())


if __name__ == "__main__":
    main()
