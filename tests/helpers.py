"""Test helpers: a scripted judge with known verdicts, for exact tests of the metric maths, and project-written
statements with one fact swapped, in five languages, for the real judge's verdicts."""

import re

_ITEM = re.compile(r"<(context|claim|question)>\n(.*?)\n</\1>", re.DOTALL)


class ScriptedJudge:
    """Stands in for `localjudge.Judge`: answers from tables instead of a model.

    `verdicts` maps the judged item (the claim, question or chunk text quoted in a verdict prompt) to its
    P(yes); `generations` maps a substring of a generation prompt to the text generated for it.
    Unknown items get `default`. Every call is recorded in `calls`.
    """

    name = "scripted"
    fingerprint = "scripted"
    context_window = 1_000_000

    def __init__(self, verdicts=None, generations=None, default=0.0):
        self.verdicts = dict(verdicts or {})
        self.generations = dict(generations or {})
        self.default = default
        self.calls = []

    def sanitize(self, text):
        return text

    def render(self, user, system=None):
        return user

    def truncate(self, text, max_tokens):
        return text, 0

    def count_tokens(self, text):
        return len(text.split())

    def item_of(self, prompt):
        items = {tag: text for tag, text in _ITEM.findall(prompt)}
        for tag in ("context", "claim", "question"):
            if tag in items:
                return items[tag]
        raise AssertionError(f"no judged item in prompt: {prompt!r}")

    def yes_probability(self, prompts, batch_size=None, cache=True, progress=None):
        self.calls.append(("yes_probability", list(prompts)))
        return [self.verdicts.get(self.item_of(prompt), self.default) for prompt in prompts]

    def generate(self, prompts, max_new_tokens=256, batch_size=None, cache=True, progress=None):
        self.calls.append(("generate", list(prompts)))
        outputs = []
        for prompt in prompts:
            matches = [text for key, text in self.generations.items() if key in prompt]
            outputs.append(matches[0] if matches else "")
        return outputs


# (language, document, a faithful statement, the same with one number swapped, the same with one name swapped)
SWAP_CASES = [
    (
        "en",
        "The Harwick bridge reopened to traffic on 3 June after eight months of repairs carried out by Dalton "
        "Works. Cyclists now have a separate lane on its north side.",
        "Dalton Works repaired the Harwick bridge for eight months before it reopened on 3 June.",
        "Dalton Works repaired the Harwick bridge for eight months before it reopened on 9 June.",
        "Marlow Works repaired the Harwick bridge for eight months before it reopened on 3 June.",
    ),
    (
        "de",
        "Das Stadtmuseum Lindau zeigt ab März 240 historische Uhren aus der Sammlung von Clara Brenner. Der "
        "Eintritt ist für Kinder unter zwölf Jahren frei.",
        "Ab März sind im Stadtmuseum Lindau 240 alte Uhren aus der Sammlung von Clara Brenner zu sehen.",
        "Ab März sind im Stadtmuseum Lindau 420 alte Uhren aus der Sammlung von Clara Brenner zu sehen.",
        "Ab März sind im Stadtmuseum Lindau 240 alte Uhren aus der Sammlung von Greta Hofmann zu sehen.",
    ),
    (
        "fr",
        "La boulangerie Morel, ouverte à Rennes en 1987, a remporté cette année le prix de la meilleure baguette "
        "de la région. Elle emploie aujourd'hui six personnes.",
        "Ouverte à Rennes en 1987, la boulangerie Morel a gagné le prix régional de la meilleure baguette.",
        "Ouverte à Rennes en 1997, la boulangerie Morel a gagné le prix régional de la meilleure baguette.",
        "Ouverte à Nantes en 1987, la boulangerie Morel a gagné le prix régional de la meilleure baguette.",
    ),
    (
        "es",
        "El tren entre Valdoria y Puerto Claro tarda ahora dos horas y cuarto gracias a la nueva vía. Sale cada "
        "mañana a las 7:40 desde la estación de Santa Inés.",
        "El tren de Valdoria a Puerto Claro sale cada mañana a las 7:40 desde la estación de Santa Inés.",
        "El tren de Valdoria a Puerto Claro sale cada mañana a las 9:40 desde la estación de Santa Inés.",
        "El tren de Valdoria a Puerto Claro sale cada mañana a las 7:40 desde la estación de San Marcos.",
    ),
    (
        "zh",
        "青石镇图书馆上个月完成了扩建，新增了一间可容纳40人的儿童阅览室，由林晓梅馆长负责。图书馆每周一闭馆。",
        "青石镇图书馆扩建后新增了一间可容纳40人的儿童阅览室，由林晓梅馆长负责。",
        "青石镇图书馆扩建后新增了一间可容纳80人的儿童阅览室，由林晓梅馆长负责。",
        "青石镇图书馆扩建后新增了一间可容纳40人的儿童阅览室，由王建国馆长负责。",
    ),
]


def judged_swaps(judge, setting):
    """Per language of `SWAP_CASES`: P(supported) of (the faithful, the number-swapped, the name-swapped) statement
    under the alignment verdict `setting`, through the metric's own path (claims against windows, the best window)."""
    from localjudge.verdicts import verdict_probabilities

    items = [{"document": [document], "claim": claim} for _, document, *claims in SWAP_CASES for claim in claims]
    probabilities = verdict_probabilities(judge, "alignment", items, settings={"alignment": setting})
    return {case[0]: tuple(probabilities[3 * i : 3 * i + 3]) for i, case in enumerate(SWAP_CASES)}
