"""Decision thresholds of a judge, re-chosen from one `benchmarks/agreement.py` run without rerunning the judge.

`localjudge.prompts.JUDGE_SETTINGS` gives each judge a `Verdict` (method, scale, offset, signals) per task: the raw
value x of an item (logit P(yes) for "probability" verdicts, the weighted likelihood signals for "likelihood" ones) becomes the verdict
probability p = sigmoid(scale · (x − offset)) (`localjudge.maths.calibrate`), and the verdict is p ≥ 0.5, that
is x ≥ offset: the offset is the decision threshold. The `--out` JSON of `benchmarks/agreement.py` keeps every
item's p, so this script recovers x = offset + logit(p) / scale, recomputes the verdicts x ≥ t for other
thresholds t, rescores the rows with `localjudge.maths` and prints, per task, one table row per threshold:

* alignment (summary claims → `alignment_scores`): Spearman with SummEval consistency, ROC-AUC with FRANK and
  QAGS `factual`; on the QAGS summary sentences that a claim reproduces, balanced accuracy of the claim
  verdict against the annotators' majority;
* coverage (source questions → `coverage_scores`): Spearman with SummEval relevance and REALSumm coverage;
* utilization (retrieved chunks → average precision per row): F1 and balanced accuracy of the pooled chunk
  verdicts against `useful`; mean |AP − oracle_ap| per dataset and pooled.

The offset the run used is marked. After each table comes the threshold that is best on the task's main
measure (mean factual ROC-AUC; mean Spearman; pooled AP error). It is chosen on the very rows it is measured
on, so it flatters the judge: prefer a threshold that is good on every dataset, and confirm a change on rows
it was not tuned on. To adopt threshold t, set the task's offset to t in JUDGE_SETTINGS; the scale only
shapes the soft probabilities, never the verdicts.

    python benchmarks/calibration.py --results agreement.json --alignment -0.6 -0.28 0.0 --utilization 0.8 0.9
"""

import argparse
import json
import re
from functools import partial

import agreement  # benchmarks/agreement.py: the measures and tables of the run being recalibrated
import numpy as np
import pandas as pd
from sklearn.metrics import balanced_accuracy_score

from localjudge import PROMPT_VERSION, maths
from localjudge.prompts import DEFAULT_SETTINGS, JUDGE_SETTINGS, Verdict

# default candidates: the run's offset and this far either side of it, in equal steps
DEFAULT_SPAN = 0.6
DEFAULT_STEPS = 7
RAW_VALUE = {"probability": "logit P(yes)", "likelihood": "likelihood signals"}
RUN_MARK = "<- run"
BEST_NOTE = "best on this data (beware of tuning on the evaluation set)"
# per task: the measure a threshold is chosen on, and whether higher is better
MAIN_MEASURES = {
    "alignment": ("mean factual roc_auc", True),
    "coverage": ("mean spearman", True),
    "utilization": ("pooled mean |AP - oracle_ap|", False),
}


def run_settings(report):
    """(per task (method, scale, offset) of the run, where they come from)."""
    if "settings" in report:
        return {task: Verdict(*value) for task, value in report["settings"].items()}, "recorded in the results file"
    # older results files name the judge only in its repr, Judge('name', device=..., dtype=...)
    name = re.match(r"Judge\((['\"])(.*?)\1", report["judge"]).group(2)
    origin = f"not in the results file: today's JUDGE_SETTINGS of {name!r}, wrong if they changed since the run"
    return JUDGE_SETTINGS.get(name, DEFAULT_SETTINGS), origin


def raw_values(probabilities, settings):
    """The judge's raw values x = offset + logit(p) / scale, inverting maths.calibrate; NaN (no verdict) stays NaN.

    The identity calibration keeps p = P(yes), so x = logit(P(yes)) there as well; p is clipped as calibrate clips it.
    """
    p = np.clip(np.asarray(probabilities, dtype=float), 1e-12, 1 - 1e-12)
    return settings.offset + np.log(p / (1 - p)) / settings.scale


