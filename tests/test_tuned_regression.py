"""The default judge with its shipped adapter (`localjudge.prompts.TUNED_ALIGNMENT`), on project-written sentences in
five languages, in fp32 and bf16, through the metric's own path (claims against windows, the best window): a
faithful statement is judged above the same statement with one number swapped, and above it with one name
swapped, and the one threshold P(yes) = 0.5 puts faithful and swapped statements on their own sides in most
cases (measured transfer and its limits: docs/tuning.md).
"""

import pytest

from localjudge import DEFAULT_JUDGE, learned, load_judge
from localjudge.learned import tuning
from localjudge.prompts import SENTENCE_QUESTION, TUNED_ALIGNMENT, TUNED_COVERAGES
from localjudge.text import split_sentences
from localjudge.verdicts import verdict_probabilities
from localjudge.settings import settings_label

from helpers import SWAP_CASES as CASES
from helpers import judged_swaps

pytestmark = pytest.mark.skipif(not learned.default_adapter_path(DEFAULT_JUDGE).is_file(), reason="no adapter shipped")

@pytest.fixture(scope="module", params=["float32", "bfloat16"])
def judged(request):
    """Per language: P(supported) of (the faithful, the number-swapped, the name-swapped) statement."""
    return judged_swaps(load_judge(DEFAULT_JUDGE, dtype=request.param), TUNED_ALIGNMENT)


def test_the_shipped_adapter_loads_offline_and_results_name_it():
    judge = load_judge(DEFAULT_JUDGE)
    adapter = tuning.shipped_adapter(DEFAULT_JUDGE)
    assert adapter.config["judge"] == DEFAULT_JUDGE and len(adapter.fingerprint) == 16
    assert tuning.tuned_judge(judge, DEFAULT_JUDGE).fingerprint.endswith(f"+adapter:{adapter.fingerprint}")
    assert settings_label(judge, {"alignment": TUNED_ALIGNMENT}).startswith("fitted:")


@pytest.mark.parametrize("language", [case[0] for case in CASES])
def test_a_faithful_statement_is_judged_above_its_swapped_twins(judged, language):
    faithful, number, name = judged[language]
    assert faithful > number and faithful > name, judged[language]


def test_the_one_threshold_separates_faithful_from_swapped_in_most_cases(judged):
    right = [(language, kind) for language, (faithful, *swapped) in judged.items()
             for kind, value in zip(("number", "name"), swapped) if faithful >= 0.5 > value]
    assert len(right) >= 6, judged


# the source sentence each language's faithful statement states (the Spanish one states the second)
STATED = {"es": 1}


@pytest.fixture(scope="module", params=["float32", "bfloat16"])
def checked_facts(request):
    """Per language: P(stated) of the source sentence the faithful statement states, with (the faithful, the
    number-swapped, the name-swapped) statement as the summary, and of the source's other sentence, which no statement
    states, with the faithful one, under the tuned fact check (`TUNED_COVERAGES`: the summary is the document), through
    the coverage verdict's own path."""
    judge = load_judge(DEFAULT_JUDGE, dtype=request.param)
    items = []
    for language, document, *summaries in CASES:
        sentences = split_sentences(document)
        stated = sentences[STATED.get(language, 0)]
        unstated = sentences[1 - STATED.get(language, 0)]
        items += [{"summary": summary, "question": SENTENCE_QUESTION.format(sentence=stated), "fact": stated}
                  for summary in summaries]
        items.append({"summary": summaries[0], "question": SENTENCE_QUESTION.format(sentence=unstated), "fact": unstated})
    probabilities = verdict_probabilities(judge, "coverage", items, settings={"coverage": TUNED_COVERAGES[DEFAULT_JUDGE]})
    return {case[0]: tuple(probabilities[4 * i: 4 * i + 4]) for i, case in enumerate(CASES)}


@pytest.mark.parametrize("language", [case[0] for case in CASES])
def test_the_tuned_fact_check_finds_a_fact_in_the_summary_that_states_it(checked_facts, language):
    faithful, number, name, unstated = checked_facts[language]
    assert faithful > unstated and faithful > number and faithful > name, checked_facts[language]
