"""Learned verdicts: grounding heads read off the judge's hidden states, and the judge fine-tuned for grounding.

A head is a linear model over the judge's hidden state at the last token of a verification prompt (document,
then statement, then "is everything in the statement supported?"), fitted on thousands of labelled
claim/source pairs of many kinds (../shared/train; docs/heads.md is its data card). It holds one fixed
threshold across texts, which no likelihood signal of the judge does. Its room:

* `features`: the prompt and the states (`head_features`), cached by the judge batch by batch;
* `model`: `GroundingHead`, `fit_head` (the fit that `scripts/train_head.py` and `localjudge.calibrate`
  run), `save_head` / `load_head` (versioned package data with a fingerprint, checked when read);
* `transfer`: leave-one-dataset/language/domain-out figures, always beside word overlap;
* `rows` and `edits`: the labelled rows both learned verdicts train on, cut to the window the product judges,
  the held-out units, and minimal edits of supported claims beside their twins;
* `tuning`: the judge itself fine-tuned on those rows (a LoRA adapter on the same prompt, trained at its answer
  token), `scripts/train_judge.py`; the adapter is package data with a fingerprint, merged into the judge
  when a "tuned" verdict first runs (imported on use: it needs torch and peft).
"""

from . import edits, rows
from .features import can_read_states, head_features, head_prompt, statement, zero_shot_margins
from .model import GroundingHead, candidate_layers, fit_head, load_head, save_head, shipped_head
from .paths import adapter_path, default_adapter_path, default_head_path
from .transfer import transfer_report


__all__ = [
    "edits", "rows", "GroundingHead", "adapter_path", "can_read_states", "candidate_layers", "default_adapter_path", "default_head_path", "fit_head", "head_features",
    "head_prompt", "load_head", "save_head", "shipped_head", "statement", "transfer_report", "zero_shot_margins",
]