def verdicts(raw, threshold):
    """1.0 where x ≥ threshold, else 0.0; NaN is "no", as in maths.is_yes."""
    return list((np.asarray(raw, dtype=float) >= threshold).astype(float))


def row_scores(frame, column, threshold, score):
    """`score` of each row's verdicts at `threshold`; NaN for the rows the judge could not score."""
    rows = zip(frame["failed"], frame[column])
    return [np.nan if failed else score(verdicts(raw, threshold)) for failed, raw in rows]


def balanced_accuracy(truth, predicted):
    """sklearn's balanced accuracy; NaN where the labels have one class only (it would be that class's recall)."""
    return balanced_accuracy_score(truth, predicted) if len(set(truth)) > 1 else np.nan


def share_yes(raw_lists, threshold):
    return float(np.mean(verdicts(np.concatenate(list(raw_lists)), threshold)))


def summary_frames(summaries, settings):
    """Per summary row: labels, whether it failed, and the raw values of its claims and questions; per QAGS
    sentence: the majority vote and the raw value of the claim that reproduces it (NaN where none does)."""
    frame = pd.DataFrame(summaries["rows"])
    frame = frame.join(pd.DataFrame(list(frame["labels"]), index=frame.index))
    frame["failed"] = [details["error"] is not None for details in frame["details"]]
    for task, units, column in (("alignment", "claims", "claim_x"), ("coverage", "questions", "question_x")):
        p_yes = [[unit["p_yes"] for unit in details[units]] for details in frame["details"]]
        frame[column] = [raw_values(probabilities, settings[task]) for probabilities in p_yes]
    sentences = pd.DataFrame(summaries["sentences"], columns=["dataset", "sentence majority", "claim_p_yes"])
    return frame, sentences.assign(claim_x=raw_values(sentences["claim_p_yes"], settings["alignment"]))


def summary_targets(signal):
    """(dataset, label, measure) of agreement.SUMMARY_TARGETS that measure `signal`."""
    return [
        (dataset, label, measure)
        for dataset, targets in agreement.SUMMARY_TARGETS.items()
        for label, measure, (judge_signals, _) in targets
        if signal in judge_signals
    ]


def summary_measures(frame, signal):
    """{"dataset label measure": value} of the per-row `signal` column, for the datasets in the run."""
    values = {}
    for dataset, label, measure in summary_targets(signal):
        subset = frame[frame["dataset"] == dataset]
        if len(subset):
            values[f"{dataset} {label} {measure}"] = agreement.measure_signal(subset, measure, label, signal)[0]
    return values


def alignment_measures(frame, sentences, threshold):
    frame = frame.assign(alignment_scores=row_scores(frame, "claim_x", threshold, maths.alignment_score))
    values = summary_measures(frame, "alignment_scores")
    values["mean factual roc_auc"] = np.mean([value for name, value in values.items() if " factual " in name])
    for dataset, subset in sentences[sentences["claim_x"].notna()].groupby("dataset", sort=False):
        verdict = verdicts(subset["claim_x"], threshold)
        values[f"{dataset} sentences balanced_accuracy"] = balanced_accuracy(subset["sentence majority"], verdict)
    values["share yes"] = share_yes(frame["claim_x"], threshold)
    return values


def coverage_measures(frame, threshold):
    def answered(verdict):
        return maths.coverage_score(verdict, len(verdict))

    frame = frame.assign(coverage_scores=row_scores(frame, "question_x", threshold, answered))
    values = summary_measures(frame, "coverage_scores")
    values["mean spearman"] = np.mean(list(values.values()))
    values["share yes"] = share_yes(frame["question_x"], threshold)
    return values


