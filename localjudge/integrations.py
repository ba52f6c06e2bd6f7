"""The metrics on tables: a `Dataset.map` scorer, pandas tables and plots of results.

`map_scorer` builds a batched `Dataset.map` function that adds per-row score columns. It runs the same
pipelines as the evaluate modules (`score_summaries`, `score_contexts`) with a judge loaded once, when the
scorer is built. Input columns are found by the modules' input names, by Ragas' and Mastra's names for
them, or by an explicit `columns=` mapping. `to_dataframe` and `plot` turn a module's `compute()` result
into a table and a figure whose columns are named like the scorer's.
"""

import json
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas

from .judges.registry import DEFAULT_JUDGE, load_judge
from .maths import bootstrap_ci
from .prompts import PROMPT_VERSION
from .settings import resolve_settings, settings_label
from .summarization import score_summaries, summarization_output
from .utilization import score_contexts, utilization_output


@dataclass(frozen=True)
class MetricTable:
    """How one metric reads its inputs from table columns and lays its results out as columns."""

    inputs: dict  # input name → other tools' names for that column, in order of preference
    score: Callable  # the pipeline: (judge, *input columns, **options) → per-row dicts
    output: Callable  # the module's result builder: (rows, return_details) → result dict
    per_row: dict  # score column → key of the result dict's per-row list that fills it
    components: tuple  # score columns averaged beside the score itself in summaries and plots
    flatten_details: Callable  # one row's details → scalar columns


def _summary_details(details):
    return {
        "reason": details["reason"],
        "error": details["error"],
        "num_claims": len(details["claims"]),
        "num_questions": len(details["questions"]),
    }


def _utilization_details(details):
    return {"error": details["error"], "num_chunks": len(details["useful"]), "num_useful": sum(details["useful"])}


METRICS = {
    "summarization_score": MetricTable(
        # Ragas SummarizationScore reads response/reference_contexts; Mastra's metric takes input (the source)
        # and output (the summary)
        inputs={"summary": ("response", "output"), "contexts": ("reference_contexts", "input")},
        score=score_summaries,
        output=summarization_output,
        per_row={
            "summarization_score": "scores",
            "qa_score": "qa_scores",
            "conciseness_score": "conciseness_scores",
            "alignment_score": "alignment_scores",
            "coverage_score": "coverage_scores",
        },
        components=("qa_score", "conciseness_score", "alignment_score", "coverage_score"),
        flatten_details=_summary_details,
    ),
    "context_utilization": MetricTable(
        # Ragas context utilization reads user_input/response/retrieved_contexts
        inputs={"question": ("user_input",), "answer": ("response",), "contexts": ("retrieved_contexts",)},
        score=score_contexts,
        output=utilization_output,
        per_row={"context_utilization": "scores", "chunk_probabilities": "verdicts"},
        components=(),
        flatten_details=_utilization_details,
    ),
}


def metric_table(metric_name) -> MetricTable:
    if metric_name not in METRICS:
        raise ValueError(f"Unknown metric {metric_name!r}; choose one of: {', '.join(METRICS)}.")
    return METRICS[metric_name]


def _metric_of(names) -> str:
    """The metric whose score key or column is among `names` (a result dict or a table's columns)."""
    for metric_name in METRICS:
        if metric_name in names:
            return metric_name
    raise ValueError(f"Not a localjudge result: expected a '{' or '.join(METRICS)}' key or column.")


def checked_columns(metric_name, columns) -> dict:
    """`columns` (input name → table column) after checking that it names only inputs of `metric_name`."""
    inputs = metric_table(metric_name).inputs
    unknown = sorted(set(columns or {}) - set(inputs))
    if unknown:
        raise ValueError(f"columns= names {unknown}, which are not inputs of {metric_name}: {', '.join(inputs)}.")
    return dict(columns or {})


