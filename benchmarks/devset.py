"""What the benchmarks share about the development set (../shared/devset): where it is, how its files are read,
which rows belong to the same source article (the unit that out-of-fold checks keep together), and the plain
pairs measured through the metric's own path."""

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

from localjudge import calibration

DEVSET = Path(__file__).resolve().parents[2] / "shared" / "devset"
# Articles that occur in two datasets (data README): each pair is one source, so it stays in one fold.
SAME_ARTICLE = {
    "cnn-test-88c2481234e763c9bbc68d0ab1be1d2375c1349a": "cnndm-87",
    "bcee5a200f09": "cnndm-16",
    "f71944683d5f": "cnndm-226",
}


def load_rows(path, datasets=None, limit=None) -> pd.DataFrame:
    """The rows of one JSON Lines file, optionally only some datasets and the first `limit` rows of each."""
    frame = pd.read_json(path, lines=True, dtype=False)
    if datasets:
        frame = frame[frame["dataset"].isin(datasets)]
    if limit:
        frame = frame.groupby("dataset", sort=False).head(limit) if "dataset" in frame else frame.head(limit)
    return frame.reset_index(drop=True)


def records(name, limit=None):
    """The rows of `DEVSET/name` as dicts."""
    return load_rows(DEVSET / name, limit=limit).to_dict("records")


def article_group(article_id: str) -> int:
    """A fixed number per source article (summaries: `doc_id`; RAG and plain rows: `id`), the same for the
    articles that two datasets share."""
    article_id = SAME_ARTICLE.get(article_id, article_id)
    return int.from_bytes(hashlib.sha256(article_id.encode()).digest()[:4], "big")


def plain_pairs_report(judge, setting) -> str:
    """The plain dev pairs through the metric's own path (claims, windows, best window, one threshold) with the
    alignment verdict `setting`: pairs with the faithful summary at 1 and the wrong one below (both right), each
    side alone, and soft ranks (mean claim probability), overall and per language. No fit saw these pairs."""
    pairs = records("plain_pairs.jsonl")
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