def rag_frames(rag, settings):
    """Per RAG row: whether it failed and its chunks' raw values; per chunk the judge scored: `useful` and raw value."""
    frame = pd.DataFrame(rag["rows"])
    frame["failed"] = [details["error"] is not None for details in frame["details"]]
    frame["chunk_x"] = [raw_values(probabilities, settings) for probabilities in frame["verdicts"]]
    chunks = pd.DataFrame(rag["chunks"])
    chunks = chunks[chunks["p_useful"].notna()]
    return frame, chunks.assign(x=raw_values(chunks["p_useful"], settings))


def utilization_measures(frame, chunks, threshold):
    chunks = chunks.assign(verdict=verdicts(chunks["x"], threshold))
    values = {
        "pooled chunks f1": agreement.measure_signal(chunks, "f1", "useful", "verdict")[0],
        "pooled chunks balanced_accuracy": balanced_accuracy(chunks["useful"], chunks["verdict"]),
    }
    frame = frame.assign(scores=row_scores(frame, "chunk_x", threshold, maths.average_precision))
    error = "mean |AP - oracle_ap|"
    for dataset in [*frame["dataset"].unique(), agreement.POOLED]:
        subset = agreement.of_dataset(frame, dataset)
        values[f"{dataset} {error}"] = agreement.measure_signal(subset, error, "oracle_ap", "scores")[0]
    values["share yes"] = float(chunks["verdict"].mean())
    return values


def candidates(offset, thresholds):
    """The given thresholds (default: a grid around `offset`) and `offset` itself, sorted."""
    if thresholds is None:
        thresholds = np.linspace(offset - DEFAULT_SPAN, offset + DEFAULT_SPAN, DEFAULT_STEPS)
    # rounded, so that grid points and the offset compare equal
    return sorted({round(float(value), 6) for value in [*thresholds, offset]})


def sweep(thresholds, offset, measures):
    """One table row of `measures(threshold)` per threshold; the run's own offset is marked."""
    rows = [{"threshold": t, **measures(t), "": RUN_MARK if t == round(offset, 6) else ""} for t in thresholds]
    return pd.DataFrame(rows)


def best_thresholds(table, measure, higher_is_better):
    """The thresholds with the best value of `measure` (ties are all listed), or [] where it is never defined."""
    values = table[measure]
    if values.isna().all():
        return []
    best = values.max() if higher_is_better else values.min()
    return list(table.loc[np.isclose(values, best), "threshold"])


def print_best(task, table, offset):
    measure, higher_is_better = MAIN_MEASURES[task]
    best = best_thresholds(table, measure, higher_is_better)
    if not best:
        print(f"{task}: {measure} is undefined at every threshold")
        return
    best_value = table.loc[table["threshold"] == best[0], measure].iloc[0]
    run_value = table.loc[table[""] == RUN_MARK, measure].iloc[0]
    listed = ", ".join(f"{t:g}" for t in best)
    comparison = f"{measure} {best_value:.3f}; the run's {offset:g}: {run_value:.3f}"
    print(f"{task}: {BEST_NOTE}: threshold {listed} ({comparison})")


def two_fold(thresholds, offset, task, measures_of_half):
    """Thresholds chosen on one half of the rows and measured on the other, both ways round.

    Per direction: the threshold best on the fitting half (main measure), its value there (in-sample) and on
    the other half (out of sample), beside the other half's own best and the run's offset on that half.
    """
    measure, higher_is_better = MAIN_MEASURES[task]
    tables = [sweep(thresholds, offset, measures_of_half[half]) for half in (0, 1)]
    rows = []
    for fit, test in ((0, 1), (1, 0)):
        chosen = best_thresholds(tables[fit], measure, higher_is_better)
        if not chosen:
            continue
        value = {name: table.set_index("threshold")[measure] for name, table in (("fit", tables[fit]), ("test", tables[test]))}
        test_best = best_thresholds(tables[test], measure, higher_is_better)
        rows.append(
            {
                "fitted on half": fit,
                "threshold": chosen[0],
                f"in-sample ({measure})": value["fit"][chosen[0]],
                "out of sample": value["test"][chosen[0]],
                "other half's own best": value["test"][test_best[0]] if test_best else np.nan,
                "run's offset, other half": value["test"][round(offset, 6)],
            }
        )
    return pd.DataFrame(rows)


