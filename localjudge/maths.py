"""The metric maths of the reference algorithms, as pure functions of verdicts (no model in here).

Formulas follow Ragas SummarizationScore / context utilization and Mastra SummarizationMetric
(see the metric cards). Where the references crash or disagree, the choice made here is stated inline.
"""

import math

import numpy as np
from scipy import stats

NAN = float("nan")
RAGAS_EPSILON = 1e-10


def is_yes(probability: float, threshold: float = 0.5) -> bool:
    return probability >= threshold


def fraction_yes(probabilities, asked: int, soft: bool = False) -> float:
    """Yes-verdicts over items *asked* (never over answers returned, so a judge that answers less cannot inflate).

    `soft=True` sums the verdict probabilities themselves instead of 0/1 verdicts (a missing verdict, NaN,
    counts 0 either way). Nothing asked → NaN: Ragas raises ZeroDivisionError there; the caller records the
    row as failed.
    """
    if asked == 0:
        return NAN
    if soft:
        return sum(0.0 if math.isnan(p) else p for p in probabilities[:asked]) / asked
    return sum(is_yes(p) for p in probabilities[:asked]) / asked


def conciseness_score(summary: str, text: str) -> float:
    """Ragas: 1 - min(len(summary), len(text)) / (len(text) + 1e-10), lengths in characters."""
    return 1 - min(len(summary), len(text)) / (len(text) + RAGAS_EPSILON)


def check_coeff(coeff: float):
    if not 0.0 <= coeff <= 1.0:
        raise ValueError(f"coeff must be in [0, 1] (the weight of conciseness), got {coeff}.")


def ragas_summary_score(qa_score: float, conciseness: float, length_penalty: bool = True, coeff: float = 0.5) -> float:
    """qa*(1-coeff) + conciseness*coeff; without the length penalty just qa (not Ragas' legacy qa*(1-coeff))."""
    check_coeff(coeff)
    if not length_penalty:
        return qa_score
    return qa_score * (1 - coeff) + conciseness * coeff


def alignment_score(probabilities, soft: bool = False) -> float:
    """Mastra: supported claims / claims; 'unsure' is not supported; no claims → 0."""
    return fraction_yes(probabilities, len(probabilities), soft) if probabilities else 0.0


def coverage_score(probabilities, asked: int, soft: bool = False) -> float:
    """Mastra scorer: answered questions / questions asked; none asked → 0."""
    return fraction_yes(probabilities, asked, soft) if asked else 0.0


def min_score(alignment: float, coverage: float, scale: float = 1.0) -> float:
    """Mastra: min(alignment, coverage) * scale (not rounded)."""
    return min(alignment, coverage) * scale


def average_precision(verdicts, epsilon: float = 0.0) -> float:
    """Σ_k precision@k · v_k / (Σ v + epsilon) over ranks k; v may be 0/1 verdicts or probabilities.

    No useful chunk → 0.0. `epsilon=1e-10` reproduces Ragas (a perfect ranking then gives 0.9999999999).
    """
    total, running, weighted = sum(verdicts), 0.0, 0.0
    for rank, verdict in enumerate(verdicts, start=1):
        running += verdict
        weighted += running / rank * verdict
    if total == 0:
        return 0.0
    return weighted / (total + epsilon)


def logit(probability: float) -> float:
    """log(p / (1 − p)), with p kept within 1e-12 of 0 and 1 (NaN stays NaN)."""
    probability = min(max(probability, 1e-12), 1 - 1e-12)
    return math.log(probability / (1 - probability))


def calibrate(value: float, scale: float, offset: float, method: str) -> float:
    """A verdict probability from a judge's raw output: sigmoid(scale * (x - offset)).

    x is logit(P(yes)) for probability verdicts and the per-token likelihood gain for likelihood verdicts.
    """
    if method == "probability":
        if (scale, offset) == (1.0, 0.0):
            return value  # identity calibration: keep the judge's probability exact
        value = logit(value)
    return 1 / (1 + math.exp(-max(min(scale * (value - offset), 700), -700)))


def scored_only(scores) -> list:
    """The scores of the rows that were scored: NaN marks a row that could not be."""
    return [score for score in scores if not math.isnan(score)]


def mean_of_scored(scores):
    """(mean over non-NaN scores, number of NaN rows); all rows failed → NaN, never a silent 'mean of empty'."""
    scored = scored_only(scores)
    return (sum(scored) / len(scored) if scored else NAN), len(scores) - len(scored)


def check_confidence_level(confidence_level: float):
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must be between 0 and 1 (e.g. 0.95), got {confidence_level}.")


def bootstrap_ci(scores, confidence_level, seed=0):
    """(low, high): a bootstrap confidence interval of the mean over the scored (non-NaN) `scores`.

    `scipy.stats.bootstrap`, percentile method, 9999 resamples of the scored rows, drawn with `seed`: the same
    scores give the same interval. The percentile method rather than scipy's default BCa: scores are bounded
    and lumpy (many rows exactly 0 or 1), and BCa's jackknife gives NaN when every row has the same score and
    holds rows x rows numbers in memory; the percentile interval of identical scores is that score.
    Fewer than 2 scored rows → (NaN, NaN): one score has no spread to resample, so the interval is unknown.
    """
    check_confidence_level(confidence_level)
    scored = np.array(scored_only(scores), dtype=np.float64)
    if len(scored) < 2:
        return NAN, NAN
    # 100 resamples at a time keep memory at 100 x rows numbers, whatever the dataset's size
    result = stats.bootstrap(
        (scored,), np.mean, confidence_level=confidence_level, method="percentile", batch=100, rng=seed
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)
