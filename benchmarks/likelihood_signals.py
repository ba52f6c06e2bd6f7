"""Likelihood signals of a judge's verdicts, chosen on one half of the dev set and reported on the other half.

Every summary claim (a summary sentence, as the metric splits it) is scored by the judge's token
log-probabilities given the whole source (`localjudge.prompts.LIKELIHOOD_PROMPTS["alignment"]`: the source as
evidence, the claim as the continuation) and given a baseline prefix without the source. Per claim, from the
per-token values:

`localjudge.verdicts.likelihood_signals` (mean log P(token | source), the mean, 10 % quantile and minimum of
the per-token gain over the baseline, the share of tokens the source does not make less likely) and linear
combinations of them (`COMBINATIONS`).

A summary's alignment is, as in Mastra, the share of its claims whose verdict is "supported" (value ≥ a
threshold), or with `soft=True` the mean verdict probability sigmoid(scale · (value − threshold)). Agreement
is Spearman with SummEval consistency and ROC-AUC with FRANK and QAGS `factual`, beside bigram precision of
the summary in the source (the baseline to beat) on the same rows.

Honest calibration: the rows are split in two halves by source article (articles that occur in two datasets
stay together). On each half the signal and its threshold are chosen by the mean agreement of the hard
alignment over the five sets; they are then measured on the *other* half. Both directions are printed beside
the in-sample numbers.

    python benchmarks/likelihood_signals.py --judge qwen2.5-coder-0.5b --features /tmp/faith_qwen05.json
    python benchmarks/likelihood_signals.py --features /tmp/faith_qwen05.json --analyse-only
    python benchmarks/likelihood_signals.py --task coverage --judge qwen2.5-coder-0.5b --features /tmp/cov_qwen05.json

With `--task coverage` the units are the source's lead sentences judged against the summary (SummEval
relevance, REALSumm coverage; baseline: lead-3 coverage); the last table measures the judge's shipped verdict.
"""

import argparse
import json
import math
import os
import re
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from agreement import half_of  # noqa: E402  (benchmarks/agreement.py)
from localjudge import baselines, load_judge  # noqa: E402
from localjudge.prompts import JUDGE_SETTINGS  # noqa: E402
from localjudge.summarization import DEFAULT_MAX_QUESTIONS, MAX_CLAIMS, fit_source  # noqa: E402
from localjudge.text import clean, split_sentences  # noqa: E402
from localjudge.verdicts import likelihood_pairs, likelihood_signals  # noqa: E402

# per task: dataset → (label, measure), and the lexical baseline of a row (summary, source)
TASKS = {
    "alignment": (
        {
            "summeval": ("consistency", "spearman"),
            "frank-cnndm": ("factual", "roc_auc"),
            "frank-xsum": ("factual", "roc_auc"),
            "qags-cnndm": ("factual", "roc_auc"),
            "qags-xsum": ("factual", "roc_auc"),
        },
        lambda summary, source: baselines.ngram_precision(summary, source, 2),
    ),
    "coverage": (
        {"summeval": ("relevance", "spearman"), "realsumm": ("coverage", "spearman")},
        baselines.lead_coverage,
    ),
}
TARGETS = {}  # the task's, set in main()
SIGNALS = ("cond_mean", "gain_mean", "gain_q10", "gain_min", "kept_share")
COMBINATIONS = {  # name → {signal: weight}, each signal standardised over all claims first
    "cond_mean+gain_q10": {"cond_mean": 1.0, "gain_q10": 1.0},
    "cond_mean+0.5gain_q10": {"cond_mean": 1.0, "gain_q10": 0.5},
    "cond_mean+gain_mean": {"cond_mean": 1.0, "gain_mean": 1.0},
    "cond_mean+gain_q10+kept": {"cond_mean": 1.0, "gain_q10": 1.0, "kept_share": 1.0},
}
THRESHOLD_QUANTILES = np.linspace(0.04, 0.96, 24)


def units(task, source, summary):
    """The task's likelihood items of one row, as the metric builds them (claims, or the lead source sentences)."""
    if task == "alignment":
        return [{"document": source, "claim": claim} for claim in split_sentences(summary)[:MAX_CLAIMS]]
    return [{"summary": summary, "fact": fact} for fact in split_sentences(source)[: DEFAULT_MAX_QUESTIONS["sentences"]]]