def halves(frame, article_of):
    """`frame` split into the two halves of agreement.half_of, by the article each row comes from."""
    half = frame.apply(lambda row: agreement.half_of(article_of(row)), axis=1) if len(frame) else frame.index
    return [frame[half == h] for h in (0, 1)]


def print_notes(summaries, sentences, rag, chunks):
    """What the tables leave out, so that no row is dropped silently."""
    for name, frame in (("summary", summaries), ("RAG", rag)):
        if frame is not None and frame["failed"].any():
            print(f"# {frame['failed'].sum()} {name} rows the judge could not score are left out of the measures")
    if sentences is not None and len(sentences):
        counts = sentences.groupby("dataset", sort=False)["claim_x"].agg(["count", "size"])
        matched = ", ".join(f"{dataset} {n} of {size}" for dataset, (n, size) in counts.iterrows())
        print(f"# QAGS sentences reproduced by a claim: {matched}")
    if chunks is not None:
        print(f"# share of useful chunks (labels): {chunks['useful'].mean():.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True, help="the --out JSON file of benchmarks/agreement.py")
    for task in MAIN_MEASURES:
        parser.add_argument(
            f"--{task}",
            nargs="+",
            type=float,
            metavar="T",
            help=f"{task} thresholds on the raw value, space-separated (default: the run's offset ± {DEFAULT_SPAN} "
            f"in {DEFAULT_STEPS} steps); the run's offset is always added",
        )
    parser.add_argument(
        "--halves",
        action="store_true",
        help="also choose each threshold on one half of the articles and report it on the other (both ways round)",
    )
    args = parser.parse_args()
    with open(args.results) as handle:
        report = json.load(handle)

    settings, origin = run_settings(report)
    print(f"# {report['judge']}, prompts {report['prompt_version']} (today {PROMPT_VERSION}), results {args.results}")
    print(f"# settings {origin}: {settings}")
    summaries = sentences = rag = chunks = None
    sweeps = []  # (task, measures on given rows, the rows: all, then each half with --halves)
    if "summaries" in report:
        summaries, sentences = summary_frames(report["summaries"], settings)
        parts = [(summaries, sentences)]
        if args.halves:
            article_of_row = dict(zip(summaries["id"], summaries["doc_id"]))
            parts += zip(halves(summaries, lambda row: row["doc_id"]), halves(sentences, lambda row: article_of_row[row["id"]]))
        sweeps += [
            ("alignment", [partial(alignment_measures, frame, units) for frame, units in parts]),
            ("coverage", [partial(coverage_measures, frame) for frame, _ in parts]),
        ]
    if "rag" in report:
        rag, chunks = rag_frames(report["rag"], settings["utilization"])
        parts = [(rag, chunks)]
        if args.halves:
            parts += zip(*(halves(frame, lambda row: row["id"]) for frame in (rag, chunks)))
        sweeps.append(("utilization", [partial(utilization_measures, frame, units) for frame, units in parts]))
    print_notes(summaries, sentences, rag, chunks)

    for task, (measures, *measures_of_half) in sweeps:
        method, scale, offset, _ = settings[task]
        thresholds = candidates(offset, getattr(args, task))
        table = sweep(thresholds, offset, measures)
        agreement.print_table(f"{task}: verdict = {RAW_VALUE[method]} >= threshold (scale {scale:g})", table)
        print_best(task, table, offset)
        if measures_of_half:
            agreement.print_table(
                f"{task}: threshold chosen on one half of the articles, measured on the other",
                two_fold(thresholds, offset, task, measures_of_half),
            )

if __name__ == "__main__":
    main()
