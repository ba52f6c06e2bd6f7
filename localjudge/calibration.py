"""Verdict settings fitted to labelled rows: the shipped ones (benchmarks/verdict_fit.py) and a user's own
(`calibrate`).

No fixed threshold fits every domain (SummaC and FFLM pick one per dataset). A verdict here is a logistic model
over the judge's likelihood signals (`verdicts.TOKEN_SIGNALS` of each field; for chunks also relative to the
other chunks of the row), fitted with scikit-learn: Platt scaling, so a verdict probability is calibrated and
0.5 means 0.5. A claim is judged against every window of its source and keeps its best window's probability,
so the fit alternates: pick each claim's best window under the current model, refit (twice).

Labels: per claim where known (`claim_labels`), else per summary: every claim of a faithful summary is
supported; of an unfaithful one, the claim the judge finds least supported is not, and its other claims are
left out (one error is enough to make a summary unfaithful). Per chunk for context utilization.
"""

import math

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, roc_auc_score
from sklearn.model_selection import GroupKFold
from sklearn.preprocessing import StandardScaler

from . import learned
from .judges.registry import DEFAULT_JUDGE, load_judge
from .prompts import Verdict, tuned_alignment
from .settings import save_settings
from .summarization import as_contexts, source_units
from .text import answer_text, claim_sentences, clean, read_source
from .verdicts import (
    LEARNED_METHODS, RAW_SIGNAL, TOKEN_SIGNALS, can_give, item_signals, item_verdict, judge_settings, preselect,
    stateless_setting, verdict_probability,
)

# per task: the fields whose signals a verdict reads
FIELDS = {"alignment": ("claim",), "utilization": ("question", "answer")}
TASKS = {"summarization_score": "alignment", "context_utilization": "utilization"}
REQUIRED = {"alignment": ("summary", "contexts", "label"), "utilization": ("question", "answer", "contexts", "useful")}
MIN_ROWS = 20
MIN_PER_CLASS = 5
FOLDS = 5
# a weak L2 penalty: a few dozen rows must not let one signal's coefficient run away
REGULARISATION = 1.0


# signals that differ between the chunks of one row, compared with the row's best (the baseline and the lengths
# are the same for every chunk of a row, so their relative values say nothing)
RELATIVE_SIGNALS = ("gain_mean", "gain_q10", "kept_share", "explained")


def feature_names(task: str):
    names = [f"{field}_{signal}" for field in FIELDS[task] for signal in TOKEN_SIGNALS]
    if task == "utilization":
        names += [f"rel_{field}_{signal}" for field in FIELDS[task] for signal in RELATIVE_SIGNALS]
    return names


def likelihood_setting(judge, task) -> Verdict:
    """The judge's setting for `task` when it is a likelihood one (where the shipped one is learned, the one it gives
    without it: `verdicts.stateless_setting`), else a likelihood setting with its window."""
    setting = judge_settings(judge, task)
    setting = stateless_setting(judge, task) if setting.method in LEARNED_METHODS else setting
    return setting if setting.method == "likelihood" else Verdict("likelihood", window_tokens=1024)


# ------------------------------------------------------------------ signals of labelled rows
def claim_signals(judge, summaries, contexts, setting=None, batch_size=None, cache=True, progress=None):
    """Per summary, its claims as the pipeline splits them, each a list of signal dicts (one per source window the
    setting judges the claim against: `verdicts.preselect`), read as `setting` does (default: the judge's
    likelihood setting)."""
    setting = setting or likelihood_setting(judge, "alignment")
    items, owners, claims = [], [], []
    for index, (summary, row_contexts) in enumerate(zip(summaries, contexts)):
        source = read_source(clean("\n".join(as_contexts(row_contexts))))
        documents = source_units(judge, source, {"alignment": setting})["documents"]
        texts = claim_sentences(clean(summary))
        claims.append(texts)
        for claim in texts:
            items.append({"document": documents, "claim": claim})
            owners.append(index)
    items, _ = preselect(items, setting.top_windows)
    signals, item_of = item_signals(judge, "alignment", items, setting, None, batch_size, cache, progress)
    per_item = [[] for _ in items]
    for values, item in zip(signals, item_of):
        per_item[item].append(values)
    per_row = [[] for _ in summaries]
    for owner, windows in zip(owners, per_item):
        per_row[owner].append(windows)
    return claims, per_row