def compute_features(task, judge_name, data, dtype, batch_size, limit):
    judge = load_judge(judge_name, dtype=dtype)
    targets, baseline = TASKS[task]
    rows = [json.loads(line) for line in open(data)]
    rows = [row for row in rows if row["dataset"] in targets]
    if limit:
        rows = [row for row in rows if sum(r["dataset"] == row["dataset"] for r in rows[: rows.index(row)]) < limit]
    items, owners, records = [], [], []
    for row in rows:
        record = {"row": len(records), "warnings": []}
        source = fit_source(judge, clean(row["source"]), record, "source")
        records.append(
            {
                "id": row["id"],
                "dataset": row["dataset"],
                "half": half_of(row["doc_id"]),
                "label": row["labels"][targets[row["dataset"]][0]],
                "bigram": baseline(row["summary"], row["source"]),
                "claims": [],
            }
        )
        for item in units(task, source, clean(row["summary"])):
            items.append(item)
            owners.append(len(records) - 1)
    start = time.perf_counter()
    contexts, continuations = likelihood_pairs(judge, task, items)
    per_token = judge.token_logprobs(contexts, continuations, batch_size=batch_size, progress=True)
    seconds = time.perf_counter() - start
    assert len(contexts) == 2 * len(items), "the task's likelihood verdict has one term"
    for position, owner in enumerate(owners):
        with_source, without_source = per_token[2 * position], per_token[2 * position + 1]
        records[owner]["claims"].append(likelihood_signals(with_source, without_source))
    return {"task": task, "judge": repr(judge), "seconds": seconds, "claims": len(items), "rows": records}


def standardised(records):
    """Adds each combination's value to every claim (signals standardised over all claims)."""
    claims = [claim for record in records for claim in record["claims"]]
    stats = {s: (np.mean([c[s] for c in claims]), np.std([c[s] for c in claims]) or 1.0) for s in SIGNALS}
    for claim in claims:
        for name, weights in COMBINATIONS.items():
            claim[name] = sum(w * (claim[s] - stats[s][0]) / stats[s][1] for s, w in weights.items())
    return stats


def agreement(labels, values, measure):
    """Spearman or ROC-AUC; a constant signal ranks nothing: 0 for Spearman, 0.5 for ROC-AUC (chance)."""
    if len(set(labels)) < 2:
        return math.nan
    if len(set(values)) < 2:
        return 0.0 if measure == "spearman" else 0.5
    if measure == "spearman":
        return float(spearmanr(labels, values).statistic)
    return float(roc_auc_score(labels, values))


def alignment(record, signal, threshold, soft, scale):
    values = [claim[signal] for claim in record["claims"]]
    if not values:
        return 0.0
    if soft:
        return float(np.mean([1 / (1 + math.exp(-scale * (v - threshold))) for v in values]))
    return float(np.mean([v >= threshold for v in values]))


def table(records, signal, threshold, scale, kinds=("hard", "soft", "bigram")):
    """Per dataset: agreement of hard and soft alignment and of bigram precision."""
    out = {}
    for dataset, (_, measure) in TARGETS.items():
        rows = [r for r in records if r["dataset"] == dataset]
        labels = [r["label"] for r in rows]
        values = {
            "hard": lambda: [alignment(r, signal, threshold, False, scale) for r in rows],
            "soft": lambda: [alignment(r, signal, threshold, True, scale) for r in rows],
            "bigram": lambda: [r["bigram"] for r in rows],
        }
        out[dataset] = {"n": len(rows), **{kind: agreement(labels, values[kind](), measure) for kind in kinds}}
    return out


def mean_of(results, key):
    return float(np.nanmean([results[d][key] for d in TARGETS]))


def choose(records, candidates):
    """(signal, threshold, scale) with the best mean hard agreement over the five sets on `records`."""
    best = None
    for signal in candidates:
        values = [c[signal] for r in records for c in r["claims"]]
        scale = 1.0 / (np.std(values) or 1.0)
        for share in THRESHOLD_QUANTILES:
            threshold = float(np.quantile(values, share))
            score = mean_of(table(records, signal, threshold, scale, kinds=("hard",)), "hard")
            if best is None or score > best[0]:
                best = (score, signal, threshold, scale)
    return best[1:]


