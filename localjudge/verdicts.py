"""Verdict probabilities for batches of (evidence, item) pairs, by the method measured best per judge and task.

`prompts.JUDGE_SETTINGS` names, per judge and task, either a yes/no prompt whose P(yes) is read from the
logits, or weighted signals of the item's token log-probabilities with and without the evidence; either way
the raw value is calibrated into a probability whose 0.5 threshold is the verdict.
"""

from .maths import NAN, calibrate
from .prompts import DEFAULT_SETTINGS, JUDGE_SETTINGS, LIKELIHOOD_PROMPTS, VERDICT_PROMPTS
from .text import quote


def judge_settings(judge, task: str):
    """The `prompts.Verdict` of `judge` for `task`."""
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


def likelihood_signals(with_evidence, without) -> dict:
    """Signals of one item from its per-token log-probabilities with the evidence and with the baseline.

    `cond_mean` is the mean log P(token | evidence); the gain of a token is how much the evidence raises its
    log-probability: `gain_mean` (the pointwise mutual information per token), its 10 % quantile `gain_q10`
    and minimum `gain_min` (a swapped name, number or negation is a few tokens that a mean dilutes), and
    `kept_share`, the share of tokens whose log-probability the evidence does not lower. No values (a verdict
    the judge could not give, which a backend returns as NaN instead of a list) → NaN signals.
    """
    if not (isinstance(with_evidence, list) and isinstance(without, list) and with_evidence):
        return dict.fromkeys(("cond_mean", "gain_mean", "gain_q10", "gain_min", "kept_share"), NAN)
    gains = sorted(a - b for a, b in zip(with_evidence, without))
    return {
        "cond_mean": sum(with_evidence) / len(with_evidence),
        "gain_mean": sum(gains) / len(gains),
        "gain_q10": gains[int(0.1 * len(gains))],
        "gain_min": gains[0],
        "kept_share": sum(gain >= 0 for gain in gains) / len(gains),
    }


def likelihood_values(judge, task, items, signals, batch_size=None, cache=True, progress=None):
    """Per item: Σ over the task's terms of weight × Σ coefficient × signal (`signals`: name → coefficient).

    All terms go to the judge in one call, so a term whose text extends another's (the answer after the
    question after the chunk) shares that prefix's forward pass.
    """
    contexts, continuations = likelihood_pairs(judge, task, items)
    scored = iter(judge.token_logprobs(contexts, continuations, batch_size, cache, progress))
    totals = [0.0] * len(items)
    for term in LIKELIHOOD_PROMPTS[task]:
        for index in range(len(items)):
            values = likelihood_signals(next(scored), next(scored))
            totals[index] += term["weight"] * sum(coefficient * values[name] for name, coefficient in signals.items())
    return totals


def raw_verdicts(judge, task: str, items, setting, batch_size=None, cache=True, progress=None):
    """Uncalibrated values: P(yes) for "probability", the weighted likelihood signals for "likelihood"."""
    if not items:
        return []
    if setting.method == "probability":
        prompts = [verdict_prompt(judge, task, fields) for fields in items]
        return judge.yes_probability(prompts, batch_size=batch_size, cache=cache, progress=progress)
    return likelihood_values(judge, task, items, setting.signals, batch_size, cache, progress)


def verdict_probabilities(judge, task: str, items, batch_size=None, cache=True, progress=None):
    """Calibrated verdict probabilities for `items` (dicts of the task's template fields), in one batched pass."""
    setting = judge_settings(judge, task)
    raw = list(raw_verdicts(judge, task, items, setting, batch_size, cache, progress))
    # a judge that answers fewer items than asked: the missing verdicts are NaN, which counts as "no"
    raw += [float("nan")] * (len(items) - len(raw))
    return [calibrate(value, setting.scale, setting.offset, setting.method) for value in raw]
