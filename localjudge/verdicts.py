"""Verdict probabilities for batches of items, by the method `prompts.JUDGE_SETTINGS` names per judge and task.

An item is a dict of a task's template fields. A field given as a list (the windows of a long source) makes one
judgement per element, and the item's verdict is the best of them (AlignScore and MiniCheck judge a claim
against source chunks and keep the maximum), so a verdict always sees evidence of one size and no source is
cut; a setting's `top_windows` keeps, per item, only the elements a lexical ranking puts first (`preselect`) and
judges them best first, stopping at the first that supports the item (`item_verdict`): no later one could change
its verdict. Per
judgement, either a yes/no prompt's P(yes) is read from the logits ("probability"), or signals of
the item's token log-probabilities with and without the evidence are combined ("likelihood"): a logistic
model fitted out-of-fold on labelled rows (`calibration`), whose 0.5 is the verdict; or the judge fine-tuned on
published labels (a LoRA adapter applied in this process, or by the judge's server: `learned.tuning`) answers a yes/no
prompt ("tuned"). A judge that cannot give a learned verdict (a served one whose server does not apply the adapter)
gives its stateless verdict instead (`prompts.STATELESS_SETTINGS`).
"""

import math
import string

from . import learned
from .judges.base import runs_in_process
from .maths import NAN, calibrate, is_yes, logit
from .prompts import (
    DEFAULT_SETTINGS, JUDGE_SETTINGS, LIKELIHOOD_PROMPTS, STATELESS_SETTINGS, VERDICT_PROMPTS, VERIFICATION_PROMPTS,
)
from .text import quote, top_windows

# verdicts learned from labelled pairs, which need the judge's model in this process (a tuned judge applies an
# adapter to it) or a server that applies the adapter
LEARNED_METHODS = ("tuned",)
# every method a `prompts.Verdict` may name
METHODS = ("probability", "likelihood", *LEARNED_METHODS)
# each learned verdict's raw value, the one number its scale and threshold apply to (refitted by `calibrate`): a
# tuned judge's is its yes/no margin over the threshold its adapter was fitted with on validation rows
RAW_SIGNAL = {"tuned": "tuned_margin"}
# signals of one field's tokens (`token_signals`); an item's are named "{field}_{signal}", and with groups
# (the chunks of one retrieval) also "rel_{field}_{signal}", the value less the group's best
TOKEN_SIGNALS = ("cond_mean", "gain_mean", "gain_q10", "gain_min", "kept_share", "explained", "log_tokens")


def can_give(judge, setting) -> bool:
    """Whether `judge` can give a learned verdict: a tuned one applies its adapter to the judge's model where it
    runs in this process (`judges.base.runs_in_process`), or asks a server that applies the adapter
    (`tuning.served_lora`)."""
    if runs_in_process(judge):
        return True
    from .learned import tuning  # torch: imported only where an adapter is named

    return tuning.served_lora(judge, setting.adapter) is not None


def judge_settings(judge, task: str, settings=None):
    """The `prompts.Verdict` of `judge` for `task`: from `settings` (a {task: Verdict} dict, e.g. fitted by
    `localjudge.calibrate`) when it has the task, else the judge's shipped settings; a learned verdict the judge
    cannot give (`can_give`) becomes its stateless one. A method not in `METHODS` is refused."""
    key = getattr(judge, "settings_key", judge.name)
    setting = settings[task] if settings and task in settings else JUDGE_SETTINGS.get(key, DEFAULT_SETTINGS)[task]
    if setting.method not in METHODS:
        raise ValueError(f"Unknown verdict method {setting.method!r} for {task}: a Verdict's method is one of "
                         f"{METHODS}.")
    if setting.method in LEARNED_METHODS and not can_give(judge, setting):
        return stateless_setting(judge, task)
    return setting