def input_columns(metric_name, column_names, columns=None) -> dict:
    """The column feeding each input of `metric_name`: `columns[input]` if given, else the input's own name,
    else the first of its aliases (Ragas', Mastra's) that is present. Raises ValueError naming what is missing.
    """
    table = metric_table(metric_name)
    columns = checked_columns(metric_name, columns)
    found = {}
    for name, aliases in table.inputs.items():
        candidates = [columns[name]] if name in columns else [name, *aliases]
        present = [candidate for candidate in candidates if candidate in column_names]
        if not present:
            raise ValueError(
                f"{metric_name} needs a '{name}' column; the table has {list(column_names)}. Accepted: "
                f"{', '.join(repr(c) for c in candidates)}, or name yours with columns={{{name!r}: ...}}."
            )
        found[name] = present[0]
    return found


class DatasetScorer:
    """A batched `Dataset.map` function that adds a metric's per-row columns. Build it with `map_scorer`."""

    def __init__(self, metric_name, judge, columns, details, options):
        self.metric_name = metric_name
        self.table = metric_table(metric_name)
        self.columns = checked_columns(metric_name, columns)
        self.judge_source = judge
        self.judge = load_judge(judge)
        self.details = details
        # a settings file is read once, here: its {task: Verdict} table is part of the pickle that fingerprints a
        # map's result, so edited settings never reuse a cached map
        self.options = {**options, "settings": resolve_settings(options.get("settings"))}
        # scoring no rows checks the options now (names, ranges) rather than in the middle of a map
        self.table.score(self.judge, *([] for _ in self.table.inputs), **options)

    def __call__(self, batch):
        names = input_columns(self.metric_name, list(batch.keys()), self.columns)
        rows = self.table.score(self.judge, *(batch[names[name]] for name in self.table.inputs), **self.options)
        result = self.table.output(rows, return_details=self.details)
        # lists of floats become float arrays: a batch whose rows all failed holds only empty lists, which Arrow
        # would type as null, and later batches could not be cast to that type
        added = {
            column: [np.asarray(value, dtype=np.float64) if isinstance(value, list) else value for value in result[key]]
            for column, key in self.table.per_row.items()
        }
        if self.details and result["details"]:
            # JSON text keeps one Arrow type per column whatever a row holds (None, a string, a list of dicts)
            for field in result["details"][0]:
                added[field] = [json.dumps(row[field]) for row in result["details"]]
        return added

    def __reduce__(self):
        # Dataset.map pickles its function to fingerprint the result (its cache key) and to send it to worker
        # processes (num_proc > 1). Pickling the judge would copy the model's weights and fails on its SQLite
        # result cache, so a scorer pickles as the arguments that rebuild it; the judge's fingerprint, the prompt
        # version and the settings label (with its adapters' fingerprints) are among them so that another
        # model, prompt wording or adapter never reuses a cached result.
        arguments = (self.metric_name, self.judge_source, self.columns, self.details, self.options)
        label = settings_label(self.judge, self.options["settings"])
        return _rebuild_scorer, (*arguments, self.judge.fingerprint, PROMPT_VERSION, label)


def _rebuild_scorer(metric_name, judge, columns, details, options, judge_fingerprint, prompt_version, settings):
    """Unpickle a `DatasetScorer`; the judge's fingerprint, the prompt version and the settings label are there for
    the pickle's hash."""
    return DatasetScorer(metric_name, judge, columns, details, options)


