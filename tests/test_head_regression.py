"""The shipped grounding head of the default judge, on project-written sentences in five languages, in fp32 and
bf16: a statement the document states must be judged supported above one it contradicts, and the head's one
fixed threshold must put the two on their own sides in most languages (measured transfer: docs/heads.md).
`HEAD_ALIGNMENT`, the head at the verdict board's threshold over 160-token windows, must judge a faithful
statement supported and above the same with one number or name swapped, in five languages, and a swapped name
unsupported where the board's languages say the verdict holds (German, French, Spanish; a swapped number sits at
the threshold: docs/benchmarks.md).
A paraphrase through a negation ("free" → "pay nothing") is a measured limit of the head: it is judged
unsupported, and the strict xfail turns red the day it is not, so that the docs are updated.
"""

import pytest

from localjudge import DEFAULT_JUDGE, heads, load_judge
from localjudge.prompts import HEAD_ALIGNMENT, Verdict
from localjudge.verdicts import verdict_probabilities

from helpers import SWAP_CASES, judged_swaps

# (language, document, a statement it supports, a statement it contradicts)
CASES = [
    (
        "en",
        "The Harwick bridge reopened to traffic on 3 June after eight months of repairs. Cyclists now have a "
        "separate lane on its north side.",
        "The Harwick bridge is open to traffic again after months of repair work.",
        "The Harwick bridge will stay closed to traffic for another year.",
    ),
    (
        "de",
        "Das Stadtmuseum Lindau zeigt ab März eine Ausstellung über historische Uhren. Der Eintritt ist für Kinder "
        "unter zwölf Jahren frei.",
        "Das Stadtmuseum Lindau zeigt ab März eine Ausstellung über alte Uhren.",
        "Das Stadtmuseum Lindau zeigt ab März eine Ausstellung über moderne Malerei.",
    ),
    (
        "fr",
        "La boulangerie Morel, ouverte en 1987, a remporté cette année le prix de la meilleure baguette de la "
        "région. Elle emploie aujourd'hui six personnes.",
        "La boulangerie Morel a gagné le prix régional de la meilleure baguette.",
        "La boulangerie Morel a fermé ses portes l'année dernière.",
    ),
    (
        "es",
        "El tren entre Valdoria y Puerto Claro tarda ahora dos horas, una menos que antes, gracias a la nueva vía. "
        "Sale cada mañana a las siete.",
        "Con la nueva vía, el tren de Valdoria a Puerto Claro es una hora más rápido.",
        "El tren de Valdoria a Puerto Claro ya no circula por las mañanas.",
    ),
    (
        "zh",
        "青石镇图书馆上个月完成了扩建，新增了一间儿童阅览室。图书馆每周一闭馆。",
        "青石镇图书馆扩建后有了儿童阅览室。",
        "青石镇图书馆每天都开放，从不闭馆。",
    ),
]


# (document, a paraphrase of it through a negation, a statement it contradicts)
NEGATED_PARAPHRASE = (
    CASES[1][1],
    "Kinder unter zwölf Jahren zahlen im Stadtmuseum Lindau keinen Eintritt.",
    "Das Stadtmuseum Lindau hat seine Uhrenausstellung abgesagt.",
)


@pytest.fixture(scope="module", params=["float32", "bfloat16"])
def judged(request):
    """Per case (and "negated"): (P(supported) of the supported statement, of the contradicted one), by the
    shipped head."""
    judge = load_judge(DEFAULT_JUDGE, dtype=request.param)
    setting = {"alignment": Verdict("head", head=judge.settings_key)}
    cases = [case[1:] for case in CASES] + [NEGATED_PARAPHRASE]
    items = [{"document": [document], "claim": claim} for document, *claims in cases for claim in claims]
    probabilities = verdict_probabilities(judge, "alignment", items, settings=setting)
    names = [case[0] for case in CASES] + ["negated"]
    return dict(zip(names, zip(probabilities[0::2], probabilities[1::2])))


def test_the_default_judge_ships_a_head_that_loads_offline():
    head = heads.shipped_head(DEFAULT_JUDGE)
    assert head.judge == DEFAULT_JUDGE and len(head.fingerprint) == 16


@pytest.mark.parametrize("language", [case[0] for case in CASES])
def test_a_supported_statement_is_judged_above_a_contradicted_one(judged, language):
    supported, contradicted = judged[language]
    assert supported > contradicted


def test_the_fixed_threshold_separates_most_languages(judged):
    right = [name for name, (supported, contradicted) in judged.items() if name != "negated" and supported >= 0.5 > contradicted]
    assert len(right) >= 3, judged


@pytest.mark.xfail(strict=True, reason="measured limit: a paraphrase through a negation reads as a contradiction")
def test_a_paraphrase_through_a_negation_is_judged_supported(judged):
    supported, contradicted = judged["negated"]
    assert supported > contradicted


@pytest.fixture(scope="module", params=["float32", "bfloat16"])
def swaps_judged(request):
    """Per language: P(supported) of (the faithful, the number-swapped, the name-swapped) statement, by
    `HEAD_ALIGNMENT`."""
    return judged_swaps(load_judge(DEFAULT_JUDGE, dtype=request.param), HEAD_ALIGNMENT)


@pytest.mark.parametrize("language", [case[0] for case in SWAP_CASES])
def test_the_board_head_supports_a_faithful_statement_above_its_swapped_twins(swaps_judged, language):
    faithful, number, name = swaps_judged[language]
    assert faithful >= 0.5 and faithful > number and faithful > name, swaps_judged[language]


@pytest.mark.parametrize("language", ["de", "fr", "es"])
def test_the_board_head_calls_a_swapped_name_unsupported(swaps_judged, language):
    _, _, name = swaps_judged[language]
    assert name < 0.5, swaps_judged[language]