def chunk_signals(judge, questions, answers, contexts, setting=None, batch_size=None, cache=True, progress=None):
    """Per row, per chunk, the signal dict of the chunk's usefulness, read as `setting` does (default: the
    judge's likelihood setting)."""
    setting = setting or likelihood_setting(judge, "utilization")
    items, groups = [], []
    for index, (question, answer, chunks) in enumerate(zip(questions, answers, contexts)):
        for chunk in chunks:
            items.append({"question": clean(question), "answer": answer_text(answer), "context": read_source(clean(chunk))})
            groups.append(index)
    signals, _ = item_signals(judge, "utilization", items, setting, groups, batch_size, cache, progress)
    per_row, position = [[] for _ in questions], 0
    for index, chunks in enumerate(contexts):
        per_row[index] = signals[position : position + len(chunks)]
        position += len(chunks)
    return per_row


# ------------------------------------------------------------------ the model
def as_matrix(signals, names):
    return np.array([[values.get(name, math.nan) for name in names] for values in signals], dtype=float)


def fit_logistic(features, labels, weights, names) -> Verdict:
    """A logistic model (standardised signals, balanced classes) folded back into a `Verdict` on raw signals."""
    usable = ~np.isnan(features).any(axis=1)
    features, labels, weights = features[usable], np.asarray(labels)[usable], np.asarray(weights)[usable]
    scaler = StandardScaler().fit(features)
    scaler.scale_[scaler.scale_ == 0] = 1.0
    model = LogisticRegression(C=REGULARISATION, class_weight="balanced", max_iter=1000)
    model.fit(scaler.transform(features), labels, sample_weight=weights)
    coefficients = model.coef_[0] / scaler.scale_
    intercept = model.intercept_[0] - float(np.dot(coefficients, scaler.mean_))
    return Verdict("likelihood", 1.0, -intercept, {name: float(c) for name, c in zip(names, coefficients)})


def best_window(setting: Verdict, windows):
    """(a claim's probability, which window gave it), as the metric takes it (`verdicts.item_verdict`): its best
    window's, or with the setting's `top_windows` (`windows` best first) the first window that supports it (NaN only
    when no window could be scored)."""
    return item_verdict([verdict_probability(setting, values) for values in windows], bool(setting.top_windows))


def claim_probability(setting: Verdict, windows) -> float:
    return best_window(setting, windows)[0]


def claim_training_set(claims, labels, setting):
    """(window signals, label) per claim with a label: per-claim labels as given; a summary label (one number in
    place of the claim list) marks all claims of a faithful summary, and the least supported claim of an
    unfaithful one."""
    chosen = []
    for windows_of_claims, label in zip(claims, labels):
        if not windows_of_claims:
            continue
        if isinstance(label, (list, tuple)):
            chosen += [(windows, value) for windows, value in zip(windows_of_claims, label) if value is not None]
        elif label == 1:
            chosen += [(windows, 1) for windows in windows_of_claims]
        elif label == 0:
            worst = min(windows_of_claims, key=lambda windows: _or_high(claim_probability(setting, windows)))
            chosen.append((worst, 0))
    return chosen


def _or_high(value):
    return math.inf if math.isnan(value) else value


def fit_alignment(claims, labels, weights, start: Verdict, names=None) -> Verdict:
    """Fit the claim verdict over `names` (default: every signal): each claim's best window under the current
    model, refitted twice from `start`."""
    names, setting = names or feature_names("alignment"), start
    for _ in range(3):
        rows, targets, row_weights = [], [], []
        for (windows, label), weight in _weighted(claims, labels, weights, setting):
            rows.append(windows[best_window(setting, windows)[1]])
            targets.append(label)
            row_weights.append(weight)
        fitted = fit_logistic(as_matrix(rows, names), targets, row_weights, names)
        setting = fitted._replace(window_tokens=start.window_tokens)
    return setting