def stateless_setting(judge, task: str):
    """The verdict `judge` gives for `task` where it cannot give a learned one (`prompts.STATELESS_SETTINGS`)."""
    return STATELESS_SETTINGS.get(getattr(judge, "settings_key", judge.name), DEFAULT_SETTINGS)[task]


def verdict_prompt(judge, task: str, fields: dict) -> str:
    """The rendered yes/no prompt of `task`, each untrusted field sanitized and quoted in its own tag."""
    quoted = {name: quote(judge.sanitize(value), name) for name, value in fields.items()}
    return judge.render(VERDICT_PROMPTS[task].format(**quoted))


def field_spans(template: str, fields: dict):
    """(the filled template, {field: (start, end) character span of its value in it})."""
    text, spans = "", {}
    for literal, name, _, _ in string.Formatter().parse(template):
        text += literal
        if name is not None:
            spans[name] = (len(text), len(text) + len(fields[name]))
            text += fields[name]
    return text, spans


def token_signals(with_evidence, without) -> dict:
    """Signals of one field from its tokens' log-probabilities with the evidence and with the baseline.

    `cond_mean`: mean log P(token | evidence). The gain of a token is how much the evidence raises its
    log-probability: `gain_mean` (pointwise mutual information per token), its 10 % quantile `gain_q10` and
    minimum `gain_min` (a swapped name, number or negation is a few tokens that a mean dilutes), `kept_share`
    (tokens the evidence does not make less likely). `explained` is the share of the text's surprisal
    without evidence that the evidence removes, Σ gain / Σ −log P(token | baseline): it has no units, so a
    faithful paraphrase of a short plain text, improbable in absolute terms, still scores what the source
    explains of it. `log_tokens`: how long the text is. No values (a verdict the judge could not give) → NaN.
    """
    if not with_evidence or any(value is None or math.isnan(value) for value in with_evidence + without):
        return dict.fromkeys(TOKEN_SIGNALS, NAN)
    gains = sorted(a - b for a, b in zip(with_evidence, without))
    surprisal = -sum(without)
    return {
        "cond_mean": sum(with_evidence) / len(with_evidence),
        "gain_mean": sum(gains) / len(gains),
        "gain_q10": gains[int(0.1 * len(gains))],
        "gain_min": gains[0],
        "kept_share": sum(gain >= 0 for gain in gains) / len(gains),
        "explained": sum(gains) / surprisal if surprisal > 0 else 0.0,
        "log_tokens": math.log(len(gains)),
    }


def _per_field(offsets, spans, values):
    """Split one item's per-token values by the field each token overlaps (tokens of the template's own words,
    such as "Answer:", belong to none); `offsets` are the item's token character spans."""
    fields = {name: [] for name in spans}
    if not isinstance(values, list):
        return fields
    for (start, end), value in zip(offsets, values):
        for name, (low, high) in spans.items():
            if start < high and end > low:
                fields[name].append(value)
                break
    return fields


def likelihood_signals(judge, task: str, items, batch_size=None, cache=True, progress=None):
    """Per item, {"{field}_{signal}": value} for every field of the task's item template.

    One sequence per item holds every field (the answer after the question after the chunk), so one forward
    pass scores them all; its baseline (the same text without the evidence) is shared by every item with the
    same fields, and the judge computes a repeated prompt once.
    """
    template = LIKELIHOOD_PROMPTS[task]
    contexts, continuations, layouts = [], [], []
    for fields in items:
        fields = {name: judge.sanitize(value) for name, value in fields.items()}
        text, spans = field_spans(template["item"], fields)
        contexts += [template["evidence"].format(**fields), template["baseline"].format(**fields)]
        continuations += [text, text]
        layouts.append((text, spans))
    scored = judge.token_logprobs(contexts, continuations, batch_size, cache, progress)
    signals = []
    for index, (text, spans) in enumerate(layouts):
        # the item's tokens are the same in both passes: one tokenization gives both their fields
        offsets = judge.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        with_evidence = _per_field(offsets, spans, scored[2 * index])
        without = _per_field(offsets, spans, scored[2 * index + 1])
        signals.append(
            {
                f"{name}_{signal}": value
                for name in spans
                for signal, value in token_signals(with_evidence[name], without[name]).items()
            }
        )
    return signals


