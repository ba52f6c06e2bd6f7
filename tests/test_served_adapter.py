"""The tuned verdict through a real vLLM server (CPU build, on 127.0.0.1) that applies the shipped adapter to the
default judge's model: the adapter exported as a peft directory (`localjudge export-adapter`) and served with
`--enable-lora --lora-modules`. The judge at the model's address finds the adapter among the server's models and
asks for it by name; its tuned verdicts agree with the in-process tuned judge (the adapter's layers
in a copy of the model's modules) and differ from the base model's answers, so the server did apply it; the adapter is no judge of its own.

Agreement tolerance: that of tests/test_served.py (|Δp| ≤ 0.075, same yes/no farther than that from 0.5), with the
in-process judge in fp32 and in bf16 (vLLM serves bf16). `python3 -m pytest -s tests/test_served_adapter.py`
prints the measured differences.
"""

import pytest
from test_served import PROBABILITY_TOLERANCE
from vllm_server import VllmServer, vllm_python

from localjudge import DEFAULT_JUDGE, learned, load_judge
from localjudge.learned import tuning
from localjudge.judges.registry import resolve_judge
from localjudge.judges.served import JudgeServerError
from localjudge.prompts import TUNED_ALIGNMENT
from localjudge.settings import settings_label
from localjudge.verdicts import judge_settings, verdict_probabilities

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(not learned.default_adapter_path(DEFAULT_JUDGE).is_file(), reason="no adapter shipped"),
]

LORA = f"{DEFAULT_JUDGE}-tuned"
SETTINGS = {"alignment": TUNED_ALIGNMENT}
# Made-up sources, each with a supported claim and one with a fact changed.
ITEMS = [
    {"document": document, "claim": claim}
    for document, claims in [
        ("The park in Elmvale will open in May after two years of work.", ["The park opens in May.", "The park opens in June."]),
        ("Harwick Foods recalled its oat biscuits on Tuesday because of a labelling error.",
         ["Harwick recalled biscuits.", "Harwick recalled its rye bread."]),
        ("A bus replaces the Lumen Bay ferry from January while the pier is repaired.",
         ["The ferry is replaced by a bus.", "A train replaces the ferry from March."]),
    ]
    for claim in claims
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """vLLM on the default judge's converted checkpoint, under the judge's name, applying the shipped adapter."""
    directory = tuning.export_adapter(DEFAULT_JUDGE, tmp_path_factory.mktemp("adapter") / "exported")
    options = ["--enable-lora", "--max-lora-rank", "8", "--lora-modules", f"{LORA}={directory}"]
    vllm = VllmServer(
        vllm_python(), resolve_judge(DEFAULT_JUDGE).source, DEFAULT_JUDGE, tmp_path_factory.mktemp("vllm") / "server.log", options
    )
    vllm.start()
    yield vllm
    vllm.kill()


def test_the_judge_at_the_models_address_finds_the_adapter_and_asks_for_it(server):
    judge = load_judge(server.address)
    assert judge.name == DEFAULT_JUDGE and [model["id"] for model in judge.lora_models] == [LORA]
    assert judge_settings(judge, "alignment", SETTINGS) == TUNED_ALIGNMENT
    assert not settings_label(judge, SETTINGS).endswith("no-adapter")
    tuned = tuning.tuned_judge(judge, DEFAULT_JUDGE)
    fingerprint = tuning.shipped_adapter(DEFAULT_JUDGE).fingerprint
    assert tuned.name == LORA and tuned.fingerprint == f"{judge.fingerprint}+adapter:{fingerprint}"
    # the adapter's base model's verdict settings would not fit it: it is no judge of its own
    with pytest.raises(JudgeServerError, match=f"'{LORA}' .* is a LoRA adapter on the model '{DEFAULT_JUDGE}'"):
        load_judge(f"{server.address}#{LORA}")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_served_tuned_verdicts_agree_with_the_adapter_applied_in_process(server, dtype):
    served, local = load_judge(server.address), load_judge(DEFAULT_JUDGE, dtype=dtype)
    served_verdicts = verdict_probabilities(served, "alignment", ITEMS, settings=SETTINGS, cache=False)
    local_verdicts = verdict_probabilities(local, "alignment", ITEMS, settings=SETTINGS, cache=False)
    print(f"\nin-process {dtype}: max |served - in-process| {max(abs(s - l) for s, l in zip(served_verdicts, local_verdicts)):.3f}")
    assert served_verdicts == pytest.approx(local_verdicts, abs=PROBABILITY_TOLERANCE)
    clear_cut = [(s, l) for s, l in zip(served_verdicts, local_verdicts) if abs(l - 0.5) > PROBABILITY_TOLERANCE]
    assert [s >= 0.5 for s, _ in clear_cut] == [l >= 0.5 for _, l in clear_cut]
    assert served.take_failures() == []

    # the same prompts answered by the base model: the server applied the adapter
    prompts = [learned.verification_prompt(served, "alignment", {"document": i["document"], "statement": learned.statement(i["claim"])}) for i in ITEMS]
    tuned = tuning.tuned_judge(served, DEFAULT_JUDGE).yes_probability(prompts, cache=False)
    base = served.yes_probability(prompts, cache=False)
    moved = [abs(t - b) for t, b in zip(tuned, base)]
    print(f"the adapter moved the base model's P(yes) by {min(moved):.2f}-{max(moved):.2f}")
    assert max(moved) > 0.1
