"""The judge fine-tuned for grounding, and the labelled rows it learns from.

* `verification`: the verification prompt (`verification_prompt`, `prompts.VERIFICATION_PROMPTS`: document, then
  statement, then "is everything in the statement supported?") and the statement of a claim;
* `rows` and `edits`: the labelled rows of ../shared/train, cut to the window the product judges, the held-out
  units, and minimal edits of supported claims beside their twins;
* `tuning`: the judge itself fine-tuned on those rows (a LoRA adapter on the verification prompt, trained at its
  answer token), `scripts/train_judge.py`; the adapter is package data with a fingerprint, applied to the judge
  when a "tuned" verdict first runs (imported on use: it needs torch and peft; data card: docs/tuning.md).
"""

from . import edits, rows
from .verification import statement, verification_fields, verification_prompt
from .paths import adapter_path, default_adapter_path


__all__ = ["edits", "rows", "adapter_path", "default_adapter_path", "verification_fields", "verification_prompt", "statement"]
