"""A grounding head as a fitted model: fit, save, load, apply.

The head is linear over the standardised states of a few layers: a logistic model (balanced classes, L2
penalty `C`), or a difference-of-means direction (which the probing literature finds to transfer better)
scaled by a one-feature logistic fit. Either way its logit's 0 is the one fixed threshold of its verdict.

Shipped heads are package data, `data/<judge>.npz`: the arrays and a JSON card (judge, layers, kind, the
rows and datasets it was fitted on, its out-of-fold figures) under a fingerprint of all of them, recomputed
and checked on every load, so a corrupt or hand-edited file is refused by name, never used.
"""

import dataclasses
import functools
import hashlib
import json
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from .paths import default_head_path

HEAD_FORMAT = "localjudge-head/1"
KINDS = ("logistic", "mean-difference")
# the fraction of the judge's depth at which states are read for fitting: the middle-to-late layers
CANDIDATE_DEPTHS = (1 / 3, 1 / 2, 2 / 3, 0.71, 5 / 6, 11 / 12, 1.0)


def candidate_layers(judge):
    """The layers whose states a fit may choose among (hidden-state indices; the last is the final output)."""
    depth = judge.model.config.num_hidden_layers
    return tuple(sorted({max(1, round(fraction * depth)) for fraction in CANDIDATE_DEPTHS}))


@dataclasses.dataclass(frozen=True)
class GroundingHead:
    """logit = weights · ((states of `layers`, concatenated) − mean) / scale + bias; supported when logit ≥ 0."""

    judge: str
    layers: tuple
    kind: str
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    card: dict = dataclasses.field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        digest = hashlib.sha256(json.dumps([self.judge, list(self.layers), self.kind, self.bias, self.card], sort_keys=True).encode())
        for array in (self.mean, self.scale, self.weights):
            digest.update(np.ascontiguousarray(array, dtype=np.float32).tobytes())
        return digest.hexdigest()[:16]

    def logits(self, states) -> np.ndarray:
        """The head's logit per item of a (items × len(layers) × hidden) array (NaN rows stay NaN)."""
        flat = np.asarray(states, dtype=np.float32).reshape(len(states), -1)
        return ((flat - self.mean) / self.scale) @ self.weights + self.bias


def fit_head(states, labels, weights=None, kind="logistic", C=0.01, layers=(), judge="") -> GroundingHead:
    """Fit a head on (items × layers × hidden) `states` and 0/1 `labels`, each row weighted by `weights` (the
    classes balanced on top). Rows with NaN states are left out."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}.")
    flat = np.asarray(states, dtype=np.float32).reshape(len(states), -1)
    labels = np.asarray(labels)
    weights = np.ones(len(labels)) if weights is None else np.asarray(weights, dtype=float)
    usable = ~np.isnan(flat).any(axis=1)
    flat, labels, weights = flat[usable], labels[usable], weights[usable]
    scaler = StandardScaler().fit(flat)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    standard = (flat - scaler.mean_) / scale
    if kind == "logistic":
        model = LogisticRegression(C=C, class_weight="balanced", max_iter=2000).fit(standard, labels, sample_weight=weights)
        direction, bias = model.coef_[0], float(model.intercept_[0])
    else:
        direction = _weighted_mean(standard, weights, labels == 1) - _weighted_mean(standard, weights, labels == 0)
        projection = (standard @ direction)[:, None]
        model = LogisticRegression(C=1e4, class_weight="balanced").fit(projection, labels, sample_weight=weights)
        direction, bias = direction * model.coef_[0, 0], float(model.intercept_[0])
    return GroundingHead(judge, tuple(layers), kind, scaler.mean_.astype(np.float32), scale.astype(np.float32),
                         direction.astype(np.float32), bias)


def _weighted_mean(values, weights, rows):
    return np.average(values[rows], axis=0, weights=weights[rows])


# ------------------------------------------------------------------ files
def save_head(head: GroundingHead, path) -> Path:
    card = {"format": HEAD_FORMAT, "judge": head.judge, "layers": list(head.layers), "kind": head.kind,
            "bias": head.bias, "card": head.card, "fingerprint": head.fingerprint}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:  # np.savez would add ".npz" to a path named otherwise
        np.savez(file, mean=head.mean, scale=head.scale, weights=head.weights, card=np.array(json.dumps(card)))
    return path


def load_head(path) -> GroundingHead:
    """A head from its file; a clear error naming the file when it is missing, unreadable or altered."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"Grounding head {path} is missing: reinstall localjudge-metrics, or rebuild it with "
            "`python scripts/train_head.py` (../shared/train)."
        )
    try:
        with np.load(path, allow_pickle=False) as data:
            card = json.loads(str(data["card"]))
            head = GroundingHead(card["judge"], tuple(card["layers"]), card["kind"], data["mean"], data["scale"],
                                 data["weights"], float(card["bias"]), card["card"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"Grounding head {path} is unreadable ({error}); reinstall localjudge-metrics or rebuild it.") from None
    if card.get("format") != HEAD_FORMAT or head.fingerprint != card.get("fingerprint"):
        raise ValueError(
            f"Grounding head {path} does not match its fingerprint ({card.get('fingerprint')}): the file is corrupt "
            "or was altered; reinstall localjudge-metrics or rebuild it with `python scripts/train_head.py`."
        )
    return head


@functools.lru_cache(maxsize=None)
def shipped_head(name: str) -> GroundingHead:
    """The shipped head of the judge `name` (or a head file's path), loaded once."""
    path = Path(name) if name.endswith(".npz") else default_head_path(name)
    return load_head(path)
