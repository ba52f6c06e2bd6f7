"""Labelled rows for the fine-tuned judge, as the product judges them: reading, sampling, the held-out split,
windows and minimal edits.

The fine-tuned judge (`tuning`) trains on these rows, and the verdict board (`benchmarks/verdict_board.py`) measures
on them. Rows are (source, claim, label) pairs from ../shared/train (`read_train`), each file sampled with balanced
labels.
The statement is the claim, or "Question: … / Answer: …" for question-answering rows (`verification.statement`).
A summary is judged in the product's unit, one sentence at a time (`summary_sentences`): a span-annotated summary
gives a row per sentence (unsupported where it overlaps a marked span), a supported summary a supported row per
sentence, and an unsupported one with a summary-level label only the one sentence that differs from its supported
twin, or stays whole where no sentence can be singled out.
A source is cut to one window as the product cuts it (`text.source_windows`): the window sharing most
character trigrams with the claim (`text.closest_sentence`), so a supported claim keeps its evidence and an
unsupported one meets its nearest distractor. Minimal edits (`edits`) of supported claims stand beside their
unedited twins, and statements addressed to the checker (`edits.injected`) beside a share of the rows.

The held-out units (`HELD_OUT`) are fixed before any training and never trained on: whole English datasets,
whole languages and one SummEdits domain. From the other files, a validation sample (`training_split`) is drawn
before the training pool and never trained on: it chooses the checkpoint and fits the threshold, so the held-out
units are read once, for the chosen one. The pool runs in blocks that each hold what the product judges
(`mixed_blocks`: English grounding sets and minimal edits) beside NLI rows.
"""

import json
import math
import random
import re
from collections import Counter, defaultdict
from pathlib import Path

from ..keyfacts import source_kind
from ..text import claim_sentences, closest_sentence, source_sentences, source_windows
from .edits import KINDS, injected, minimal_edit, speaker_edit, speakers
from .verification import statement

# measured, never trained on: two English grounding datasets, chat summaries (faceval), span-annotated news
# summaries (cliff), three languages, one SummEdits domain
HELD_OUT = {"file": ("climate_fever", "faithdial_audit", "faceval", "cliff"), "language": ("de", "es", "zh"),
            "domain": ("podcast",)}
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


def training_split(rows, validation_per_file: int, seed):
    """(training rows, validation rows) of `rows`, both without the held-out units: `validation_per_file` rows of
    each file with balanced labels (`per_file_sample`) for validation, every row of a source no validation row
    has for training (the other sentences of a validated summary, or hypotheses of a validated premise, would
    let validation read text the judge was trained on)."""
    candidates = [row for row in rows if not held_out(row)]
    validation = per_file_sample(candidates, validation_per_file, f"{seed}:validation")
    validated = {(row["file"], row["source"]) for row in validation}
    return [row for row in candidates if (row["file"], row["source"]) not in validated], validation


# ------------------------------------------------------------------ summaries in the product's unit
def sentence_offsets(text: str, sentences):
    """The (start, end) character span of each of `sentences` (`split_sentences` of `text`, whitespace
    normalised) in `text`, in order; None where one cannot be found."""
    spans, position = [], 0
    for sentence in sentences:
        found = re.compile(r"\s+".join(map(re.escape, sentence.split()))).search(text, position)
        if not found:
            return None
        spans.append(found.span())
        position = found.end()
    return spans


def summary_sentences(rows):
    """`rows` with every multi-sentence summary (`task` "summary", not one sentence of a summary already) in the
    product's unit, a row per sentence (id `<summary's id>#<sentence>`, `reduced` says how):

    * "spans": a summary with marked unsupported spans, unsupported, gives every sentence, unsupported where it
      overlaps a span, supported elsewhere (the annotators marked every error);
    * "sentences": a supported summary gives every sentence, supported;
    * "twin": an unsupported summary with a summary-level label only gives the one sentence that is not in a
      supported summary of the same source (a minimal edit of it: bump, SummEdits);
    * "whole": one that has no such sentence stays whole, as the product's lowest sentence would decide it.

    A (source, sentence) pair is kept once per file, the first time it comes."""
    supported = defaultdict(list)
    for row in rows:
        if row.get("task") == "summary" and row["label"] == 1:
            supported[row["file"], row["source"]].append(set(claim_sentences(row["claim"])))
    made, seen = [], set()
    for row in rows:
        for unit in _summary_units(row, supported[row["file"], row["source"]]):
            key = (unit["file"], unit["source"], unit["claim"])
            if key not in seen:
                seen.add(key)
                made.append(unit)
    return made


