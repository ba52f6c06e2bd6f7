"""localjudge: LLM-as-judge evaluation metrics on a local transformers model.

The pipeline, in reading order: `loading` (find and verify the judge) → `judge_base` with its two backends side
by side, `judge` (the model runs in this process) and `judge_served` (it runs in a vLLM server) → `prompts`
(templates and per-judge settings, as data) → `verdicts` (batched verdict probabilities) → `maths` (the
reference formulas, pure functions) → `summarization`/`utilization` (per-row scoring) → interfaces (the
evaluate modules in the repository root, `integrations`, `cli`).
"""

from .loading import DEFAULT_JUDGE, EMBEDDED_JUDGES, judge_for, load_judge
from .prompts import PROMPT_VERSION
from .summarization import score_summaries, summarization_output
from .utilization import score_contexts, utilization_output
from .integrations import map_scorer, to_dataframe
from .calibration import calibrate

__all__ = [
    "DEFAULT_JUDGE",
    "EMBEDDED_JUDGES",
    "PROMPT_VERSION",
    "calibrate",
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
