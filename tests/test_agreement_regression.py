"""The default judge must keep beating word overlap on clear-cut, project-written cases.

A faithful claim and a contradicted one built from the source's own word pairs: bigram overlap cannot tell them
apart, the judge must rank each story's supported claim above its contradicted one. The dev-set
numbers live in docs/benchmarks.md; this guards the signal against silently vanishing (a prompt edit, a
calibration slip, an engine bug that scores the wrong position).
"""

import sys
from pathlib import Path

import pytest
from sklearn.metrics import roc_auc_score

from localjudge import DEFAULT_JUDGE, load_judge, score_contexts, score_summaries
from localjudge.baselines import chunk_overlap, ngram_precision

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import quickstart  # noqa: E402  (the README's example: its claims must stay true)

# Each contradicted claim is stitched from the source's own word pairs, so bigram overlap scores it as high as
# the supported one; only reading who did what tells them apart.
STORIES = [
    (
        "The Millbrook council approved the new park on Monday. The Dunmere council rejected the new school on Friday.",
        "The Millbrook council approved the new park on Monday.",
        "The Millbrook council rejected the new school on Friday.",
    ),
    (
        "Tom Hale opened the bakery in 1998. Ana Lee opened the library in 2005.",
        "Tom Hale opened the bakery in 1998.",
        "Tom Hale opened the library in 2005.",
    ),
    (
        "The Ravenford ferry stops running in winter. The Ravenford bus keeps running in summer.",
        "The Ravenford ferry stops running in winter.",
        "The Ravenford ferry keeps running in summer.",
    ),
]

RAG_ROWS = [
    (
        "Which year did the founder of Ravenford Bakery start it?",
        "1998",
        "Ravenford Bakery was started by Tom Hale in 1998 with a single oven.",
        "The Dunmere ferry stops running in winter because of storms.",
    ),
    (
        "What will the new Millbrook park have?",
        "A lake and a playground.",
        "Mayor Ana Lee said the new Millbrook park will have a lake and a playground.",
        "Ravenford Bakery won the regional bread prize for the third year in a row.",
    ),
]


@pytest.fixture(scope="module")
def judge():
    return load_judge(DEFAULT_JUDGE)


def test_supported_claims_rank_above_contradicted_ones(judge):
    summaries = [claim for _, supported, contradicted in STORIES for claim in (supported, contradicted)]
    sources = [[source] for source, _, _ in STORIES for _ in range(2)]
    rows = score_summaries(judge, summaries, sources, progress=False)
    labels = [1, 0] * len(STORIES)
    judge_auc = roc_auc_score(labels, [row["claims"][0]["p_yes"] for row in rows])
    overlap_auc = roc_auc_score(labels, [ngram_precision(s, src[0], 2) for s, src in zip(summaries, sources)])
    for row_supported, row_contradicted in zip(rows[::2], rows[1::2]):
        assert row_supported["claims"][0]["p_yes"] > row_contradicted["claims"][0]["p_yes"]
    assert judge_auc > overlap_auc


def test_readme_example_faithful_summary_wins_on_hard_verdicts(judge):
    """The README's pair: the faithful claim is supported, the wrong-fact claim and the appended order are not."""
    names = list(quickstart.SUMMARIES)
    inputs = (list(quickstart.SUMMARIES.values()), [[quickstart.SOURCE]] * len(names))
    mastra = dict(zip(names, score_summaries(judge, *inputs, final="min", progress=False)))
    ragas = dict(zip(names, score_summaries(judge, *inputs, progress=False)))
    faithful, wrong, ordered = mastra["faithful"], mastra["wrong fact"], mastra["wrong + order"]
    assert [claim["supported"] for claim in faithful["claims"]] == [True]
    assert not any(claim["supported"] for claim in wrong["claims"] + ordered["claims"])
    assert faithful["alignment_score"] > wrong["alignment_score"]
    assert faithful["score"] > wrong["score"]
    # the Ragas score checks no facts: the faithful summary must still not score below the wrong one
    assert ragas["faithful"]["score"] >= ragas["wrong fact"]["score"]
    for key in ("alignment_score", "coverage_score", "qa_score"):
        assert ordered[key] <= wrong[key] + 0.05
    assert ragas["wrong + order"]["score"] <= ragas["wrong fact"]["score"] + 0.05


def test_useful_chunks_rank_above_unrelated_ones(judge):
    rows = score_contexts(
        judge,
        [question for question, *_ in RAG_ROWS],
        [answer for _, answer, *_ in RAG_ROWS],
        [[unrelated, useful] for _, _, useful, unrelated in RAG_ROWS],
        progress=False,
    )
    for row in rows:
        unrelated, useful = (chunk["p_useful"] for chunk in row["chunks"])
        assert useful > unrelated
        assert row["score"] == 0.5 or useful >= 0.5 > unrelated
    overlaps = [
        [chunk_overlap(question, answer, unrelated), chunk_overlap(question, answer, useful)]
        for question, answer, useful, unrelated in RAG_ROWS
    ]
    assert all(useful >= unrelated for unrelated, useful in overlaps)  # overlap gets these easy ones too