def analyse(report):
    records = report["rows"]
    standardised(records)
    candidates = list(SIGNALS) + list(COMBINATIONS)
    halves = [[r for r in records if r["half"] == h] for h in (0, 1)]
    print(f"{report['judge']}: {report['claims']} claims of {len(records)} summaries, {report['seconds']:.0f} s")
    # every signal, threshold chosen in-sample on all rows: which signals carry information
    lines = []
    for signal in candidates:
        threshold_signal, threshold, scale = choose(records, [signal])
        results = table(records, signal, threshold, scale)
        lines.append({"signal": signal, "threshold": round(threshold, 3),
                      **{f"{d} hard": round(results[d]["hard"], 3) for d in TARGETS},
                      **{f"{d} soft": round(results[d]["soft"], 3) for d in TARGETS},
                      "mean hard": round(mean_of(results, "hard"), 3), "mean soft": round(mean_of(results, "soft"), 3)})
    frame = pd.DataFrame(lines).set_index("signal")
    print("\nIn-sample (threshold chosen on all rows), per signal:")
    print(frame.to_string())
    bigram = table(records, candidates[0], 0.0, 1.0)
    print("bigram precision, all rows: " + ", ".join(f"{d} {bigram[d]['bigram']:.3f}" for d in TARGETS))
    # out of sample: choose signal + threshold on one half, report on the other
    print("\nOut of sample: signal and threshold chosen on one half, measured on the other")
    out = []
    for fit, test in ((0, 1), (1, 0)):
        signal, threshold, scale = choose(halves[fit], candidates)
        inside = table(halves[fit], signal, threshold, scale)
        outside = table(halves[test], signal, threshold, scale)
        for dataset in TARGETS:
            out.append({"fitted on": fit, "signal": signal, "threshold": round(threshold, 3), "dataset": dataset,
                        "n test": outside[dataset]["n"],
                        "hard in": round(inside[dataset]["hard"], 3), "hard out": round(outside[dataset]["hard"], 3),
                        "soft out": round(outside[dataset]["soft"], 3), "bigram out": round(outside[dataset]["bigram"], 3)})
    print(pd.DataFrame(out).to_string(index=False))
    shipped(report, halves)


def tuning_sets(records):
    """The datasets a threshold can be tuned on: a ROC-AUC set needs at least 5 rows of each class (FRANK XSum,
    2 faithful summaries of 48, is reported, never tuned on)."""
    usable = []
    for dataset, (_, measure) in TARGETS.items():
        labels = [r["label"] for r in records if r["dataset"] == dataset]
        if measure == "spearman" or min(sum(map(bool, labels)), sum(not label for label in labels)) >= 5:
            usable.append(dataset)
    return usable


def shipped(report, halves):
    """The judge's shipped signal (JUDGE_SETTINGS): its threshold chosen on one half, measured on the other."""
    name = re.match(r"Judge\('([^']+)'", report["judge"]).group(1)
    setting = JUDGE_SETTINGS.get(name, {}).get(report.get("task", "alignment"))
    if setting is None or setting.method != "likelihood":
        return
    for record in report["rows"]:
        for claim in record["claims"]:
            claim["shipped"] = sum(weight * claim[signal] for signal, weight in setting.signals.items())
    print(f"\nShipped signal {setting.signals}, offset {setting.offset}, scale {setting.scale}:")
    lines = []
    for fit, test in ((0, 1), (1, 0)):
        sets = tuning_sets(halves[fit])
        values = [c["shipped"] for r in halves[fit] for c in r["claims"]]
        best = max(
            (np.mean([table(halves[fit], "shipped", t, setting.scale, ("hard",))[d]["hard"] for d in sets]), t)
            for t in np.quantile(values, THRESHOLD_QUANTILES)
        )
        for label, threshold in ((f"chosen on half {fit}", best[1]), ("shipped offset", setting.offset)):
            results = table(halves[test], "shipped", threshold, setting.scale)
            lines.append({"measured on half": test, "threshold": f"{label}: {threshold:.2f}",
                          **{f"{d} hard/soft/baseline": "{hard:.3f} / {soft:.3f} / {bigram:.3f}".format(**results[d]) for d in TARGETS}})
    results = table(report["rows"], "shipped", setting.offset, setting.scale)
    lines.append({"measured on half": "all rows", "threshold": f"shipped offset: {setting.offset:.2f}",
                  **{f"{d} hard/soft/baseline": "{hard:.3f} / {soft:.3f} / {bigram:.3f}".format(**results[d]) for d in TARGETS}})
    print(pd.DataFrame(lines).to_string(index=False))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", choices=TASKS, default="alignment")
    parser.add_argument("--judge", default="qwen2.5-coder-0.5b")
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "devset" / "summaries.jsonl"))
    parser.add_argument("--dtype", default=None, help="default: the judge's (bf16 on CPUs that compute it natively)")
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--limit", type=int, help="only the first N rows of each dataset")
    parser.add_argument("--features", required=True, help="JSON file of per-claim features (written, or read)")
    parser.add_argument("--analyse-only", action="store_true", help="read --features instead of running the judge")
    args = parser.parse_args()
    if args.analyse_only:
        report = json.loads(Path(args.features).read_text())
    else:
        report = compute_features(args.task, args.judge, args.data, args.dtype, args.batch_size, args.limit)
        Path(args.features).write_text(json.dumps(report))
    TARGETS.update(TASKS[report.get("task", "alignment")][0])
    analyse(report)


if __name__ == "__main__":
    main()
