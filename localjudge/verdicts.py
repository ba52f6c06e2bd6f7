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


def weighted_likelihood_gain(judge, terms, items, batch_size=None, cache=True, progress=None):
    """Per item: Σ over terms of weight × (mean per-token log P(item | evidence) - mean log P(item | baseline)).

    All terms go to the judge in one call, so a term whose text extends another's (the answer after the
    question after the chunk) shares that prefix's forward pass.
    """
    contexts, targets = [], []
    for term in terms:
        for fields in items:
            target = term["item"].format(**fields)
            contexts += [term["evidence"].format(**fields), term["baseline"].format(**fields)]
            targets += [target, target]
    scored = iter(judge.loglikelihood(contexts, targets, batch_size, cache, progress))
    totals = [0.0] * len(items)
    for term in terms:
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
    sanitized = [{name: judge.sanitize(value) for name, value in fields.items()} for fields in items]
    return weighted_likelihood_gain(judge, LIKELIHOOD_PROMPTS[task], sanitized, batch_size, cache, progress)


def verdict_probabilities(judge, task: str, items, batch_size=None, cache=True, progress=None):
    """Calibrated verdict probabilities for `items` (dicts of the task's template fields), in one batched pass."""
    method, scale, offset = judge_settings(judge, task)
    raw = list(raw_verdicts(judge, task, items, method, batch_size, cache, progress))
    # a judge that answers fewer items than asked: the missing verdicts are NaN, which counts as "no"
    raw += [float("nan")] * (len(items) - len(raw))
    return [calibrate(value, scale, offset, method) for value in raw]
