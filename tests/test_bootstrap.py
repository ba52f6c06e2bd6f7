"""The confidence interval of a dataset mean (`localjudge.maths.bootstrap_ci`) on fixed per-row scores:
scipy's percentile bootstrap over the scored rows, seeded, NaN rows left out, nothing for fewer than 2 rows."""

import math

import numpy as np
import pytest
from scipy import stats

from localjudge.maths import bootstrap_ci

# per-row scores of a made-up evaluation: lumpy, as real ones are (exact 0s and 1s), and two failed rows
SCORES = [0.2, 0.9, 0.5, 0.7, 1.0, 0.0, float("nan"), 0.6, 0.8, 1.0, 0.4, float("nan")]
SCORED = [score for score in SCORES if not math.isnan(score)]


def test_the_interval_is_scipys_percentile_bootstrap_of_the_scored_rows():
    direct = stats.bootstrap((np.array(SCORED),), np.mean, confidence_level=0.95, method="percentile", rng=0)
    assert bootstrap_ci(SCORES, 0.95) == (direct.confidence_interval.low, direct.confidence_interval.high)


def test_the_same_scores_give_the_same_interval_and_the_seed_is_what_draws_it():
    assert bootstrap_ci(SCORES, 0.95) == bootstrap_ci(list(SCORES), 0.95)
    assert bootstrap_ci(SCORES, 0.95, seed=1) != bootstrap_ci(SCORES, 0.95)


def test_failed_rows_are_left_out():
    assert bootstrap_ci(SCORES, 0.95) == bootstrap_ci(SCORED, 0.95)


def test_a_higher_level_gives_a_wider_interval_around_the_mean():
    low_90, high_90 = bootstrap_ci(SCORES, 0.9)
    low_99, high_99 = bootstrap_ci(SCORES, 0.99)
    assert low_99 < low_90 < np.mean(SCORED) < high_90 < high_99


def test_identical_scores_give_that_score():
    assert bootstrap_ci([1.0] * 5, 0.95) == (1.0, 1.0)


@pytest.mark.parametrize("scores", [[], [0.7], [float("nan"), 0.7, float("nan")]])
def test_fewer_than_two_scored_rows_give_no_interval(scores):
    low, high = bootstrap_ci(scores, 0.95)
    assert math.isnan(low) and math.isnan(high)


@pytest.mark.parametrize("level", [0, 1, 95, -0.5])
def test_a_level_outside_zero_to_one_is_refused(level):
    with pytest.raises(ValueError, match="confidence_level must be between 0 and 1"):
        bootstrap_ci(SCORES, level)