def _weighted(claims, labels, weights, setting):
    for windows_of_claims, label, weight in zip(claims, labels, weights):
        for pair in claim_training_set([windows_of_claims], [label], setting):
            yield pair, weight


def fit_utilization(chunks, labels, weights, names=None) -> Verdict:
    names = names or feature_names("utilization")
    signals = [values for row in chunks for values in row]
    targets = [label for row in labels for label in row]
    chunk_weights = [weight for row, weight in zip(chunks, weights) for _ in row]
    return fit_logistic(as_matrix(signals, names), targets, chunk_weights, names)


def out_of_fold(groups, fit, predict, count, folds=FOLDS):
    """Per index, `predict(model, index)` from a model `fit(train indices)` on the other folds: folds by `groups`
    (rows of one source stay together), at most `folds` of them."""
    predictions = [None] * count
    splitter = GroupKFold(n_splits=min(folds, len(set(groups))))
    for train, test in splitter.split(np.zeros(count), groups=groups):
        model = fit(list(train))
        for index in test:
            predictions[index] = predict(model, index)
    return predictions


# ------------------------------------------------------------------ fitting a user's own labels
# per task, the measure of the decisions a candidate is chosen on
DECISION_MEASURE = {"alignment": "balanced_accuracy", "utilization": "accuracy"}


def candidate_signals(task, likelihood: Verdict):
    """{label: signal names} the fit may use: the judge's likelihood verdict's own signals (`likelihood_setting`; few
    parameters, right for a few dozen rows), then every signal (more to gain from more rows)."""
    every = feature_names(task)
    own = [name for name in likelihood.signals if name in every]
    return {**({"the likelihood signals": own} if own and own != every else {}), "every signal": every}

def _checked_label(value, row: int, what: str):
    """0/1 from a label: a bool, 0/1, or a graded number in [0, 1] (≥ 0.5 counts as 1)."""
    if isinstance(value, bool) or (isinstance(value, (int, float)) and 0 <= value <= 1):
        return int(value >= 0.5)
    raise ValueError(f"Row {row}: {what} must be 0/1, a bool or a number in [0, 1], got {value!r}; rescale graded labels to [0, 1].")


def _records(rows):
    """Rows as a list of dicts, from a list of dicts, a `datasets.Dataset` or a pandas DataFrame."""
    if hasattr(rows, "to_dict") and hasattr(rows, "columns"):  # pandas
        return rows.to_dict("records")
    return [dict(row) for row in rows]


def _chunk_labels(record, row: int):
    useful, chunks = record.get("useful"), record.get("contexts")
    if not isinstance(useful, (list, tuple)) or not isinstance(chunks, (list, tuple)) or len(useful) != len(chunks):
        raise ValueError(f"Row {row}: `useful` must hold one 0/1 label per chunk of `contexts`.")
    return [_checked_label(value, row, "useful") for value in useful]


def _check_classes(labels, what):
    counts = {value: labels.count(value) for value in (0, 1)}
    if min(counts.values()) < MIN_PER_CLASS:
        raise ValueError(
            f"Cannot calibrate: the labels hold {counts[1]} {what} labelled 1 and {counts[0]} labelled 0; each class "
            f"needs at least {MIN_PER_CLASS}. Label more rows of the rarer kind."
        )


def _summary_measures(labels, probabilities):
    """ROC-AUC of the soft alignment and balanced accuracy of 'every claim supported' against the labels."""
    soft = [np.mean(ps) if ps else 0.0 for ps in probabilities]
    hard = [int(bool(ps) and all(p >= 0.5 for p in ps)) for ps in probabilities]
    return {"roc_auc": float(roc_auc_score(labels, soft)), "balanced_accuracy": float(balanced_accuracy_score(labels, hard))}


def _chunk_measures(labels, probabilities):
    truth = [u for row in labels for u in row]
    flat = [p for row in probabilities for p in row]
    return {"roc_auc": float(roc_auc_score(truth, flat)), "accuracy": float(np.mean([(p >= 0.5) == bool(u) for p, u in zip(flat, truth)]))}


