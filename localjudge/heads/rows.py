"""Labelled rows for the learned verdicts, as the product judges them: reading, sampling, the held-out split,
windows and minimal edits.

Both learned verdicts read the same rows: a grounding head (`model`) and the fine-tuned judge (`tuning`). Rows
are (source, claim, label) pairs from ../shared/train (`read_train`), each file sampled with balanced labels.
The statement is the claim, or "Question: … / Answer: …" for question-answering rows (`features.statement`).
A source is cut to one window as the product cuts it (`text.source_windows`): the window sharing most
character trigrams with the claim (`text.closest_sentence`), so a supported claim keeps its evidence and an
unsupported one meets its nearest distractor. Minimal edits (`edits`) of supported claims stand beside their
unedited twins.

The held-out units (`HELD_OUT`) are fixed before any training and never trained on: whole English datasets,
whole languages and one SummEdits domain.
"""

import json
import random
from collections import defaultdict
from pathlib import Path

from ..text import closest_sentence, source_windows, split_sentences
from .edits import KINDS, minimal_edit
from .features import statement

# measured, never trained on: two English datasets, three languages, one SummEdits domain
HELD_OUT = {"file": ("climate_fever", "faithdial_audit"), "language": ("de", "es", "zh"), "domain": ("podcast",)}
# every claim unsupported: its spans are token labels, not a verdict's
SKIPPED_FILES = ("wice_nst",)


def read_jsonl(path):
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def read_train(directory):
    """Every row of every file of `directory` (../shared/train) but `SKIPPED_FILES`, with its file's stem."""
    rows = []
    for path in sorted(Path(directory).glob("*.jsonl")):
        if path.name.split(".")[0] not in SKIPPED_FILES:
            rows += [{**row, "file": path.stem} for row in read_jsonl(path)]
    return rows


def held_out(row) -> bool:
    """Whether `row` belongs to a unit kept for measurement."""
    return any(row.get(field) in values for field, values in HELD_OUT.items())


def held_out_unit(row) -> str:
    """The held-out unit a measured row is reported under ("file=climate_fever", "language=de", …)."""
    return next(f"{field}={row[field]}" for field, values in HELD_OUT.items() if row.get(field) in values)


def balanced_sample(rows, count, seed, max_source_chars=None):
    """Up to `count` rows, half of each label where the rows allow, seeded; sources longer than
    `max_source_chars` are left out."""
    rng = random.Random(seed)
    kept = [row for row in rows if max_source_chars is None or len(row["source"]) <= max_source_chars]
    rng.shuffle(kept)
    by_label = {label: [row for row in kept if row["label"] == label] for label in (0, 1)}
    half = count // 2
    take = {0: min(half, len(by_label[0])), 1: min(count - half, len(by_label[1]))}
    # a label short of its half leaves its place to the other
    take[0] = min(len(by_label[0]), count - take[1])
    return by_label[0][: take[0]] + by_label[1][: take[1]]


def per_file_sample(rows, count, seed, max_source_chars=None, group="file"):
    """`balanced_sample` of `count` rows from each value of `group`, in a seeded order."""
    by_group = defaultdict(list)
    for row in rows:
        by_group[row[group]].append(row)
    chosen = []
    for name in sorted(by_group):
        chosen += balanced_sample(by_group[name], count, f"{seed}:{name}", max_source_chars)
    random.Random(seed).shuffle(chosen)
    return chosen


def judged_window(source: str, claim: str, count_tokens, window_tokens: int) -> str:
    """The window of `source` (whole sentences, at most `window_tokens` tokens) that the product would judge
    `claim` against and that shares most with it."""
    sentences = split_sentences(source)
    windows = [" ".join(sentences[first:end]) for first, end in source_windows(sentences, count_tokens, window_tokens)]
    return closest_sentence(claim, windows) if len(windows) > 1 else " ".join(sentences)


def example(row, document: str, claim: str = None, label: int = None, edit: str = "") -> dict:
    """One training or measuring example: what the judge reads and the label, with where it came from."""
    return {
        "document": document,
        "statement": statement(row["claim"] if claim is None else claim, row.get("question")),
        "label": int(row["label"] if label is None else label),
        "file": row["file"], "language": row["language"], "domain": row.get("domain"), "edit": edit,
        "id": row["id"] + (f"+{edit}" if edit else ""),
    }


def examples(rows, count_tokens, window_tokens: int, edit_share: float = 0.0, seed=0):
    """The examples of `rows` (one window each), and for a share `edit_share` of the supported ones a minimal
    edit labelled unsupported, judged against the same window (the kinds taken in turn, the next applicable)."""
    made = []
    kinds = list(KINDS)
    rng = random.Random(seed)
    for row in rows:
        document = judged_window(row["source"], row["claim"], count_tokens, window_tokens)
        made.append(example(row, document))
        if row["label"] == 1 and rng.random() < edit_share:
            for kind in kinds:
                edited = minimal_edit(row["claim"], document, row["language"], kind, row["id"])
                if edited:
                    made.append(example(row, document, edited, 0, kind))
                    kinds.append(kinds.pop(kinds.index(kind)))  # the next edit starts with another kind
                    break
    return made
