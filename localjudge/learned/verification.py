"""The verification prompt of the tuned judge and what the judge's states give on it.

The prompt (`prompts.VERIFICATION_PROMPTS`) puts the document first and the statement last, so the claims of one
source share the document's tokens and the judge runs them once per batch. Untrusted text is sanitized and
quoted in tags, as in every yes/no prompt. The judge's own zero-shot answer to it can be read off its final-layer
states (`zero_shot_margins`), which the judge caches batch by batch.
"""

import numpy as np
from scipy.special import logsumexp

from ..prompts import VERIFICATION_PROMPTS
from ..text import quote


def statement(claim: str, question: str = None) -> str:
    """The text the verification prompt judges: the claim, or a question and its answer together."""
    return f"Question: {question}\nAnswer: {claim}" if question else claim


def verification_prompt(judge, task: str, fields: dict) -> str:
    """The rendered verification prompt of `task` for one item ({"document": ..., "statement": ...})."""
    quoted = {name: quote(judge.sanitize(value), name) for name, value in fields.items()}
    return judge.render(VERIFICATION_PROMPTS[task].format(**quoted))


def can_read_states(judge) -> bool:
    """Whether `judge` exposes hidden states (an in-process model does; a served one does not)."""
    return callable(getattr(judge, "last_token_states", None))


def zero_shot_margins(judge, final_states) -> np.ndarray:
    """log P(yes) − log P(no) of the judge's own answer to the prompt, read off its final-layer states (the
    output head applied to them): its zero-shot verdict on this prompt (the verdict board's `hp160`)."""
    output = judge.model.get_output_embeddings().weight.detach().float().cpu().numpy()
    logits = np.asarray(final_states, dtype=np.float32) @ output.T
    return logsumexp(logits[:, judge._yes_ids], axis=1) - logsumexp(logits[:, judge._no_ids], axis=1)
