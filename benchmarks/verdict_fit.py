"""Fit the shipped verdicts on the pooled development set and measure them out-of-fold.

Pooled dev set (../shared/devset): the news summaries (SummEval, FRANK, QAGS; REALSumm has no faithfulness
label), `plain_pairs.jsonl` (each source with a faithful and a wrong summary), the RAG rows (HotpotQA, MuSiQue)
and `plain_rag.jsonl`. The judge's signals of every claim (against every window of its source) and every chunk
come from `localjudge.calibration` (the module's own code path); the judge's outputs go to the result cache,
so a second run only refits. Folds are by source article (`devset.article_group`: the articles shared by two
datasets kept together): every number printed for a row comes from a model fitted without its
source. The last section prints the settings fitted on all rows, for `localjudge/prompts.py`.

    python benchmarks/verdict_fit.py                  # all of it (the 0.5B judge, the machine's default dtype)
    python benchmarks/verdict_fit.py --plain-only     # the plain-data figures alone (minutes)
"""

import argparse
import os
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from devset import article_group, records as read  # noqa: E402  (benchmarks/devset.py)
from localjudge import baselines, calibration, load_judge  # noqa: E402
from localjudge.text import split_sentences  # noqa: E402
from localjudge.maths import average_precision  # noqa: E402

FACTUAL_SETS = ("summeval", "frank-cnndm", "frank-xsum", "qags-cnndm", "qags-xsum")


def summary_label(row):
    """1 faithful, 0 not, None left out of the fit (SummEval 4.0–4.9: experts disagree)."""
    labels = row["labels"]
    if row["dataset"] == "summeval":
        return 1 if labels["consistency"] == 5.0 else 0 if labels["consistency"] < 4.0 else None
    return labels["factual"]


def summary_rows(args):
    """One record per summary: dataset, source, summary, fit label (a number, or per-claim list), group."""
    records = []
    if not args.plain_only:
        for row in read("summaries.jsonl", args.limit):
            if row["dataset"] not in FACTUAL_SETS:
                continue
            records.append({**row, "fit_label": summary_label(row), "group": article_group(row["doc_id"]), "pair": None})
    for row in read("plain_pairs.jsonl", args.limit):
        for kind in ("faithful", "wrong"):
            records.append(
                {
                    "id": f"{row['id']}-{kind}", "dataset": "plain", "language": row["language"], "kind": kind,
                    "source": row["source"], "summary": row[kind], "faithful": row["faithful"],
                    "fit_label": int(kind == "faithful"), "group": article_group(row["id"]), "pair": row["id"],
                }
            )
    return records


def claim_labels(record, claims):
    """Per-claim labels where the data has them: a wrong plain summary's claims that also occur in its faithful
    one are supported and the changed one is not; QAGS summary sentences carry the annotators' majority."""
    if record["dataset"] == "plain" and record["kind"] == "wrong":
        faithful = set(split_sentences(record["faithful"]))
        return [1 if claim in faithful else 0 for claim in claims]
    if record["dataset"].startswith("qags"):
        majority = {
            " ".join(sentence.split()): int(sum(votes) >= 2)
            for sentence, votes in zip(record["summary_sentences"], record["labels"]["sentence_votes"])
        }
        labels = [majority.get(" ".join(claim.split())) for claim in claims]
        if all(label is not None for label in labels):
            return labels
    return record["fit_label"]


def dataset_weights(datasets):
    """Each dataset counts as much as the others in the fit, whatever its size."""
    sizes = pd.Series(datasets).value_counts()
    return [len(datasets) / (len(sizes) * sizes[name]) for name in datasets]


