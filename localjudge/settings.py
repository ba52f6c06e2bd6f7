"""Verdict settings as files: what `localjudge.calibrate` writes and `settings=` of the metrics reads.

A settings file holds a {task: Verdict} table (`prompts.Verdict`) fitted for one judge, with the prompt version
it was fitted under and its cross-validated agreement. The result cache holds the judge's raw outputs (token
log-probabilities, P(yes)) keyed by the exact prompts, and settings turn them into verdicts afterwards: new
settings never reuse an old verdict, and rescoring with them reruns no judge pass. Results name the settings
they used (`settings_label`), with the fingerprint of every judge adapter they ran (`localjudge.learned`): new
learned weights never pass for old ones.
"""

import hashlib
import json
from pathlib import Path

from .prompts import DEFAULT_SETTINGS, JUDGE_SETTINGS, PROMPT_VERSION, Verdict
from .verdicts import LEARNED_METHODS, judge_settings

SETTINGS_FORMAT = "localjudge-settings/1"


def learned_fingerprint(setting) -> str:
    """"+adapter:<fingerprint>" for a tuned judge's verdict, else ''."""
    if setting.method == "tuned":
        from .learned.tuning import shipped_adapter  # torch: imported only where an adapter is named

        return f"+adapter:{shipped_adapter(setting.adapter).fingerprint}"
    return ""


def learned_fingerprints(settings) -> str:
    """The fingerprints of every learned verdict the settings run, in task order ('' for none)."""
    return "".join(learned_fingerprint(setting) for _, setting in sorted(settings.items()))


def settings_fingerprint(settings) -> str:
    text = json.dumps({task: setting._asdict() for task, setting in sorted(settings.items())}, sort_keys=True)
    return hashlib.sha256((text + learned_fingerprints(settings)).encode()).hexdigest()[:16]


def save_settings(path, settings, judge_name, report):
    """Write `settings` ({task: Verdict}) with the judge's name and the cross-validation `report` as JSON."""
    payload = {
        "format": SETTINGS_FORMAT,
        "judge": judge_name,
        "prompt_version": PROMPT_VERSION,
        "fingerprint": settings_fingerprint(settings),
        "settings": {task: setting._asdict() for task, setting in settings.items()},
        "cross_validation": report,
    }
    Path(path).write_text(json.dumps(payload, indent=2) + "\n")


def load_settings(path):
    """{task: Verdict} from a settings file written by `calibrate`; a clear error for anything else."""
    try:
        payload = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"Cannot read verdict settings from {path}: {error}") from None
    if not isinstance(payload, dict) or payload.get("format") != SETTINGS_FORMAT:
        raise ValueError(f"{path} is not a localjudge settings file (format {SETTINGS_FORMAT}); write one with localjudge.calibrate.")
    # files written while the grounding head shipped hold its field (issue 30, item 5, removed it): a head verdict
    # is then refused by its method (`verdicts.judge_settings`), any other reads as it was written
    return {task: Verdict(**{name: value for name, value in fields.items() if name != "head"})
            for task, fields in payload["settings"].items()}


def resolve_settings(settings):
    """`settings` as {task: Verdict}: None, a dict of Verdicts, or the path of a settings file."""
    if settings is None or isinstance(settings, dict):
        return settings
    return load_settings(settings)


def settings_label(judge, settings) -> str:
    """Which verdict settings a result used: the judge's shipped ones (with the fingerprint of each adapter that
    ran), or a settings file's fingerprint; "+<task>:no-adapter" for each learned verdict the judge could not give
    and replaced by its stateless one (`verdicts.judge_settings`: a served judge whose server does not apply the
    adapter)."""
    if settings:
        return f"fitted:{settings_fingerprint(settings)}{replaced_learned(judge, settings)[1]}"
    key = getattr(judge, "settings_key", judge.name)
    ran, replaced = replaced_learned(judge, {task: JUDGE_SETTINGS.get(key, DEFAULT_SETTINGS)[task] for task in DEFAULT_SETTINGS})
    return f"shipped:{key}@{PROMPT_VERSION}{learned_fingerprints(ran)}{replaced}"


def replaced_learned(judge, asked):
    """({task: the Verdict `judge` gives for it}, "+<task>:no-adapter" for each learned verdict of `asked` that it
    cannot give and replaces by its stateless one, `verdicts.judge_settings`)."""
    ran = {task: judge_settings(judge, task, asked) if setting.method in LEARNED_METHODS else setting
           for task, setting in asked.items()}
    return ran, "".join(f"+{task}:no-adapter" for task in sorted(asked) if ran[task] != asked[task])