def add_relative_signals(signals, groups):
    """Add "rel_{name}" = value − the best value of the item's group (a chunk against the other chunks retrieved
    for the same question: the most useful chunk of a row sits at 0)."""
    best = {}
    for values, group in zip(signals, groups):
        for name, value in values.items():
            if not math.isnan(value):
                best[group, name] = max(best.get((group, name), -math.inf), value)
    for values, group in zip(signals, groups):
        values.update({f"rel_{name}": value - best.get((group, name), NAN) for name, value in list(values.items())})
    return signals


def list_field(fields):
    """The name of the item's field given as a list (a claim's windows), None when it has none."""
    return next((name for name, value in fields.items() if isinstance(value, list)), None)


def expand(items):
    """(flat items, owner of each): a field given as a list makes one item per element."""
    flat, owners = [], []
    for index, fields in enumerate(items):
        listed = list_field(fields)
        for option in fields[listed] if listed else [None]:
            flat.append({**fields, listed: option} if listed else fields)
            owners.append(index)
    return flat, owners


def preselect(items, count: int):
    """(items with their list field cut to the `count` elements that `text.top_windows` ranks first for the item's
    other text fields, best first, per item the indices of the elements kept, None where nothing was ranked). Items
    that share a list (the claims of one source) share its ranking's term statistics. `count` 0 keeps every element
    in its order."""
    kept, cut, sharing = [None] * len(items), list(items), {}
    for index, fields in enumerate(items):
        listed = list_field(fields)
        if count and listed and len(fields[listed]) > 1:
            sharing.setdefault((listed, tuple(fields[listed])), []).append(index)
    for (name, elements), members in sharing.items():
        queries = [" ".join(value for field, value in items[index].items() if field != name and isinstance(value, str))
                   for index in members]
        for index, indices in zip(members, top_windows(queries, elements, count)):
            kept[index] = indices
            cut[index] = {**items[index], name: [elements[element] for element in indices]}
    return cut, kept


def item_signals(judge, task: str, items, setting, groups=None, batch_size=None, cache=True, progress=None):
    """(signals of each judgement, the item it belongs to): {"p_yes": value} for a yes/no verdict, the
    likelihood signals otherwise (with the relative ones when `groups`, one key per item, are given)."""
    flat, owners = expand(items)
    if setting.method in LEARNED_METHODS:
        if task not in VERIFICATION_PROMPTS:
            raise ValueError(f"No learned verdict judges {task!r}: tuned verdicts are for summary claims (alignment) "
                             "and facts checked against the summary (coverage) only.")
        fields = [learned.verification_fields(task, item) for item in flat]
    if setting.method in ("probability", "tuned"):
        if setting.method == "tuned":
            from .learned import tuning  # torch and peft: imported only where an adapter is applied

            judge = tuning.tuned_judge(judge, setting.adapter)
            prompts = [learned.verification_prompt(judge, task, item) for item in fields]
        else:
            prompts = [verdict_prompt(judge, task, item) for item in flat]
        answers = list(judge.yes_probability(prompts, batch_size=batch_size, cache=cache, progress=progress))
        # a judge that answers fewer items than asked: the missing verdicts are NaN, which counts as "no"
        answers += [NAN] * (len(flat) - len(answers))
        if setting.method == "tuned":
            model = getattr(judge, "model", None)  # a served judge has none here: its dtype is the server's
            threshold = tuning.shipped_adapter(setting.adapter).offset(model.dtype if model is not None else None)
            return [{"p_yes": value, "tuned_margin": logit(value) - threshold} for value in answers], owners
        return [{"p_yes": value} for value in answers], owners
    signals = likelihood_signals(judge, task, flat, batch_size, cache, progress)
    if groups is not None:
        add_relative_signals(signals, [groups[owner] for owner in owners])
    return signals, owners