def alignment_section(judge, args):
    records = summary_rows(args)
    start = calibration.likelihood_setting(judge, "alignment")
    start = start._replace(window_tokens=args.window_tokens or start.window_tokens)
    started = time.time()
    claims, signals = calibration.claim_signals(
        judge, [r["summary"] for r in records], [r["source"] for r in records], start, progress=True
    )
    seconds = time.time() - started
    labels = [claim_labels(record, texts) for record, texts in zip(records, claims)]
    weights = dataset_weights([r["dataset"] for r in records])

    def fit(train):
        return calibration.fit_alignment(
            [signals[i] for i in train], [labels[i] for i in train], [weights[i] for i in train], start
        )

    def predict(setting, index):
        return [calibration.claim_probability(setting, windows) for windows in signals[index]]

    predicted = calibration.out_of_fold([r["group"] for r in records], fit, predict, len(records))
    frame = pd.DataFrame(
        {
            "dataset": [r["dataset"] for r in records],
            "hard": [np.mean([p >= 0.5 for p in ps]) if ps else 0.0 for ps in predicted],
            "soft": [np.mean(ps) if ps else 0.0 for ps in predicted],
            "shipped": [np.mean([p >= 0.5 for p in predict(start, i)]) if signals[i] else 0.0 for i in range(len(records))],
            "shipped soft": [np.mean(predict(start, i)) if signals[i] else 0.0 for i in range(len(records))],
            "bigram": [baselines.ngram_precision(r["summary"], r["source"], 2) for r in records],
        }
    )
    print(
        f"\n## Alignment: {len(records)} summaries, {sum(map(len, claims))} claims, windows of at most "
        f"{start.window_tokens} tokens, judge time {seconds:.0f} s"
    )
    report_news(frame, records)
    report_plain(frame, records)
    report_plain_signals(records, signals, labels, start)
    return fit(list(range(len(records))))


def report_news(frame, records):
    lines = []
    for dataset in FACTUAL_SETS:
        part = frame[frame.dataset == dataset]
        if part.empty:
            continue
        if dataset == "summeval":
            truth = [r["labels"]["consistency"] for r in records if r["dataset"] == dataset]
            measure = lambda column: spearmanr(truth, part[column]).statistic  # noqa: E731
            name = "Spearman consistency"
        else:
            truth = [r["labels"]["factual"] for r in records if r["dataset"] == dataset]
            measure = lambda column: roc_auc_score(truth, part[column])  # noqa: E731
            name = "ROC-AUC factual"
        lines.append(
            {"dataset": dataset, "measure": name, "rows": len(part), "hard (out-of-fold)": measure("hard"),
             "soft (out-of-fold)": measure("soft"), "shipped settings": measure("shipped"), "bigram": measure("bigram")}
        )
    if lines:
        print(pd.DataFrame(lines).round(3).to_string(index=False))


def report_plain(frame, records):
    pairs = {}
    for index, record in enumerate(records):
        if record["pair"]:
            pairs.setdefault(record["pair"], {"language": record["language"]})[record["kind"]] = frame.iloc[index]
    table = pd.DataFrame(
        [
            {
                "language": pair["language"],
                "hard right": pair["faithful"]["hard"] == 1.0 and pair["wrong"]["hard"] < 1.0,
                "faithful = 1": pair["faithful"]["hard"] == 1.0,
                "soft ranks": pair["faithful"]["soft"] > pair["wrong"]["soft"],
                "shipped: hard right": pair["faithful"]["shipped"] == 1.0 and pair["wrong"]["shipped"] < 1.0,
                "shipped: faithful = 1": pair["faithful"]["shipped"] == 1.0,
                "shipped: soft ranks": pair["faithful"]["shipped soft"] > pair["wrong"]["shipped soft"],
            }
            for pair in pairs.values()
        ]
    )
    summary = table.groupby("language").agg(["sum", "count"])
    print(f"\nplain pairs (out-of-fold), {len(table)} pairs: hard right {table['hard right'].sum()}/{len(table)}, "
          f"faithful = 1 {table['faithful = 1'].sum()}, soft ranks {table['soft ranks'].sum()}/{len(table)}, "
          f"shipped settings: hard right {table['shipped: hard right'].sum()}, faithful = 1 "
          f"{table['shipped: faithful = 1'].sum()}, soft ranks {table['shipped: soft ranks'].sum()}")
    print(summary.xs("sum", axis=1, level=1).assign(pairs=summary.xs("count", axis=1, level=1).iloc[:, 0]).to_string())


def report_plain_signals(records, signals, labels, start):
    """Why one threshold does not transfer: per signal, how well it separates supported from unsupported claims
    across the plain pairs (claim-level ROC-AUC), and the most pairs any single threshold on it gets right
    (faithful 1, wrong < 1), chosen on these very pairs. A claim's signals are those of its best window."""
    claims = []  # (pair, kind, label, signals)
    for record, windows_of_claims, label in zip(records, signals, labels):
        if record["pair"]:
            per_claim = label if isinstance(label, list) else [label] * len(windows_of_claims)
            for windows, value in zip(windows_of_claims, per_claim):
                best = windows[calibration.best_window(start, windows)[1]]
                claims.append((record["pair"], record["kind"], value, best))
    lines = []
    for name in calibration.feature_names("alignment"):
        values = [values[name] for *_, values in claims]
        right = 0
        for threshold in sorted(set(values)):
            verdicts = {}
            for (pair, kind, _, _), value in zip(claims, values):
                verdicts.setdefault(pair, {}).setdefault(kind, []).append(value >= threshold)
            right = max(right, sum(all(v["faithful"]) and not all(v["wrong"]) for v in verdicts.values()))
        auc = roc_auc_score([label for _, _, label, _ in claims], values)
        lines.append({"signal": name, "claim ROC-AUC": auc, "pairs right, best single threshold (in-sample)": right})
    print(f"\nplain claims: {len(claims)}; each signal alone")
    print(pd.DataFrame(lines).round(3).to_string(index=False))


