"""What the benchmarks share about the development set (../shared/devset): where it is, how its files are read, and
which rows belong to the same source article (the unit that out-of-fold checks keep together)."""

import hashlib
from pathlib import Path

import pandas as pd

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
