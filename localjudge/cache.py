"""Persistent result cache: one SQLite file, keyed by judge fingerprint + operation + exact prompt.

Every judge operation writes its results batch by batch, so an interrupted evaluation resumes without
recomputing anything already done. Each row stores a checksum of its value; a row whose value no longer
matches (a torn write, a hand-edited file) is treated as missing, deleted and recomputed.
"""

import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path


def default_cache_dir() -> Path:
    """`LOCALJUDGE_CACHE`, else `~/.cache/localjudge`."""
    return Path(os.environ.get("LOCALJUDGE_CACHE") or Path.home() / ".cache" / "localjudge")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(*parts: str) -> str:
    """One key for the parts, unambiguous: each part is length-prefixed before hashing."""
    return _digest("".join(f"{len(part)}:{part}" for part in parts))


class ResultCache:
    """A key → JSON value store in SQLite. Safe to share between threads of one process."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._connection = sqlite3.connect(self.path, check_same_thread=False, timeout=60)
        try:
            with self._lock, self._connection:
                self._connection.execute("PRAGMA journal_mode=WAL")
                self._connection.execute(
                    "CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, value TEXT NOT NULL, checksum TEXT NOT NULL)"
                )
        except sqlite3.DatabaseError as error:
            raise sqlite3.DatabaseError(
                f"The result cache {self.path} is unreadable ({error}); delete it to start an empty cache."
            ) from error

    def get_many(self, keys):
        """The cached values of `keys` as a dict; missing or corrupted entries are absent."""
        found, corrupted = {}, []
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for start in range(0, len(unique), 500):
                chunk = unique[start : start + 500]
                rows = self._connection.execute(
                    f"SELECT key, value, checksum FROM results WHERE key IN ({','.join('?' * len(chunk))})", chunk
                ).fetchall()
                for key, value, checksum in rows:
                    try:
                        if _digest(value) != checksum:
                            raise ValueError("checksum mismatch")
                        found[key] = json.loads(value)
                    except ValueError:
                        corrupted.append(key)
            if corrupted:
                with self._connection:
                    self._connection.executemany("DELETE FROM results WHERE key = ?", [(k,) for k in corrupted])
        return found

    def put_many(self, items):
        """Store `{key: value}` in one transaction."""
        rows = []
        for key, value in items.items():
            text = json.dumps(value)
            rows.append((key, text, _digest(text)))
        with self._lock, self._connection:
            self._connection.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?)", rows)

    def __len__(self):
        with self._lock:
            return self._connection.execute("SELECT COUNT(*) FROM results").fetchone()[0]
