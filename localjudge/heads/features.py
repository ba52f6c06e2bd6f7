"""What a grounding head reads: the judge's hidden states at the last token of a verification prompt.

The prompt (`prompts.HEAD_PROMPTS`) puts the document first and the statement last, so the claims of one
source share the document's tokens and the judge runs them once per batch. Untrusted text is sanitized and
quoted in tags, as in every yes/no prompt. States go to the judge's result cache batch by batch: a long
featurising run that stops resumes where it stopped.
"""

import numpy as np
from scipy.special import logsumexp

from ..prompts import HEAD_PROMPTS
from ..text import quote


def statement(claim: str, question: str = None) -> str:
    """The text a head judges: the claim, or a question and its answer together."""
    return f"Question: {question}\nAnswer: {claim}" if question else claim


def head_prompt(judge, task: str, fields: dict) -> str:
    """The rendered verification prompt of `task` for one item ({"document": ..., "statement": ...})."""
    quoted = {name: quote(judge.sanitize(value), name) for name, value in fields.items()}
    return judge.render(HEAD_PROMPTS[task].format(**quoted))


def can_read_states(judge) -> bool:
    """Whether `judge` exposes hidden states (an in-process model does; a served one does not)."""
    return callable(getattr(judge, "last_token_states", None))


def head_features(judge, task: str, items, layers, batch_size=None, cache=True, progress=None) -> np.ndarray:
    """A (items × layers × hidden) array of the judge's states for `items`, each a dict of the task's fields;
    an item the judge could not answer is all NaN."""
    prompts = [head_prompt(judge, task, fields) for fields in items]
    states = judge.last_token_states(prompts, layers, batch_size=batch_size, cache=cache, progress=progress)
    shape = next((value.shape for value in states if value is not None), (len(layers), 0))
    if not states:
        return np.empty((0, *shape), np.float32)
    missing = np.full(shape, np.nan, np.float32)
    return np.stack([missing if value is None else value for value in states])


def zero_shot_margins(judge, final_states) -> np.ndarray:
    """log P(yes) − log P(no) of the judge's own answer to the prompt, read off its final-layer states (the
    output head applied to them): the zero-shot verdict a head is measured against, at no extra pass."""
    output = judge.model.get_output_embeddings().weight.detach().float().cpu().numpy()
    logits = np.asarray(final_states, dtype=np.float32) @ output.T
    return logsumexp(logits[:, judge._yes_ids], axis=1) - logsumexp(logits[:, judge._no_ids], axis=1)
