"""localjudge: LLM-as-judge evaluation metrics on a local transformers model.

The pipeline, in reading order: `judges.registry` (find, verify and load the judge; the embedded judges as
data) → `judges.base` (the interface every backend honours) with one file per backend, `judges.local` (the model
runs in this process) and `judges.served` (it runs in a vLLM server) → `prompts` (templates and per-judge
settings, as data) → `text` (sentences, source windows) → `learned` (the judge fine-tuned with a LoRA adapter on
published labels: its rows, training and files) → `verdicts` (batched verdict probabilities from yes/no answers,
likelihood signals or the tuned judge) → `settings` (settings as files, and the label a result carries) → `maths`
(the reference formulas, pure functions) → `summarization`/`utilization` (per-row scoring) → `calibration`
(verdicts fitted to labelled rows) → interfaces (the evaluate modules in the repository root, `integrations`,
`cli`).
"""

from .judges.registry import DEFAULT_JUDGE, EMBEDDED_JUDGES, judge_for, load_judge
from .prompts import PROMPT_VERSION
from .summarization import check_columns, score_summaries, summarization_output
from .utilization import score_contexts, utilization_output
from .integrations import map_scorer, to_dataframe
from .calibration import calibrate

__all__ = [
    "DEFAULT_JUDGE",
    "EMBEDDED_JUDGES",
    "Judge",
    "PROMPT_VERSION",
    "calibrate",
    "check_columns",
    "judge_for",
    "load_judge",
    "map_scorer",
    "score_contexts",
    "score_summaries",
    "summarization_output",
    "to_dataframe",
    "utilization_output",
]
__version__ = "0.2.0"


def __getattr__(name):
    if name == "Judge":  # the in-process judge class, imported on first use: it brings torch
        from .judges.local import Judge

        return Judge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