def _summary_units(row, twins):
    """The rows `summary_sentences` makes of one row; `twins`: the sentence sets of the supported summaries of
    its source."""
    sentences = claim_sentences(row["claim"]) if row.get("task") == "summary" and "sentence" not in row else []
    if len(sentences) < 2:
        return [row]

    def unit(index, label, reduced):
        return {**row, "id": f"{row['id']}#{index}", "claim": sentences[index], "label": label, "reduced": reduced}

    if int(row["label"]) == 1:
        return [unit(index, 1, "sentences") for index in range(len(sentences))]
    offsets = sentence_offsets(row["claim"], sentences) if row.get("spans") else None
    if offsets:
        marked = [any(start < span[1] and span[0] < end for span in row["spans"]) for start, end in offsets]
        if any(marked):
            return [unit(index, int(not wrong), "spans") for index, wrong in enumerate(marked)]
    differing = min(([index for index, sentence in enumerate(sentences) if sentence not in twin] for twin in twins),
                    key=len, default=[])
    if len(differing) == 1:
        return [unit(differing[0], 0, "twin")]
    return [{**row, "reduced": "whole"}]


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
    sentences = source_sentences(source)
    windows = [" ".join(sentences[first:end]) for first, end in source_windows(sentences, count_tokens, window_tokens)]
    return closest_sentence(claim, windows) if len(windows) > 1 else " ".join(sentences)


def example(row, document: str, claim: str = None, label: int = None, edit: str = "") -> dict:
    """One training or measuring example: what the judge reads and the label, with where it came from."""
    return {
        "document": document,
        "statement": statement(row["claim"] if claim is None else claim, row.get("question")),
        "label": int(row["label"] if label is None else label),
        "file": row["file"], "language": row["language"], "domain": row.get("domain"), "task": row.get("task"), "edit": edit,
        "reduced": row.get("reduced"),
        "id": row["id"] + (f"+{edit}" if edit else ""),
    }


def examples(rows, count_tokens, window_tokens: int, edit_share: float = 0.0, seed=0, injection_share: float = 0.0):
    """The examples of `rows` (one window each), and for a share `edit_share` of the supported ones a minimal
    edit labelled unsupported, judged against the same window (the kinds taken in turn, the next applicable), and
    of a claim about a dialogue (`keyfacts.source_kind`) its speakers traded too (`edits.speaker_edit`); for a share
    `injection_share` of all rows, a statement addressed to the checker (`edits.injected`), alone or after the
    claim, labelled unsupported, against the same window."""
    made = []
    kinds = list(KINDS)
    # the injections and the speaker edits draw from streams of their own, so the other edits stay as they were
    rng, injection_rng = random.Random(seed), random.Random(f"{seed}:injection")
    speaker_rng = random.Random(f"{seed}:speaker")
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
        if row["label"] == 1 and speaker_rng.random() < edit_share and source_kind(row["source"]) == "dialogue":
            if edited := speaker_edit(row["claim"], speakers(row["source"]), row["id"]):
                made.append(example(row, document, edited, 0, "speaker"))
        if injection_rng.random() < injection_share:
            made.append(example(row, document, injected(row["claim"], row["id"]), 0, "injection"))
    return made


# ------------------------------------------------------------------ the mix of a training block
def grounding(item) -> bool:
    """Whether a training example is what the product judges: a row of an English grounding set (not NLI) or a
    minimal edit (any language)."""
    return bool(item["edit"]) or (item["language"] == "en" and item.get("task") != "nli")


