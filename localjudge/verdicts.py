"""Verdict probabilities for batches of (evidence, item) pairs, by the method measured best per judge and task.

`prompts.JUDGE_SETTINGS` names, per judge and task, either a yes/no prompt whose P(yes) is read from the
logits, or a weighted likelihood gain; either way the raw value is calibrated into a probability whose 0.5
threshold is the verdict.
"""

from .maths import calibrate
from .prompts import DEFAULT_SETTINGS, JUDGE_SETTINGS, LIKELIHOOD_PROMPTS, VERDICT_PROMPTS
from .text import quote


def judge_settings(judge, task: str):
    """(method, scale, offset) of `judge` for `task`."""
    return JUDGE_SETTINGS.get(judge.name, DEFAULT_SETTINGS)[task]


def verdict_prompt(judge, task: str, fields: dict) -> str:
    """The rendered yes/no prompt of `task`, each untrusted field sanitized and quoted in its own tag."""
    quoted = {name: quote(judge.sanitize(value), name) for name, value in fields.items()}
    return judge.render(VERDICT_PROMPTS[task].format(**quoted))


def likelihood_pairs(judge, task: str, items):
    """(contexts, continuations) of `task`'s likelihood terms: per term and item, the evidence then the baseline.

    Untrusted fields have the judge's special tokens stripped; the templates hold no instruction to override.
    """
    contexts, continuations = [], []
    for term in LIKELIHOOD_PROMPTS[task]:
        for fields in items:
            fields = {name: judge.sanitize(value) for name, value in fields.items()}
            target = term["item"].format(**fields)
            contexts += [term["evidence"].format(**fields), term["baseline"].format(**fields)]
            continuations += [target, target]
    return contexts, continuations


def weighted_likelihood_gain(judge, task, items, batch_size=None, cache=True, progress=None):
    """Per item: Σ over terms of weight × (mean per-token log P(item | evidence) - mean log P(item | baseline)).

    All terms go to the judge in one call, so a term whose text extends another's (the answer after the
    question after the chunk) shares that prefix's forward pass.
    """
    contexts, continuations = likelihood_pairs(judge, task, items)
    scored = iter(judge.loglikelihood(contexts, continuations, batch_size, cache, progress))
    totals = [0.0] * len(items)
    for term in LIKELIHOOD_PROMPTS[task]:
        for index in range(len(items)):
            (with_evidence, tokens), (without, _) = next(scored), next(scored)
            totals[index] += term["weight"] * (with_evidence - without) / tokens
    return totals


def raw_verdicts(judge, task: str, items, method: str, batch_size=None, cache=True, progress=None):
    """Uncalibrated values: P(yes) for "probability", the weighted likelihood gain for "likelihood"."""
    if not items:
        return []
    if method == "probability":
        prompts = [verdict_prompt(judge, task, fields) for fields in items]
        return judge.yes_probability(prompts, batch_size=batch_size, cache=cache, progress=progress)
    return weighted_likelihood_gain(judge, task, items, batch_size, cache, progress)


def verdict_probabilities(judge, task: str, items, batch_size=None, cache=True, progress=None):
    """Calibrated verdict probabilities for `items` (dicts of the task's template fields), in one batched pass."""
    method, scale, offset = judge_settings(judge, task)
    raw = list(raw_verdicts(judge, task, items, method, batch_size, cache, progress))
    # a judge that answers fewer items than asked: the missing verdicts are NaN, which counts as "no"
    raw += [float("nan")] * (len(items) - len(raw))
    return [calibrate(value, scale, offset, method) for value in raw]
