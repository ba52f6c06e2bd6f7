"""The default judge must keep beating word overlap on clear-cut, project-written cases, in fp32 and bf16 alike.

A faithful claim and a contradicted one built from the source's own word pairs: bigram overlap cannot tell them
apart, the judge must rank each story's supported claim above its contradicted one. Plain texts in five
languages (rows of the project's plain_pairs dev file, written for it): the faithful summary above the wrong one.
The dev-set numbers live in docs/benchmarks.md; this guards the signal against silently vanishing (a prompt
edit, a calibration slip, an engine bug that scores the wrong position). Every test runs the judge in both
dtypes: the verdicts were fitted in bf16, and a CPU without AVX512 runs fp32.
"""

import sys
from pathlib import Path

import pytest

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

# (language, source, faithful summary, wrong summary): pairs-dev-020, -005, -011, -034 and -018 of plain_pairs.jsonl
PLAIN_PAIRS = [
    (
        "en",
        "Fernhill Library will reopen on Monday after a three-month renovation that added a children's reading room "
        "and step-free access. Opening hours will stay the same, 9 a.m. to 6 p.m. on weekdays.",
        "After three months of renovation, Fernhill Library reopens on Monday with a new children's reading room and "
        "step-free access, keeping its usual weekday hours of 9 to 6.",
        "After three months of renovation, Fernhill Library reopens on Monday with a new children's reading room and "
        "a rooftop café, keeping its usual weekday hours of 9 to 6.",
    ),
    (
        "de",
        "Der Akku-Rasenmäher Grünwerk M36 der Firma Talberg ist für Gärten bis etwa 400 Quadratmeter gedacht. Die "
        "Schnitthöhe lässt sich in sechs Stufen zwischen 25 und 70 Millimetern einstellen. Der 36-Volt-Akku reicht "
        "laut Hersteller für rund 35 Minuten Mähzeit und ist nach 90 Minuten wieder vollständig geladen. Der Fangkorb "
        "fasst 40 Liter.",
        "Talbergs Akkumäher Grünwerk M36 eignet sich für Flächen bis rund 400 m², hat einen 40-Liter-Fangkorb und "
        "mäht laut Hersteller etwa 35 Minuten mit einer Akkuladung, die nach anderthalb Stunden wieder voll ist.",
        "Talbergs Akkumäher Grünwerk M36 eignet sich für Flächen bis rund 400 m², hat eine Mulchfunktion und mäht "
        "laut Hersteller etwa 35 Minuten mit einer Akkuladung, die nach anderthalb Stunden wieder voll ist.",
    ),
    (
        "fr",
        "Une équipe de l'Institut océanographique de Kerlan a observé pour la première fois des dauphins de Risso se "
        "nourrissant de nuit près des côtes bretonnes. Les enregistrements acoustiques montrent que les animaux "
        "chassent surtout des calmars entre minuit et quatre heures du matin. Les chercheurs comptent poser de "
        "nouveaux hydrophones l'été prochain.",
        "Des chercheurs de l'Institut océanographique de Kerlan ont vu pour la première fois des dauphins de Risso "
        "s'alimenter la nuit le long du littoral breton, surtout de calmars entre minuit et 4 h d'après leurs "
        "enregistrements acoustiques, et prévoient d'installer d'autres hydrophones l'été prochain.",
        "Des chercheurs de l'Institut océanographique de Kerlan ont vu pour la première fois des dauphins de Risso "
        "s'alimenter la nuit le long du littoral breton, surtout de calmars entre minuit et 4 h d'après leurs "
        "enregistrements acoustiques, et prévoient de retirer leurs hydrophones l'été prochain.",
    ),
    (
        "es",
        "La Sociedad de Dermatología de Almarosa recuerda que el protector solar debe aplicarse unos 20 minutos antes "
        "de la exposición al sol. Recomienda un factor de protección de al menos 30 y volver a aplicarlo cada dos "
        "horas, así como después de bañarse. Incluso los productos resistentes al agua pierden eficacia con el sudor "
        "y el roce de la toalla. Entre las 12 y las 16 horas conviene buscar la sombra. Los bebés menores de seis "
        "meses no deben exponerse directamente al sol. En días nublados también es necesario protegerse, ya que gran "
        "parte de la radiación atraviesa las nubes.",
        "La Sociedad de Dermatología de Almarosa aconseja un protector de factor 30 o superior, aplicado unos 20 "
        "minutos antes de exponerse y renovado cada dos horas y tras el baño, y recuerda que incluso los resistentes "
        "al agua pierden eficacia con el sudor y la toalla.",
        "La Sociedad de Dermatología de Almarosa aconseja un protector de factor 30 o superior, aplicado unos 20 "
        "minutos antes de exponerse y renovado cada dos horas y tras el baño, y recuerda que los resistentes al agua "
        "no pierden eficacia con el sudor ni con la toalla.",
    ),
    (
        "zh",
        "在周日举行的临江市业余围棋公开赛中，十六岁的高中生林书禾击败了三届冠军周启明，首次夺得冠军。比赛共有128名选手参加。",
        "在有128人参赛的临江市业余围棋公开赛上，十六岁高中生林书禾战胜三届冠军周启明，首度封王。",
        "在临江市业余围棋公开赛上，十六岁高中生林书禾战胜三届冠军周启明，首度封王并获得五万元奖金。",
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


@pytest.fixture(scope="module", params=["float32", "bfloat16"])
def judge(request):
    return load_judge(DEFAULT_JUDGE, dtype=request.param)


def test_supported_claims_rank_above_contradicted_ones(judge):
    summaries = [claim for _, supported, contradicted in STORIES for claim in (supported, contradicted)]
    sources = [[source] for source, _, _ in STORIES for _ in range(2)]
    rows = score_summaries(judge, summaries, sources, progress=False)
    for row_supported, row_contradicted in zip(rows[::2], rows[1::2]):
        assert row_supported["claims"][0]["p_yes"] > row_contradicted["claims"][0]["p_yes"]
    # word overlap cannot rank every story: its contradicted claims reuse the source's own word pairs
    overlaps = [ngram_precision(s, src[0], 2) for s, src in zip(summaries, sources)]
    assert not all(supported > contradicted for supported, contradicted in zip(overlaps[::2], overlaps[1::2]))


@pytest.mark.parametrize("language, source, faithful, wrong", PLAIN_PAIRS, ids=[pair[0] for pair in PLAIN_PAIRS])
def test_faithful_plain_summary_ranks_above_the_wrong_one_in_every_language(judge, language, source, faithful, wrong):
    good, bad = score_summaries(judge, [faithful, wrong], [[source]] * 2, final="min", soft=True, progress=False)
    assert good["alignment_score"] > bad["alignment_score"]
    assert all(claim["evidence"] in source for claim in good["claims"] + bad["claims"])
    if language == "zh":  # sentences end at "。" with no space after it
        assert len(good["questions"]) == 2


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
        assert useful >= 0.5 > unrelated
        assert row["score"] == 0.5
    overlaps = [
        [chunk_overlap(question, answer, unrelated), chunk_overlap(question, answer, useful)]
        for question, answer, useful, unrelated in RAG_ROWS
    ]
    assert all(useful >= unrelated for unrelated, useful in overlaps)  # overlap gets these easy ones too


def test_readme_example_irrelevant_chunk_is_not_useful(judge):
    """The README's retrieval: the pool chunk answers the question, the library chunk says nothing about the pool."""
    questions, answers = [quickstart.QUESTION] * 2, [quickstart.ANSWER] * 2
    first, second = score_contexts(judge, questions, answers, list(quickstart.RANKINGS.values()), progress=False)
    assert [chunk["p_useful"] >= 0.5 for chunk in first["chunks"]] == [True, False]
    assert (first["score"], second["score"]) == (1.0, 0.5)


def test_claim_supported_only_by_the_end_of_a_long_source():
    """80,000 characters: nothing is dropped, the end is read, and the contradicted claim scores lower. In the
    machine's default dtype only: about 40 windows, and bf16 is emulated (slow) on CPUs without AVX512-BF16."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import long_source

    source = long_source.long_source(80_000)
    rows = score_summaries(load_judge(DEFAULT_JUDGE), [long_source.SUPPORTED, long_source.CONTRADICTED], [[source]] * 2, progress=False)
    supported, contradicted = (row["claims"][0] for row in rows)
    assert not any(row["warnings"] for row in rows)
    assert supported["evidence"] == long_source.EVIDENCE
    assert supported["p_yes"] > contradicted["p_yes"]