def family_weights(frame):
    """Per row of `frame` (a DataFrame with `file` and `nli` columns), as a numpy array: each file counts the same
    within its family, and the English grounding sets as much as the NLI sets."""
    sizes = frame.groupby("file")["file"].transform("size")
    files = frame.groupby("nli")["file"].transform("nunique")
    return (1.0 / (sizes * files)).to_numpy()


def summary(item) -> bool:
    """Whether a training example is a summary's (a sentence of it, or an edit of one)."""
    return item.get("task") == "summary"


def mixed_blocks(items, block: int, seed, grounding_share=0.5, file_share=0.1, summary_share=0.0):
    """`items` (training examples) in whole blocks of `block`, each holding at least `grounding_share` grounding
    examples (`grounding`: English rows and minimal edits, in the shares they have in `items`, so that every
    block looks alike from the first to the last), of them at least `summary_share` of the block summaries'
    (`summary`: their unedited rows come first), and at most `file_share` of one file, filled up with NLI rows:
    entailments first, as many as the edits (all unsupported) leave the block short of half supported, then the
    other NLI rows. Files take turns within each part. Stops at the first block the rest cannot fill so, or cannot
    keep half supported (within a row): the examples left are unused (without that check, the blocks after the
    entailments ran out were nine in ten unsupported: docs/tuning.md, run 10)."""
    rng = random.Random(seed)
    shuffled = list(items)
    rng.shuffle(shuffled)
    summaries, english, edited = defaultdict(list), defaultdict(list), defaultdict(list)
    nli = {0: defaultdict(list), 1: defaultdict(list)}
    for item in shuffled:
        queue = (edited if item["edit"] else summaries if summary(item) else english if grounding(item)
                 else nli[item["label"]])
        queue[item["file"]].append(item)
    cap, least, summaries_least = int(block * file_share), math.ceil(block * grounding_share), math.ceil(block * summary_share)
    summary_rows, english_rows, edits = (sum(map(len, queue.values())) for queue in (summaries, english, edited))
    english_per_block = round(least * (english_rows + summary_rows) / max(1, english_rows + summary_rows + edits))
    # the summaries take their share of the English rows, or `summary_share` where that is more
    summaries_per_block = max(summaries_least, round(english_per_block * summary_rows / max(1, english_rows + summary_rows)))
    ordered = []
    while True:
        per_file = Counter()
        chosen = _in_turns(summaries, summaries_per_block, per_file, cap, rng)
        chosen += _in_turns(english, english_per_block - len(chosen), per_file, cap, rng)
        chosen += _in_turns(edited, least - len(chosen), per_file, cap, rng)
        short_of_supported = block // 2 - sum(item["label"] for item in chosen)
        chosen += _in_turns(nli[1], min(max(0, short_of_supported), block - len(chosen)), per_file, cap, rng)
        # where a part runs short, the others fill in (more grounding only raises its share)
        for queue in (nli[0], nli[1], english, summaries, edited):
            chosen += _in_turns(queue, block - len(chosen), per_file, cap, rng)
        supported = sum(item["label"] for item in chosen)
        if (len(chosen) < block or sum(map(grounding, chosen)) < least or sum(map(summary, chosen)) < summaries_least
                or abs(supported - block / 2) > 1):
            return ordered
        rng.shuffle(chosen)
        ordered += chosen


def _in_turns(by_file, wanted: int, per_file: Counter, cap: int, rng):
    """Up to `wanted` examples popped from `by_file` ({file: examples}), the files taking one each in turn (a
    seeded order), a file dropping out when empty or at `cap` examples in `per_file` (updated)."""
    files = sorted(by_file)
    rng.shuffle(files)
    taken = []
    while len(taken) < wanted:
        open_files = [file for file in files if by_file[file] and per_file[file] < cap]
        if not open_files:
            break
        for file in open_files[: wanted - len(taken)]:
            taken.append(by_file[file].pop())
            per_file[file] += 1
    return taken
