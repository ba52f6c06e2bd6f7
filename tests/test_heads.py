"""Grounding heads: the fit, the files (fingerprinted, refused by name when missing or altered), the head verdict's
maths through the metric's own path with scripted states, and the fallback of a judge with no states to read."""

import math
import re

import numpy as np
import pytest

from localjudge import heads
from localjudge.prompts import DEFAULT_SETTINGS, JUDGE_SETTINGS, Verdict
from localjudge.settings import settings_fingerprint, settings_label
from localjudge.verdicts import judge_items, judge_settings

from helpers import ScriptedJudge

_STATEMENT = re.compile(r"<statement>\n(.*?)\n</statement>", re.DOTALL)
_DOCUMENT = re.compile(r"<document>\n(.*?)\n</document>", re.DOTALL)


class StateJudge(ScriptedJudge):
    """A scripted judge whose 'hidden state' at a prompt's end is [1 if the statement occurs in the document, else
    0, the statement's length in words], the same in every layer."""

    def last_token_states(self, prompts, layers, batch_size=None, cache=True, progress=None):
        self.calls.append(("last_token_states", list(prompts)))
        states = []
        for prompt in prompts:
            statement, document = _STATEMENT.search(prompt).group(1), _DOCUMENT.search(prompt).group(1)
            states.append(np.array([[float(statement in document), len(statement.split())]] * len(layers), np.float32))
        return states


def synthetic(count=400, hidden=8, seed=0):
    rng = np.random.default_rng(seed)
    states = rng.normal(size=(count, 2, hidden)).astype(np.float32)
    labels = (states[:, 1, 0] + 0.5 * states[:, 0, 1] > 0).astype(int)
    return states, labels


@pytest.mark.parametrize("kind", heads.model.KINDS)
def test_a_fitted_head_separates_its_classes_and_survives_a_round_trip(tmp_path, kind):
    states, labels = synthetic()
    head = heads.fit_head(states, labels, kind=kind, C=1.0, layers=(3, 5), judge="synthetic")
    accuracy = np.mean((head.logits(states) >= 0) == labels)
    assert accuracy > 0.85
    loaded = heads.load_head(heads.save_head(head, tmp_path / "head.npz"))
    assert loaded.fingerprint == head.fingerprint and loaded.layers == (3, 5)
    np.testing.assert_array_equal(loaded.logits(states), head.logits(states))


def test_rows_with_nan_states_are_left_out_of_the_fit_and_stay_nan():
    states, labels = synthetic()
    states[0] = np.nan
    head = heads.fit_head(states, labels, C=1.0, layers=(1, 2))
    logits = head.logits(states)
    assert math.isnan(logits[0]) and not np.isnan(logits[1:]).any()


def test_a_missing_or_altered_head_file_is_refused_by_name(tmp_path):
    head = heads.fit_head(*synthetic(), C=1.0, layers=(1, 2))
    path = heads.save_head(head, tmp_path / "head.npz")
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "gone.npz"))):
        heads.load_head(tmp_path / "gone.npz")
    with np.load(path) as data:
        arrays = dict(data)
    arrays["weights"] = arrays["weights"] + 1e-3
    with open(path, "wb") as file:
        np.savez(file, **arrays)
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*fingerprint"):
        heads.load_head(path)
    path.write_bytes(b"not a head")
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*unreadable"):
        heads.load_head(path)


def test_the_head_verdict_keeps_each_claims_best_window(tmp_path):
    # one weight on "the statement occurs in the window": logit = 4 * (that − 0.5) with the bias
    head = heads.GroundingHead("scripted", (0,), "logistic", np.zeros(2, np.float32), np.ones(2, np.float32),
                               np.array([4.0, 0.0], np.float32), -2.0)
    path = heads.save_head(head, tmp_path / "head.npz")
    setting = Verdict("head", head=str(path))
    judge = StateJudge()
    items = [
        {"document": ["Nothing here.", "The park opens in May."], "claim": "The park opens in May."},
        {"document": ["Nothing here.", "Nor here."], "claim": "The park opens in May."},
    ]
    (supported, window), (unsupported, _) = judge_items(judge, "alignment", items, settings={"alignment": setting})
    assert window == 1
    assert supported == pytest.approx(1 / (1 + math.exp(-2.0)))
    assert unsupported == pytest.approx(1 / (1 + math.exp(2.0)))
    # a recalibrated head (scale and offset refitted by `calibrate`) moves its threshold, not its states
    shifted = setting._replace(scale=0.5, offset=1.0)
    (p, _), _ = judge_items(judge, "alignment", items, settings={"alignment": shifted})
    assert p == pytest.approx(1 / (1 + math.exp(-0.5 * (2.0 - 1.0))))


def test_a_judge_without_states_runs_its_stateless_verdict_and_says_so(tmp_path):
    head = heads.fit_head(*synthetic(), C=1.0, layers=(1, 2))
    path = heads.save_head(head, tmp_path / "head.npz")
    settings = {"alignment": Verdict("head", head=str(path))}
    served = ScriptedJudge()  # no last_token_states, as a served judge
    assert judge_settings(served, "alignment", settings) == DEFAULT_SETTINGS["alignment"]
    assert judge_settings(StateJudge(), "alignment", settings).method == "head"
    assert settings_label(served, None) == settings_label(StateJudge(), None)  # no head ran for either
    assert settings_label(served, settings).endswith("+alignment:no-states")
    with pytest.raises(ValueError, match="alignment"):
        judge_items(StateJudge(), "utilization", [{"question": "Q", "answer": "A", "context": "C"}],
                    settings={"utilization": Verdict("head", head=str(path))})
    assert settings_label(StateJudge(), settings) == f"fitted:{settings_fingerprint(settings)}"


def test_the_settings_fingerprint_follows_the_head_weights(tmp_path):
    states, labels = synthetic()
    path = tmp_path / "head.npz"
    heads.save_head(heads.fit_head(states, labels, C=1.0, layers=(1, 2)), path)
    settings = {"alignment": Verdict("head", head=str(path))}
    first = settings_fingerprint(settings)
    heads.save_head(heads.fit_head(states, 1 - labels, C=1.0, layers=(1, 2)), path)
    heads.shipped_head.cache_clear()
    assert settings_fingerprint(settings) != first


@pytest.mark.parametrize("judge_name", sorted(name for name in JUDGE_SETTINGS if heads.default_head_path(name).is_file()))
def test_shipped_heads_load_offline_and_match_their_card(judge_name):
    head = heads.shipped_head(judge_name)
    assert head.judge == judge_name and head.layers
    assert head.weights.shape == head.mean.shape == head.scale.shape
    assert head.card["rows"] > 1000 and head.card["leave_one_dataset_out"]