def map_scorer(metric_name, judge=DEFAULT_JUDGE, columns=None, details=False, **options) -> DatasetScorer:
    """A function for `dataset.map(fn, batched=True, batch_size=...)` that adds `metric_name`'s per-row columns.

    Args:
        metric_name (`str`): "summarization_score" or "context_utilization".
        judge (`str` or judge): an embedded judge name, a local path or hub id, or a loaded judge. It is loaded
            here, once, for all batches. Pass it by name to let `datasets` cache the mapped result (and to use
            `num_proc > 1`): a loaded `Judge` cannot be pickled.
        columns (`dict`): input name → your column, e.g. `{"summary": "generated"}`. Without it each input is
            read from the column of its own name, else from Ragas' or Mastra's name for it (`response`,
            `reference_contexts`, `retrieved_contexts`, `user_input`; `output`, `input`).
        details (`bool`): also add the per-row details (e.g. `reason`, `error`, `claims`) as JSON text columns.
        **options: the metric module's options (`final`, `coeff`, `soft`, `settings`, `batch_size`, `progress`, ...).

    Adds `summarization_score`, `qa_score`, `conciseness_score`, `alignment_score`, `coverage_score`, or
    `context_utilization` and `chunk_probabilities`. A row that cannot be scored keeps its place with NaN
    scores; with `details=True` its `error` column says why.

    Example:
        >>> scored = dataset.map(map_scorer("summarization_score", judge="smollm2-135m"), batched=True)
    """
    return DatasetScorer(metric_name, judge, columns, details, options)


def to_dataframe(results) -> pandas.DataFrame:
    """A module's `compute()` result as a table: one row per scored row, the per-row lists as columns and, when
    the result has details, their reason, error and counts (claims and questions, or chunks) flattened."""
    table = METRICS[_metric_of(results)]
    frame = pandas.DataFrame({column: results[key] for column, key in table.per_row.items()})
    if "details" in results:
        flat = pandas.DataFrame([table.flatten_details(details) for details in results["details"]], index=frame.index)
        frame = frame.join(flat)
    return frame


def summary_table(frame, confidence_level=None) -> pandas.DataFrame:
    """One row: the number of rows and failed rows, and the means over scored rows of the score and of each
    component. `frame` comes from `to_dataframe` or from a Dataset scored by `map_scorer` (`.to_pandas()`).

    With a `confidence_level` (e.g. 0.95), the score's mean is followed by `{metric}_ci_low` and
    `{metric}_ci_high`: its bootstrap interval over the per-row scores (`localjudge.maths.bootstrap_ci`).
    """
    metric_name = _metric_of(frame.columns)
    means = frame[[metric_name, *METRICS[metric_name].components]].mean().to_dict()
    counts = {"rows": len(frame), "failed": int(frame[metric_name].isna().sum())}
    interval = {}
    if confidence_level is not None:
        low, high = bootstrap_ci(frame[metric_name].tolist(), confidence_level)
        interval = {f"{metric_name}_ci_low": low, f"{metric_name}_ci_high": high}
    score = {metric_name: means.pop(metric_name)}
    return pandas.DataFrame([{**counts, **score, **interval, **means}])


def plot(results, ax=None):
    """Histogram of the per-row scores and, for summarization_score, a bar of each component's mean.

    `results` is a module's `compute()` result or a table from `to_dataframe`. `ax` is one matplotlib Axes
    for context_utilization and two for summarization_score; new ones are made when it is None.
    Returns the figure.
    """
    try:
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError as error:
        message = "localjudge.integrations.plot needs matplotlib: pip install localjudge-metrics[plot]"
        raise ImportError(message) from error
    frame = results if isinstance(results, pandas.DataFrame) else to_dataframe(results)
    metric_name = _metric_of(frame.columns)
    components = list(METRICS[metric_name].components)
    if ax is None:
        _, ax = plt.subplots(1, 2 if components else 1, figsize=(10 if components else 5, 3.5), layout="constrained")
    axes = np.atleast_1d(ax)
    failed = int(frame[metric_name].isna().sum())
    frame[metric_name].dropna().plot.hist(ax=axes[0], bins=10, range=(0, 1), edgecolor="white")
    axes[0].set(title=f"{metric_name} per row ({failed} failed)", xlabel="score", ylabel="rows")
    axes[0].yaxis.set_major_locator(MaxNLocator(integer=True))
    if components:
        frame[components].mean().plot.bar(ax=axes[1], ylim=(0, 1), rot=20)
        axes[1].set(title="mean of each component", ylabel="mean over scored rows")
    return axes[0].figure
