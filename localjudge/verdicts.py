"""Verdict probabilities for batches of (evidence, item) pairs, by the method that works for the judge.

Instruction-following judges answer a yes/no prompt and P(yes) is read from the logits; judges too small
for that are scored by likelihood gain. Either way the raw value is calibrated (prompts.JUDGE_SETTINGS)
into a probability whose 0.5 threshold is the verdict.
"""

from .maths import calibrate
from .prompts import DEFAULT_SETTINGS, JUDGE_SETTINGS, LIKELIHOOD_PROMPTS, SYSTEM, VERDICT_PROMPTS
from .text import quote


def judge_settings(judge):
    return JUDGE_SETTINGS.get(judge.name, DEFAULT_SETTINGS)


def verdict_prompt(judge, task: str, fields: dict) -> str:
    """The rendered yes/no prompt of `task`, each untrusted field sanitized and quoted in its own tag."""
    quoted = {name: quote(judge.sanitize(value), name) for name, value in fields.items()}
    return judge.render(VERDICT_PROMPTS[task].format(**quoted), system=SYSTEM)


def raw_verdicts(judge, task: str, items, method: str, batch_size=None, cache=True, progress=None):
    """Uncalibrated values: P(yes) for "probability", per-token log-likelihood gain for "likelihood"."""
    if not items:
        return []
    if method == "probability":
        prompts = [verdict_prompt(judge, task, fields) for fields in items]
        return judge.yes_probability(prompts, batch_size=batch_size, cache=cache, progress=progress)
    templates = LIKELIHOOD_PROMPTS[task]
    sanitized = [{name: judge.sanitize(value) for name, value in fields.items()} for fields in items]
    targets = [templates["item"].format(**fields) for fields in sanitized]
    with_evidence = judge.loglikelihood(
        [templates["evidence"].format(**fields) for fields in sanitized], targets, batch_size, cache, progress
    )
    without = judge.loglikelihood(
        [templates["baseline"].format(**fields) for fields in sanitized], targets, batch_size, cache, progress
    )
    return [(shown[0] - hidden[0]) / shown[1] for shown, hidden in zip(with_evidence, without)]


def verdict_probabilities(judge, task: str, items, batch_size=None, cache=True, progress=None):
    """Calibrated verdict probabilities for `items` (dicts of the task's template fields), in one batched pass."""
    settings = judge_settings(judge)
    scale, offset = settings["calibration"][task]
    raw = raw_verdicts(judge, task, items, settings["method"], batch_size, cache, progress)
    return [calibrate(value, scale, offset, settings["method"]) for value in raw]