def rag_section(judge, args):
    rows = [] if args.plain_only else [dict(r, source="news") for r in read("rag.jsonl", args.limit)]
    rows += [dict(r, dataset="plain-rag", source="plain") for r in read("plain_rag.jsonl", args.limit)]
    started = time.time()
    signals = calibration.chunk_signals(
        judge, [r["question"] for r in rows], [r["answer"] for r in rows], [r["contexts"] for r in rows], progress=True
    )
    seconds = time.time() - started
    labels = [[int(u) for u in r["useful"]] for r in rows]
    weights = dataset_weights([r["source"] for r in rows])
    start = calibration.likelihood_setting(judge, "utilization")

    def predict(setting, index):
        return [calibration.verdict_probability(setting, values) for values in signals[index]]

    predicted = calibration.out_of_fold(
        [article_group(r["id"]) for r in rows],
        lambda train: calibration.fit_utilization([signals[i] for i in train], [labels[i] for i in train], [weights[i] for i in train]),
        predict,
        len(rows),
    )
    print(f"\n## Context utilization: {len(rows)} rows, {sum(map(len, labels))} chunks, judge time {seconds:.0f} s")
    lines = []
    for source in ("news", "plain"):
        chosen = [i for i, r in enumerate(rows) if r["source"] == source]
        if not chosen:
            continue
        truth = [u for i in chosen for u in labels[i]]
        for name, scores in (("out-of-fold", predicted), ("shipped settings", [predict(start, i) for i in range(len(rows))])):
            flat = [p for i in chosen for p in scores[i]]
            aps = [average_precision([float(p >= 0.5) for p in scores[i]]) for i in chosen]
            oracle = [average_precision([float(u) for u in labels[i]]) for i in chosen]
            lines.append(
                {"data": source, "verdicts": name, "chunks": len(truth), "chunk ROC-AUC": roc_auc_score(truth, flat),
                 "hard accuracy": np.mean([(p >= 0.5) == bool(u) for p, u in zip(flat, truth)]),
                 "share useful": np.mean([p >= 0.5 for p in flat]),
                 "mean |AP - oracle|": np.mean(np.abs(np.array(aps) - np.array(oracle)))}
            )
        overlap = [baselines.chunk_overlap(rows[i]["question"], rows[i]["answer"], c) for i in chosen for c in rows[i]["contexts"]]
        lines.append({"data": source, "verdicts": "word overlap", "chunks": len(truth), "chunk ROC-AUC": roc_auc_score(truth, overlap)})
    print(pd.DataFrame(lines).round(3).to_string(index=False))
    return calibration.fit_utilization(signals, labels, weights)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", default="qwen2.5-coder-0.5b")
    parser.add_argument("--dtype", default=None, help="float32 or bfloat16 (default: the machine's default)")
    parser.add_argument("--plain-only", action="store_true", help="only the plain pairs and plain RAG rows")
    parser.add_argument("--limit", type=int, default=None, help="first N rows of each file (a quick check)")
    parser.add_argument("--task", choices=("alignment", "utilization", "both"), default="both")
    parser.add_argument("--window-tokens", type=int, default=None, help="source windows of at most N tokens (default: the judge's setting)")
    args = parser.parse_args()
    judge = load_judge(args.judge, dtype=args.dtype)
    print(f"# {judge!r}; folds by source: {calibration.FOLDS}")
    fitted = {}
    if args.task in ("alignment", "both"):
        fitted["alignment"] = alignment_section(judge, args)
    if args.task in ("utilization", "both"):
        fitted["utilization"] = rag_section(judge, args)
    print("\n## Settings fitted on all rows (for localjudge/prompts.py)")
    for task, setting in fitted.items():
        signals = {name: round(value, 4) for name, value in setting.signals.items()}
        print(f'"{task}": Verdict("likelihood", 1.0, {setting.offset:.4f}, {signals}, {setting.window_tokens}),')


if __name__ == "__main__":
    main()