def verdict_probability(setting, values) -> float:
    """The calibrated probability of one judgement from its signals."""
    if setting.method == "probability":
        return calibrate(values["p_yes"], setting.scale, setting.offset, setting.method)
    if setting.method in LEARNED_METHODS:
        return calibrate(values[RAW_SIGNAL[setting.method]], setting.scale, setting.offset, setting.method)
    raw = sum(coefficient * values.get(name, NAN) for name, coefficient in setting.signals.items())
    return calibrate(raw, setting.scale, setting.offset, setting.method)


def item_verdict(probabilities, ranked: bool = False):
    """(an item's probability, which of its judgements gave it): the best of them, NaN only when all are NaN; of
    judgements made best first (a setting's `top_windows`: the windows BM25 ranks first for a claim), the first that
    supports the item (`maths.is_yes`) when one does, since no later one can change the item's verdict: they need
    not be judged (`judge_items`)."""
    if ranked:
        for element, probability in enumerate(probabilities):
            if is_yes(probability):
                return probability, element
    best = (NAN, 0)
    for element, probability in enumerate(probabilities):
        if math.isnan(best[0]) or probability > best[0]:
            best = (probability, element)
    return best


def judged_best_first(judge, task: str, items, setting, batch_size=None, cache=True, progress=None):
    """Per item, the probabilities of its list field's elements (ranked best first by `preselect`) that need
    judging: round k judges the k-th element of every item that none of its elements so far supports, so a claim
    its first window supports is judged against no other."""
    listed = [list_field(fields) for fields in items]
    counts = [len(fields[name]) if name else 1 for fields, name in zip(items, listed)]
    judged = [[] for _ in items]
    pending = [index for index, count in enumerate(counts) if count]
    while pending:
        round_items = [{**items[index], listed[index]: items[index][listed[index]][len(judged[index])]}
                       if listed[index] else items[index] for index in pending]
        signals, _ = item_signals(judge, task, round_items, setting, None, batch_size, cache, progress)
        for index, values in zip(pending, signals):
            judged[index].append(verdict_probability(setting, values))
        pending = [index for index in pending if len(judged[index]) < counts[index] and not is_yes(judged[index][-1])]
    return judged


def judge_items(judge, task: str, items, groups=None, settings=None, batch_size=None, cache=True, progress=None):
    """Per item: (verdict probability, index of the element of its list field that gave it).

    `groups` (one key per item) adds the relative signals; `settings` overrides the judge's shipped ones. An item
    is judged against the elements of its list field that the setting's `top_windows` keeps (`preselect`), best
    first until one supports it (`judged_best_first`, `item_verdict`); the index is the element's in the whole list.
    """
    if not items:
        return []
    setting = judge_settings(judge, task, settings)
    items, kept = preselect(items, setting.top_windows)
    ranked = bool(setting.top_windows) and groups is None  # relative signals need every element of a group at once
    if ranked:
        judged = judged_best_first(judge, task, items, setting, batch_size, cache, progress)
    else:
        signals, owners = item_signals(judge, task, items, setting, groups, batch_size, cache, progress)
        judged = [[] for _ in items]
        for values, owner in zip(signals, owners):
            judged[owner].append(verdict_probability(setting, values))
    verdicts = [item_verdict(probabilities, ranked) for probabilities in judged]
    return [(probability, element if indices is None else indices[element])
            for (probability, element), indices in zip(verdicts, kept)]


def verdict_probabilities(judge, task: str, items, groups=None, settings=None, batch_size=None, cache=True, progress=None):
    """Calibrated verdict probabilities for `items`, in one batched pass (see `judge_items`)."""
    return [p for p, _ in judge_items(judge, task, items, groups, settings, batch_size, cache, progress)]
