"""Rebuild a judge's shipped grounding head from ../shared/train, from scratch, and print every figure of its card.

    python scripts/train_head.py                          # the default judge: features, figures, weights
    python scripts/train_head.py --features-only          # featurise (resumable) and stop
    python scripts/train_head.py --judge qwen2.5-coder-1.5b

A fixed, seeded sample of every file of ../shared/train (balanced classes, sources of at most MAX_SOURCE_CHARS
characters, whole sources for the sets whose claims share one) goes through the judge once; its states land
in the judge's result cache (outside the repository) batch by batch, so a stopped run resumes. Then, all out
of fold (`localjudge.heads.transfer_report`): leave-one-dataset-out over the English sets, leave-one-language-out
over the NLI sets, leave-one-domain-out over SummEdits, each beside word overlap; the plain dev pairs (which no
fit sees); and the weights fitted on every sampled row, written to localjudge/heads/data/ with their data card
figures.
"""

import argparse
import json
import os
import random
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from localjudge import calibration, heads, load_judge  # noqa: E402
from localjudge.baselines import ngram_precision  # noqa: E402
from localjudge.prompts import Verdict  # noqa: E402
from localjudge.verdicts import judge_settings  # noqa: E402

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "train"
DEVSET = TRAIN.parent / "devset"
SEED = 23
# one window of the default judge holds this much; longer sources would need windows in training too
MAX_SOURCE_CHARS = 3500
# rows sampled per file, and how many claims one source may give (sets whose claims share a source are
# featurised far faster: the judge runs a shared document once per batch)
SAMPLE = {"summedits": (480, 12), "lfqa_veri": (240, 4), "faithdial_audit": (240, 1), "wice": (120, 2)}
ENGLISH_ROWS = 300
NLI_ROWS = 60
SKIPPED = {"wice_nst"}  # every claim unsupported (its spans are token labels, not a verdict's)


def read(path):
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def sample(rows, count, per_source, rng):
    """`count` rows, half of each label where the file allows, at most `per_source` per source."""
    by_source = defaultdict(list)
    for row in rows:
        if len(row["source"]) <= MAX_SOURCE_CHARS:
            by_source[row["source"]].append(row)
    sources = sorted(by_source)
    rng.shuffle(sources)
    quota = {0: count // 2, 1: count - count // 2}
    chosen = []
    for source in sources:
        taken = 0
        for row in sorted(by_source[source], key=lambda row: row["id"]):
            if taken < per_source and quota[row["label"]] > 0:
                chosen.append(row)
                quota[row["label"]] -= 1
                taken += 1
    return chosen


def training_rows():
    rng = random.Random(SEED)
    rows = []
    for path in sorted(TRAIN.glob("*.jsonl")):
        name = path.name.split(".")[0]  # xnli.de.jsonl: xnli
        if name in SKIPPED:
            continue
        file_rows = read(path)
        nli = file_rows[0]["task"] == "nli"
        count, per_source = SAMPLE.get(name, (NLI_ROWS if nli else ENGLISH_ROWS, 1))
        rows += [{**row, "file": path.stem, "nli": nli} for row in sample(file_rows, count, per_source, rng)]
    return rows


def items_of(rows):
    return [{"document": row["source"], "statement": heads.statement(row["claim"], row.get("question"))} for row in rows]


def plain_pairs(judge, head_path):
    """The plain dev pairs through the metric's own path (claims, windows, best window) with the head at
    `head_path`: pairs with the faithful summary at 1 and the wrong one below (both right), soft ranks."""
    pairs = read(DEVSET / "plain_pairs.jsonl")
    setting = Verdict("head", window_tokens=judge_settings(judge, "alignment").window_tokens, head=str(head_path))
    summaries = [pair[kind] for pair in pairs for kind in ("faithful", "wrong")]
    sources = [pair["source"] for pair in pairs for _ in range(2)]
    _, signals = calibration.claim_signals(judge, summaries, sources, setting, progress=True)
    probabilities = [[calibration.claim_probability(setting, windows) for windows in claims] for claims in signals]
    table = pd.DataFrame(
        [
            {
                "language": pair["language"],
                "both right": min(faithful) >= 0.5 and min(wrong) < 0.5,
                "faithful = 1": min(faithful) >= 0.5,
                "wrong < 1": min(wrong) < 0.5,
                "soft ranks": np.mean(faithful) > np.mean(wrong),
            }
            for pair, faithful, wrong in zip(pairs, probabilities[0::2], probabilities[1::2])
        ]
    )
    by_language = table.groupby("language").sum().assign(pairs=table.groupby("language").size())
    return (f"## Plain dev pairs ({len(table)}; no fit saw them): both right {table['both right'].sum()}, faithful = 1 "
            f"{table['faithful = 1'].sum()}, wrong < 1 {table['wrong < 1'].sum()}, soft ranks {table['soft ranks'].sum()}\n"
            + by_language.to_string())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", default="qwen2.5-coder-0.5b")
    parser.add_argument("--features-only", action="store_true")
    args = parser.parse_args()
    judge = load_judge(args.judge)
    layers = heads.candidate_layers(judge)
    rows = training_rows()
    frame = pd.DataFrame(rows)
    print(f"{len(frame)} rows from {frame.file.nunique()} files; judge {judge.name}, layers {layers}", flush=True)
    # the judge saves the states batch by batch: a stopped run computes only what is missing
    states = heads.head_features(judge, "alignment", items_of(rows), layers, progress=True)
    if args.features_only:
        return
    frame["overlap"] = [ngram_precision(claim, source, 2) for claim, source in zip(frame.claim, frame.source)]
    frame["zero_shot"] = heads.zero_shot_margins(judge, states[:, layers.index(judge.model.config.num_hidden_layers)])
    report, head = heads.transfer_report(frame, states, layers, judge.settings_key)
    print(report)
    path = heads.save_head(head, heads.default_head_path(judge))
    print(f"saved {path} (fingerprint {head.fingerprint})")
    heads.shipped_head.cache_clear()
    print(plain_pairs(judge, path))


if __name__ == "__main__":
    main()
