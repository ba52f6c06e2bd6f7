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
import os
import random
import sys
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import pandas as pd  # noqa: E402

import devset  # noqa: E402  (benchmarks/devset.py: the plain pairs through the metric's path)
from localjudge import heads, load_judge  # noqa: E402
from localjudge.baselines import ngram_precision  # noqa: E402
from localjudge.prompts import Verdict  # noqa: E402
from localjudge.verdicts import judge_settings  # noqa: E402

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "train"
SEED = 23
# one window of the default judge holds this much; longer sources would need windows in training too
MAX_SOURCE_CHARS = 3500
# rows sampled per file, and how many claims one source may give (sets whose claims share a source are
# featurised far faster: the judge runs a shared document once per batch)
SAMPLE = {"summedits": (480, 12), "lfqa_veri": (240, 4), "faithdial_audit": (240, 1), "wice": (120, 2)}
ENGLISH_ROWS = 300
NLI_ROWS = 60


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
    by_file = defaultdict(list)
    for row in heads.rows.read_train(TRAIN):  # every file but wice_nst, whose claims are all unsupported
        by_file[row["file"]].append(row)
    for file, file_rows in by_file.items():
        nli = file_rows[0]["task"] == "nli"
        count, per_source = SAMPLE.get(file.split(".")[0], (NLI_ROWS if nli else ENGLISH_ROWS, 1))  # xnli.de: xnli
        rows += [{**row, "nli": nli} for row in sample(file_rows, count, per_source, rng)]
    return rows


def items_of(rows):
    return [{"document": row["source"], "statement": heads.statement(row["claim"], row.get("question"))} for row in rows]


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
    setting = Verdict("head", window_tokens=judge_settings(judge, "alignment").window_tokens, head=str(path))
    print(devset.plain_pairs_report(judge, setting))


if __name__ == "__main__":
    main()