def shipped_learned_verdicts(judge) -> dict:
    """{name: Verdict} of the learned verdicts `judge` ships for claims and can give (`verdicts.can_give`): a tuned
    judge's adapter (a served judge's where its server applies it)."""
    tuned = tuned_alignment(getattr(judge, "settings_key", judge.name))
    return {"tuned judge": tuned} if learned.default_adapter_path(judge).is_file() and can_give(judge, tuned) else {}


def learned_candidates(judge, inputs, labels, groups, shipped: Verdict, options):
    """{label: (out-of-fold measures, a function giving the settings fitted on every row)} for each learned verdict
    the judge ships: as shipped (unless it is the shipped verdict already), and refitted from it on these rows (the
    scale and threshold of its raw value, two parameters, the best window of each claim chosen as in
    `fit_alignment`)."""
    found = {}
    count = len(labels)
    for name, start in shipped_learned_verdicts(judge).items():
        _, signals = claim_signals(judge, *inputs, start, **options)
        raw = RAW_SIGNAL[start.method]

        def predict(setting, index, signals=signals):
            return [claim_probability(setting, windows) for windows in signals[index]]

        def fit(train, start=start, signals=signals, raw=raw):
            logistic = Verdict("likelihood", signals={raw: 1.0}, window_tokens=start.window_tokens)
            fitted = fit_alignment([signals[i] for i in train], [labels[i] for i in train], [1.0] * len(train), logistic, [raw])
            slope = fitted.signals[raw]
            # a slope ≤ 0 says these rows rank claims against the verdict: its own threshold is then the better guess
            return start._replace(scale=slope, offset=fitted.offset / slope) if slope > 0 else start

        if shipped != start:
            found[f"the shipped {name}"] = (_summary_measures(labels, [predict(start, i) for i in range(count)]), lambda start=start: {"alignment": start})
        refitted = out_of_fold(groups, fit, predict, count)
        found[f"the shipped {name}, refitted"] = (_summary_measures(labels, refitted), lambda fit=fit: {"alignment": fit(list(range(count)))})
    return found


