"""localjudge: LLM-as-judge evaluation metrics on a local transformers model.

The pipeline, in reading order: `loading`/`judge` (find, verify and run the judge model) → `prompts`
(templates and per-judge settings, as data) → `verdicts` (batched verdict probabilities) → `maths` (the
reference formulas, pure functions) → `summarization`/`utilization` (per-row scoring) → interfaces (the
evaluate modules in the repository root, `integrations`, `cli`).
"""

from .loading import DEFAULT_JUDGE, EMBEDDED_JUDGES, load_judge
from .prompts import PROMPT_VERSION
from .summarization import score_summaries, summarization_output
from .utilization import score_contexts, utilization_output
from .integrations import map_scorer, to_dataframe

__all__ = [
    "DEFAULT_JUDGE",
    "EMBEDDED_JUDGES",
    "PROMPT_VERSION",
    "load_judge",
    "map_scorer",
    "score_contexts",
    "score_summaries",
    "summarization_output",
    "to_dataframe",
    "utilization_output",
]
__version__ = "0.2.0"