def calibrate(task, rows, judge=None, path=None, batch_size=None, cache=True, progress=None):
    """Fit the verdicts of `judge` to your own labelled rows, report cross-validated agreement before and after,
    and save the fitted settings as JSON (`path`) for `compute(..., settings=path)`, `map_scorer(...,
    settings=path)` and `localjudge score --settings path`.

    task "summarization_score": rows with `summary`, `contexts` (a string or list of strings) and `label`
    (1 faithful, 0 not; a graded label in [0, 1] counts as faithful from 0.5). task "context_utilization": rows
    with `question`, `answer`, `contexts` (chunks) and `useful` (one 0/1 per chunk). At least 20 rows, and 5
    of each class (summaries, or chunks). `judge`: a name, path or loaded judge (default: the embedded one).

    Two fits are tried, the shipped verdict's own signals refitted (few parameters) and every signal, each
    measured out-of-fold (5 folds by source: each row scored by a model fitted without it); for summaries, for each
    learned verdict the judge ships (a tuned judge's adapter: `localjudge.learned`), also that
    verdict as shipped and refitted from it (`learned_candidates`); the shipped settings, fitted on none of these rows, are measured as they are. The one whose decisions agree best (balanced accuracy
    of "every claim supported" against the summary labels; accuracy of the chunk verdicts) is kept, so a fit that
    does not help leaves the shipped settings in the file.

    Returns {"task", "judge", "rows", "before": the shipped settings' measures, "after": the kept candidate's,
    "signals": which candidate, "candidates": every candidate's measures, "path", "settings": {task: Verdict}};
    the report is printed too.
    """
    metric = {"summarization": "summarization_score", "alignment": "summarization_score", "utilization": "context_utilization"}.get(task, task)
    if metric not in TASKS:
        raise ValueError(f"task must be one of {sorted(TASKS)}, got {task!r}.")
    task = TASKS[metric]
    records = _records(rows)
    for row, record in enumerate(records):
        missing = [name for name in REQUIRED[task] if name not in record]
        if missing:
            raise ValueError(f"Row {row} has no {', '.join(missing)}: {metric} rows need {', '.join(REQUIRED[task])}.")
    if len(records) < MIN_ROWS:
        raise ValueError(f"Cannot calibrate on {len(records)} rows: label at least {MIN_ROWS} (a few dozen is better).")
    if task == "alignment":
        labels = [_checked_label(record.get("label"), row, "label") for row, record in enumerate(records)]
        _check_classes(labels, "summaries")
    else:
        labels = [_chunk_labels(record, row) for row, record in enumerate(records)]
        _check_classes([u for row in labels for u in row], "chunks")
    judge = load_judge(judge or DEFAULT_JUDGE) if judge is None or isinstance(judge, str) else judge
    shipped = judge_settings(judge, task)
    options = {"batch_size": batch_size, "cache": cache, "progress": progress}
    groups = [str(record["contexts"]) for record in records]  # rows on one source share a fold
    if task == "alignment":
        inputs = ([record["summary"] for record in records], [record["contexts"] for record in records])
        _, signals = claim_signals(judge, *inputs, **options)
        _, shipped_signals = claim_signals(judge, *inputs, shipped, **options)
        before = _summary_measures(labels, [[claim_probability(shipped, w) for w in claims] for claims in shipped_signals])
        start = likelihood_setting(judge, task)
        # a judge without likelihood settings starts from the plain gain: the first best windows, and which claim
        # of an unfaithful summary is its error, are read from it
        start = start if start.signals else start._replace(signals={"claim_gain_mean": 1.0})

        def fit(train, names):
            return fit_alignment([signals[i] for i in train], [labels[i] for i in train], [1.0] * len(train), start, names)

        def predict(setting, index):
            return [claim_probability(setting, windows) for windows in signals[index]]

        measures = _summary_measures
    else:
        inputs = ([r["question"] for r in records], [r["answer"] for r in records], [r["contexts"] for r in records])
        signals = chunk_signals(judge, *inputs, **options)
        shipped_signals = chunk_signals(judge, *inputs, shipped, **options)
        before = _chunk_measures(labels, [[verdict_probability(shipped, v) for v in row] for row in shipped_signals])

        def fit(train, names):
            return fit_utilization([signals[i] for i in train], [labels[i] for i in train], [1.0] * len(train), names)

        def predict(setting, index):
            return [verdict_probability(setting, values) for values in signals[index]]

        measures = _chunk_measures
    candidates, fits = {}, {}
    for label, names in candidate_signals(task, likelihood_setting(judge, task)).items():
        predicted = out_of_fold(groups, lambda train, names=names: fit(train, names), predict, len(records))
        candidates[label] = measures(labels, predicted)
        fits[label] = lambda names=names: {task: fit(list(range(len(records))), names)}
    if task == "alignment":
        for label, (measured, refit) in learned_candidates(judge, inputs, labels, groups, shipped, options).items():
            candidates[label], fits[label] = measured, refit
    # the candidate whose decisions agreed best out of fold; on a tie the one with fewer parameters (listed first).
    # The shipped settings were fitted on none of these rows, so their agreement is out of sample too: when no fit
    # beats them, they are what the file keeps.
    decision = DECISION_MEASURE[task]
    candidates = {"the shipped settings": before, **candidates}
    chosen = max(candidates, key=lambda label: candidates[label][decision])
    after = candidates[chosen]
    fitted = {task: shipped} if chosen == "the shipped settings" else fits[chosen]()
    name = getattr(judge, "settings_key", judge.name)
    summary = {"rows": len(records), "before": before, "after": after, "signals": chosen, "candidates": candidates}
    if path:
        save_settings(path, fitted, name, summary)
    measures_named = " / ".join(after)
    lines = [f"calibrate {metric} on {len(records)} rows, judge {name} ({measures_named}):"]
    for label, values in candidates.items():
        how = "refitted, cross-validated" if label.endswith(("refitted", "signal", "signals")) else "fitted on none of these rows"
        lines.append(f"  {label}: {' / '.join(f'{value:.3f}' for value in values.values())} ({how})")
    lines.append(f"kept: {chosen}" + (f"; saved to {path}" if path else ""))
    print("\n".join(lines))
    return {"task": metric, "judge": name, **summary, "path": str(path) if path else None, "settings": fitted}
