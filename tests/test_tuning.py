"""The judge fine-tuned for grounding: minimal edits, training rows, their held-out and validation splits and the mix
of a training block, the loss at the answer token, the warm-up, the choice of checkpoint and its offset, adapter
files (fingerprinted, refused by path when missing or altered), and the tuned verdict through the metric's own path
(the tuned judge answers as the adapted model it was trained as). Text written for the project.
"""

import copy
import importlib.util
import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from localjudge import DEFAULT_JUDGE, cli, learned
from localjudge.cache import ResultCache, cache_key
from localjudge.learned import edits, rows, tuning
from localjudge.judges.served import JudgeServerError, ServedJudge, _choose_model
from localjudge.maths import logit
from localjudge.prompts import (
    ALIGNMENT_Q10, JUDGE_SETTINGS, PROMPT_VERSION, STATELESS_SETTINGS, TUNED_ALIGNMENTS, Verdict,
)
from localjudge.settings import settings_fingerprint, settings_label
from localjudge.verdicts import judge_items, judge_settings

from helpers import ScriptedJudge

SOURCE = (
    "The Orla ferry between Kettering Bay and Dunmore runs 14 times a day and takes 35 minutes. Tickets cost 6.50 "
    "euros. Marta Lind, the operator's director, said the ship was built in 1998 by Harlow Yards."
)
CLAIM = "The ferry from Kettering Bay to Dunmore takes 35 minutes and runs 14 times a day."


# ------------------------------------------------------------------ minimal edits
def test_a_number_edit_changes_one_number_to_one_the_source_does_not_hold():
    numbers = re.findall(r"\d+", CLAIM)
    for seed in range(10):
        edited = re.findall(r"\d+", edits.minimal_edit(CLAIM, SOURCE, "en", "number", seed))
        changed = [(old, new) for old, new in zip(numbers, edited) if old != new]
        assert len(edited) == len(numbers) and len(changed) == 1, (seed, edited)
        assert changed[0][1] not in re.findall(r"\d+", SOURCE)


def test_an_entity_edit_puts_another_name_of_the_source_in_place_of_one():
    edited = edits.minimal_edit(CLAIM, SOURCE, "en", "entity", 3)
    assert edited != CLAIM and any(name in edited for name in ("Lind", "Harlow Yards", "Orla"))
    assert edits.minimal_edit("the ferry is slow.", SOURCE, "en", "entity", 3) is None  # no name to swap


@pytest.mark.parametrize(
    "language, claim, negated",
    [
        ("en", "The ferry was built in 1998.", "The ferry was not built in 1998."),
        ("en", "The ferry was not built in 1998.", "The ferry was built in 1998."),
        ("de", "Die Fähre ist schnell.", "Die Fähre ist nicht schnell."),
        ("fr", "La traversée est courte.", "La traversée n'est pas courte."),
        ("fr", "Les billets ne sont pas chers.", "Les billets sont chers."),
        ("es", "El ferry es rápido.", "El ferry no es rápido."),
        ("zh", "渡轮是新的。", "渡轮不是新的。"),
    ],
)
def test_a_negation_is_added_or_removed_in_each_language_with_rules(language, claim, negated):
    assert edits.minimal_edit(claim, SOURCE, language, "negation", 0) == negated


def test_a_roles_edit_swaps_two_names_or_two_numbers_of_the_claim():
    assert edits.minimal_edit(CLAIM, SOURCE, "en", "roles", 0) == (
        "The ferry from Dunmore to Kettering Bay takes 35 minutes and runs 14 times a day."
    )
    assert edits.minimal_edit("票价从5欧元涨到7欧元。", SOURCE, "zh", "roles", 0) == "票价从7欧元涨到5欧元。"


def test_a_phrases_edit_trades_two_noun_phrases_of_an_english_claim():
    claim = "In laboratory trials, the strain degraded about 62 percent of the additive within 14 days."
    assert edits.minimal_edit(claim, SOURCE, "en", "phrases", 0) == (
        "In laboratory trials, the additive degraded about 62 percent of the strain within 14 days."
    )
    # the phrase that opens the sentence is capitalised in its new place only
    assert edits.minimal_edit("The council will close the car park.", SOURCE, "en", "phrases", 0) == (
        "The car park will close the council."
    )
    # phrases joined by "and" say the same in either order; one phrase, or another language: no edit
    assert edits.minimal_edit("The ferry and the bus are slow.", SOURCE, "en", "phrases", 0) is None
    assert edits.minimal_edit("The ferry is slow.", SOURCE, "en", "phrases", 0) is None
    assert edits.minimal_edit("She bought a kettle after seeing the kettle.", SOURCE, "en", "phrases", 0) is None
    assert edits.minimal_edit("Die Fähre ist schneller als der Bus.", SOURCE, "de", "phrases", 0) is None
    assert edits.noun_phrases("The torch produces up to 900 lumens in its low mode.") == [(0, 9), (39, 51)]


def test_edits_that_do_not_apply_give_none_and_codes_are_not_numbers():
    assert edits.minimal_edit("The K2 kettle is blue.", SOURCE, "en", "number", 0) is None
    assert edits.minimal_edit("Das ist gut.", SOURCE, "sw", "negation", 0) is None
    assert edits.minimal_edit("The ferry is blue.", SOURCE, "en", "roles", 0) is None


CHAT = "Noor: can you water my plants on Friday?\nIvo: sure, I'll drop by at six\nNoor: thank you!\nIvo: no problem"


def test_a_speaker_edit_trades_the_speakers_a_claim_about_a_chat_names():
    assert edits.speakers(CHAT) == ["Noor", "Ivo"]
    assert edits.speaker_edit("Ivo will water Noor's plants on Friday.", ["Noor", "Ivo"], 0) == (
        "Noor will water Ivo's plants on Friday."
    )
    # one speaker named: another of the chat's takes the place, the name opening the sentence included
    assert edits.speaker_edit("Ivo will drop by at six.", ["Noor", "Ivo"], 0) == "Noor will drop by at six."
    assert edits.speaker_edit("#Person2# helps #Person1#.", ["#Person1#", "#Person2#"], 0) == "#Person1# helps #Person2#."
    assert edits.speaker_edit("Annabel will come.", ["Anna", "Ivo"], 0) is None  # a whole name only
    assert edits.speaker_edit("The plants will be watered.", ["Noor", "Ivo"], 0) is None
    assert edits.speaker_edit("Noor says thanks.", ["Noor"], 0) is None  # one speaker: nobody to trade with


def test_a_claim_about_a_chat_gets_its_speakers_traded_beside_its_other_edit():
    chat_row = row("c1", 1, claim="Ivo will water Noor's plants on Friday.", source=CHAT)
    made = rows.examples([chat_row, row("p1", 1)], lambda t: len(t.split()), 200, edit_share=1.0)
    traded = [e for e in made if e["edit"] == "speaker"]
    assert [e["statement"] for e in traded] == ["Noor will water Ivo's plants on Friday."]  # prose gets none
    assert traded[0]["label"] == 0 and traded[0]["id"] == "c1+speaker"
    assert not any(e["edit"] for e in rows.examples([chat_row], lambda t: len(t.split()), 200))


# ------------------------------------------------------------------ rows
def row(identifier, label, language="en", file="made_up", claim=CLAIM, source=SOURCE, **extra):
    return {"id": identifier, "label": label, "language": language, "file": file, "claim": claim, "source": source, **extra}


def test_the_held_out_units_are_whole_datasets_languages_and_a_summedits_domain():
    assert rows.held_out(row("a", 1, file="climate_fever")) and rows.held_out(row("b", 0, language="zh"))
    assert rows.held_out(row("c", 1, file="summedits", domain="podcast"))
    # summaries of chats and span-annotated news summaries: the board measures transfer to summary kinds
    assert rows.held_out(row("f", 1, file="faceval")) and rows.held_out(row("g", 0, file="cliff"))
    assert not rows.held_out(row("h", 0, file="refmatters"))
    assert not rows.held_out(row("d", 1, file="summedits", domain="news"))
    assert rows.held_out_unit(row("e", 1, language="de", file="xnli.de")) == "language=de"


def test_a_balanced_sample_takes_half_of_each_label_and_is_seeded():
    pool = [row(f"r{i}", int(i % 4 == 0)) for i in range(40)]  # 10 supported, 30 not
    sample = rows.balanced_sample(pool, 12, seed=1)
    assert sorted(r["label"] for r in sample) == [0] * 6 + [1] * 6
    assert sample == rows.balanced_sample(pool, 12, seed=1) != rows.balanced_sample(pool, 12, seed=2)
    assert sum(r["label"] for r in rows.balanced_sample(pool, 30, seed=1)) == 10  # short of supported: all of them


def test_a_claim_is_trained_against_the_window_that_holds_its_evidence():
    filler = " ".join(f"Sentence number {i} talks about the weather in the valley today." for i in range(12))
    source = f"{filler} The museum opens at nine on Sundays. {filler}"
    window = rows.judged_window(source, "On Sundays the museum opens at nine.", lambda text: len(text.split()), 40)
    assert "The museum opens at nine on Sundays." in window and len(window.split()) <= 40


def test_examples_put_each_minimal_edit_beside_its_twin_in_the_same_window():
    made = rows.examples([row("r1", 1, question="How long?"), row("r2", 0)], lambda t: len(t.split()), 200, edit_share=1.0)
    originals = [e for e in made if not e["edit"]]
    edited = [e for e in made if e["edit"]]
    assert [e["label"] for e in originals] == [1, 0] and len(edited) == 1
    assert edited[0]["label"] == 0 and edited[0]["document"] == originals[0]["document"]
    assert edited[0]["statement"].startswith("Question: How long?\nAnswer: ") and edited[0]["id"] == f"r1+{edited[0]['edit']}"


def test_statements_addressed_to_the_checker_stand_beside_a_share_of_the_rows_as_unsupported():
    many = [row(f"r{i}", i % 2) for i in range(200)]
    made = rows.examples(many, lambda t: len(t.split()), 200, seed=3, injection_share=0.25)
    attacks = [e for e in made if e["edit"] == "injection"]
    assert 30 <= len(attacks) <= 70 and all(e["label"] == 0 for e in attacks)
    originals = {e["id"]: e for e in made if not e["edit"]}
    alone = set()
    for attack in attacks:
        twin = originals[attack["id"].removesuffix("+injection")]
        assert attack["document"] == twin["document"]
        # alone, or after the claim: either way a training wording, never the validation one
        wording = attack["statement"].removeprefix(twin["statement"]).strip()
        assert wording in edits.INJECTIONS["training"] and wording not in edits.INJECTIONS["validation"]
        alone.add(wording == attack["statement"])
    assert alone == {True, False}
    assert rows.examples(many, lambda t: len(t.split()), 200, seed=3, injection_share=0.25) == made  # seeded
    assert not any(e["edit"] for e in rows.examples(many, lambda t: len(t.split()), 200, seed=3))


def test_the_attacks_of_the_tests_are_worded_apart_from_the_training_ones():
    from test_injection import CHUNK_ATTACKS, SUMMARY_ATTACKS

    trained = {wording.lower() for wording in edits.INJECTIONS["training"] + edits.INJECTIONS["validation"]}
    for attack in {**SUMMARY_ATTACKS, **CHUNK_ATTACKS}.values():
        assert not any(wording in attack.lower() or attack.strip().lower() in wording for wording in trained), attack


def test_validation_rows_come_from_training_files_and_are_never_trained_on():
    files = (("made_up", "en"), ("xnli.fr", "fr"), ("climate_fever", "en"), ("xnli.de", "de"))
    every = [row(f"{file}-{i}", int(i % 3 == 0), language=language, file=file, source=f"{SOURCE} ({i})")
             for file, language in files for i in range(90)]
    training, validation = rows.training_split(every, 30, seed=5)
    assert not any(rows.held_out(r) for r in training + validation)  # climate_fever and de: measured only
    assert Counter(r["file"] for r in validation) == {"made_up": 30, "xnli.fr": 30}
    assert all(sum(r["label"] for r in validation if r["file"] == file) == 15 for file in ("made_up", "xnli.fr"))
    chosen = {(r["file"], r["id"]) for r in validation}
    assert not chosen & {(r["file"], r["id"]) for r in training} and len(training) + len(validation) == 180
    assert rows.training_split(every, 30, seed=5) == (training, validation)
    # a second claim on a validated source (another sentence of its summary) is not trained on either
    twins = [{**r, "id": f"{r['id']}-twin", "claim": "Another sentence of the same summary."} for r in every]
    training, validation = rows.training_split(every + twins, 30, seed=5)
    validated = {(r["file"], r["source"]) for r in validation}
    assert training and not any((r["file"], r["source"]) in validated for r in training)


NEWS = "Harlow Yards launched the Orla in 1998. The ferry runs 14 times a day. Marta Lind directs the operator."


def test_a_summary_with_marked_spans_becomes_a_row_per_sentence_unsupported_where_a_span_falls():
    summary = "The Orla was built in 1998.  The ferry runs 16 times a day. Marta Lind runs the operator."
    start = summary.index("16")
    made = rows.summary_sentences([row("s", 0, claim=summary, source=NEWS, task="summary", spans=[[start, start + 2, "extrinsic"]])])
    assert [(r["id"], r["claim"], r["label"], r["reduced"]) for r in made] == [
        ("s#0", "The Orla was built in 1998.", 1, "spans"), ("s#1", "The ferry runs 16 times a day.", 0, "spans"),
        ("s#2", "Marta Lind runs the operator.", 1, "spans")]
    assert all(r["source"] == NEWS and r["file"] == "made_up" for r in made)


def test_a_supported_summary_gives_supported_sentences_and_an_edit_the_sentence_that_differs_from_its_twin():
    faithful = "The Orla was built in 1998. The ferry runs 14 times a day. Marta Lind runs the operator."
    edited = "The Orla was built in 1998. The ferry runs 4 times a day. Marta Lind runs the operator."
    rewritten = "The Orla was built in 1989. The ferry runs 4 times a day. Marta Lind runs the operator."
    made = rows.summary_sentences([row("a", 1, claim=faithful, source=NEWS, task="summary"),
                                   row("b", 0, claim=edited, source=NEWS, task="summary"),
                                   row("c", 0, claim=rewritten, source=NEWS, task="summary"),
                                   row("d", 0, claim=edited, source="Another article.", task="summary")])
    assert [(r["id"], r["label"], r["reduced"]) for r in made] == [
        ("a#0", 1, "sentences"), ("a#1", 1, "sentences"), ("a#2", 1, "sentences"), ("b#1", 0, "twin"),
        ("c", 0, "whole"), ("d", 0, "whole")]  # two sentences differ; no twin of its own source
    assert made[3]["claim"] == "The ferry runs 4 times a day."


def test_one_sentence_summaries_sentences_already_split_and_other_tasks_stay_as_they_are():
    kept = [row("one", 0, claim="The ferry runs 4 times a day.", task="summary"),
            row("split", 1, claim=CLAIM, task="summary", sentence=2, summary=f"{CLAIM} {CLAIM}"),
            row("claim", 1, claim=f"{CLAIM} {CLAIM}", task="claim")]
    assert rows.summary_sentences(kept) == kept


def test_every_block_holds_its_share_of_summary_rows():
    grounding_rows, nli = mix_pool(lambda index: index % 2)
    summaries = [mix_item(i, f"summary{f}", i % 2, task="summary") for f in range(4) for i in range(300)]
    ordered = rows.mixed_blocks(grounding_rows + summaries + nli, 100, seed=3, summary_share=1 / 3)
    assert len(ordered) >= 1000
    for start in range(0, len(ordered), 100):
        block = ordered[start : start + 100]
        assert sum(map(rows.summary, block)) >= 34 and sum(map(rows.grounding, block)) >= 50
        assert max(Counter(item["file"] for item in block).values()) <= 10
        assert abs(sum(item["label"] for item in block) - 50) <= 1
    # without enough summaries for the share, no block
    assert rows.mixed_blocks(grounding_rows + summaries[:20] + nli, 100, seed=3, summary_share=1 / 3) == []


def mix_item(index, file, label, language="en", task="claim", edit=""):
    return {"id": f"{file}-{index}" + (f"+{edit}" if edit else ""), "file": file, "label": label, "language": language,
            "task": task, "edit": edit}


def mix_pool(nli_label):
    """Six English files of 150 balanced rows, an unsupported edit beside every other row, and 12 NLI files of 150
    rows labelled `nli_label(index)`: (English rows and edits, NLI rows)."""
    english = [mix_item(i, f"english{f}", i % 2) for f in range(6) for i in range(150)]
    edited = [mix_item(i, f"english{f}", 0, edit="number") for f in range(6) for i in range(1, 150, 2)]
    nli = [mix_item(i, f"xnli.l{f}", nli_label(i), language=f"l{f}", task="nli") for f in range(12) for i in range(150)]
    return english + edited, nli


def test_every_training_block_holds_grounding_rows_and_edits_beside_nli_entailments():
    grounding_rows, nli = mix_pool(lambda index: index % 2)
    ordered = rows.mixed_blocks(grounding_rows + nli, 100, seed=3)
    assert len(ordered) % 100 == 0 and len(ordered) >= 2000
    assert len({item["id"] for item in ordered}) == len(ordered)
    for start in range(0, len(ordered), 100):
        block = ordered[start : start + 100]
        assert sum(map(rows.grounding, block)) >= 50
        # English rows and edits in the shares of the whole pool (900 and 450): every block alike
        edits = sum(1 for item in block if item["edit"])
        assert 16 <= edits <= 18 and 32 <= sum(1 for item in block if item["file"].startswith("english")) - edits <= 34
        assert max(Counter(item["file"] for item in block).values()) <= 10
        assert sum(item["label"] for item in block if item["task"] == "nli") > 0  # entailments beside the edits
        assert abs(sum(item["label"] for item in block) - 50) <= 1
    assert ordered == rows.mixed_blocks(grounding_rows + nli, 100, seed=3) != rows.mixed_blocks(grounding_rows + nli, 100, seed=4)
    assert rows.mixed_blocks(nli, 100, seed=3) == []  # no block can hold half grounding rows


def test_the_blocks_end_where_the_rest_cannot_keep_half_of_them_supported():
    # few entailments: 240, about 34 a block beside the English rows and edits, so 7 blocks where rows fill 31
    grounding_rows, nli = mix_pool(lambda index: int(index < 20))
    ordered = rows.mixed_blocks(grounding_rows + nli, 100, seed=3)
    assert 600 <= len(ordered) <= 800
    assert all(abs(sum(item["label"] for item in ordered[start : start + 100]) - 50) <= 1 for start in range(0, len(ordered), 100))


# ------------------------------------------------------------------ training and adapter files
@pytest.fixture(scope="module")
def tiny_model():
    """A two-layer Qwen2 with random weights: the training maths and files without the real judge."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    return Qwen2ForCausalLM(config).eval()


TINY_LORA = {**tuning.LORA, "upper_layers": 1, "lora_dropout": 0.0}


def test_training_moves_only_the_adapter_and_learns_the_labels(tiny_model):
    model = tuning.adapted(copy.deepcopy(tiny_model), TINY_LORA)
    frozen = {name: p.detach().clone() for name, p in model.named_parameters() if not p.requires_grad}
    assert all("lora_" in name for name, p in model.named_parameters() if p.requires_grad)
    assert not any(".layers.0." in name for name, p in model.named_parameters() if p.requires_grad)  # upper layer only
    ids, mask = tuning.padded([[5, 6, 7, 8, 9], [5, 6, 7, 10]], pad_id=0)
    labels = torch.tensor([1.0, 0.0])
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    losses = []
    for _ in range(60):
        margins = tuning.answer_margins(model, ids, mask, [1, 2], [3])
        loss = torch.nn.functional.binary_cross_entropy_with_logits(margins, labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0]  # a normalised final state bounds the tiny model's margins
    assert margins[0] > 0 > margins[1]
    assert all(torch.equal(p, frozen[name]) for name, p in model.named_parameters() if name in frozen)


def test_the_margin_is_read_at_each_sequences_last_real_token(tiny_model):
    model = tuning.adapted(copy.deepcopy(tiny_model), TINY_LORA).eval()
    ids, mask = tuning.padded([[5, 6, 7, 8, 9], [5, 6, 7]], pad_id=0)
    with torch.no_grad():
        batched = tuning.answer_margins(model, ids, mask, [1, 2], [3])
        alone = tuning.answer_margins(model, torch.tensor([[5, 6, 7]]), torch.ones(1, 3, dtype=torch.long), [1, 2], [3])
        logits = model(input_ids=torch.tensor([[5, 6, 7]])).logits[0, -1]
    assert batched[1].item() == pytest.approx(alone.item(), abs=1e-5)
    expected = torch.logsumexp(logits[[1, 2]], 0) - logits[3]  # what the judge's yes_probability reads
    assert alone.item() == pytest.approx(expected.item(), abs=1e-5)


def test_length_batches_group_similar_lengths_and_are_seeded():
    lengths = [7, 300, 9, 310, 8, 305, 6, 320]
    batches = tuning.length_batches(lengths, 2, seed=1)
    assert sorted(i for batch in batches for i in batch) == list(range(8))
    assert all(abs(lengths[a] - lengths[b]) < 50 for a, b in batches)
    assert batches == tuning.length_batches(lengths, 2, seed=1)


def test_within_tokens_cuts_a_batch_in_order_within_its_padded_size():
    lengths = [100, 120, 300, 90, 600, 80]
    pieces = tuning.within_tokens([0, 1, 2, 3, 4, 5], lengths, 400)
    assert [i for piece in pieces for i in piece] == [0, 1, 2, 3, 4, 5]
    assert pieces == [[0, 1], [2], [3], [4], [5]]  # 3 × 300 > 400; a row over the limit goes alone
    assert all(len(piece) * max(lengths[i] for i in piece) <= 400 for piece in pieces if len(piece) > 1)
    assert tuning.within_tokens([0, 1, 3, 5], lengths, 10_000) == [[0, 1, 3, 5]]


def test_a_batch_passed_in_pieces_gives_the_same_gradient(tiny_model):
    sequences = [[5, 6, 7, 8, 9, 11], [5, 6, 7], [5, 6, 7, 10], [5, 9, 8, 7, 6, 5, 4]]
    labels, weights = torch.tensor([1.0, 0.0, 1.0, 0.0]), torch.tensor([1.0, 2.0, 0.5, 1.0])

    def gradients(pieces):
        torch.manual_seed(1)  # the same LoRA initialisation for both
        model = tuning.adapted(copy.deepcopy(tiny_model), TINY_LORA)
        model.train(False)  # no dropout: the two passes must see the same network
        for piece in pieces:
            tuning.backward_rows(model, [sequences[i] for i in piece], labels[piece], weights[piece], 0, [1, 2], [3],
                                 share=len(piece) / len(sequences))
        return [p.grad.clone() for p in model.parameters() if p.requires_grad]

    whole = gradients([[0, 1, 2, 3]])
    pieces = tuning.within_tokens([0, 1, 2, 3], [len(s) for s in sequences], 8)
    assert len(pieces) > 1
    for a, b in zip(whole, gradients(pieces)):
        assert torch.allclose(a, b, atol=1e-6)


def test_recomputed_activations_give_the_same_gradient_and_the_same_margins(tiny_model):
    """Gradient checkpointing (`tuning.recomputing_activations`, `train_judge.py --recompute-activations`) trades time
    for memory: a training pass gives the gradient it gives without, and evaluation reads the same margins."""
    sequences = [[5, 6, 7, 8, 9, 11], [5, 6, 7], [5, 9, 8, 7, 6, 5, 4]]
    labels, weights = torch.tensor([1.0, 0.0, 1.0]), torch.tensor([1.0, 2.0, 0.5])

    def passed(recompute):
        torch.manual_seed(1)
        model = tuning.adapted(copy.deepcopy(tiny_model), {**TINY_LORA, "upper_layers": 2})
        if recompute:
            tuning.recomputing_activations(model)
        model.train(True)  # checkpointing acts in training mode only; TINY_LORA has no dropout
        tuning.backward_rows(model, sequences, labels, weights, 0, [1, 2], [3], share=1.0)
        margins = tuning.margins_of(model, sequences, 0, [1, 2], [3])
        return [p.grad.clone() for p in model.parameters() if p.requires_grad], margins, model

    plain, plain_margins, _ = passed(False)
    recomputed, recomputed_margins, model = passed(True)
    assert model.get_base_model().is_activation_checkpointing and model.training
    for a, b in zip(plain, recomputed):
        assert torch.allclose(a, b, atol=1e-6)
    assert recomputed_margins == pytest.approx(plain_margins, abs=1e-6)


def test_lora_weights_train_in_fp32_on_a_bf16_base(tiny_model, tmp_path):
    model = tuning.adapted(copy.deepcopy(tiny_model).to(torch.bfloat16), TINY_LORA)
    trainable = [p for p in model.parameters() if p.requires_grad]
    assert trainable and all(p.dtype == torch.float32 for p in trainable)
    assert all(p.dtype == torch.bfloat16 for p in model.parameters() if not p.requires_grad)
    ids, mask = tuning.padded([[5, 6, 7, 8, 9], [5, 6, 7, 10]], pad_id=0)
    margins = tuning.answer_margins(model, ids, mask, [1, 2], [3])
    assert margins.dtype == torch.float32
    torch.nn.functional.binary_cross_entropy_with_logits(margins, torch.tensor([1.0, 0.0])).backward()
    assert all(p.grad is None or p.grad.dtype == torch.float32 for p in trainable)
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in trainable)
    weights = tuning.lora_weights(model)
    assert all(t.dtype == torch.float32 for t in weights.values())
    assert all(t.dtype == torch.bfloat16 for t in tuning.adapter_tensors(weights).values())
    stored = tuning.as_stored(weights)  # what a checkpoint is measured with: the file's values, in fp32 again
    assert all(stored[name].dtype == torch.float32 for name in weights)
    assert all(torch.equal(stored[name], tensor.float()) for name, tensor in tuning.adapter_tensors(weights).items())
    # a step moves a weight to a value bf16 cannot hold: measured, it is the value the file will give back
    assert torch.equal(tuning.as_stored({"w": torch.tensor([1.0 + 2**-12, 0.1])})["w"], torch.tensor([1.0, 0.10009765625]))
    saved_adapter(tiny_model, tmp_path / "a.safetensors")  # a resumed adapter trains in fp32 too
    resumed = tuning.Adapter(tmp_path / "a.safetensors").load_into(copy.deepcopy(tiny_model).to(torch.bfloat16))
    assert all(p.dtype == torch.float32 for p in resumed.parameters() if p.requires_grad)


def test_an_adapter_answers_in_its_models_dtype_and_trains_in_fp32(tiny_model, tmp_path):
    """fp32 LoRA layers on a bf16 base cast every activation they read: answering, the adapter runs in the base's
    dtype, and gives the answers it trained to give up to bf16 rounding."""
    saved_adapter(tiny_model, tmp_path / "a.safetensors")
    adapter = tuning.Adapter(tmp_path / "a.safetensors")
    base = copy.deepcopy(tiny_model).to(torch.bfloat16)
    answering = adapter.load_into(copy.deepcopy(base), trainable=False).eval()
    training = adapter.load_into(copy.deepcopy(base)).eval()

    def lora_dtypes(model):
        return {parameter.dtype for name, parameter in model.named_parameters() if "lora_" in name}

    assert lora_dtypes(answering) == {torch.bfloat16} and lora_dtypes(training) == {torch.float32}
    ids, mask = tuning.padded([[5, 6, 7, 8, 9], [5, 6, 7, 10]], pad_id=0)
    with torch.no_grad():
        answered, trained = (tuning.answer_margins(model, ids, mask, [1, 2], [3]) for model in (answering, training))
    assert torch.allclose(answered, trained, atol=0.05)


def test_the_tuned_judge_runs_its_adapter_in_the_judges_dtype(smol_judge_bf16, smol_adapter):
    tuned = tuning.tuned_judge(smol_judge_bf16, smol_adapter[0])
    lora = [tensor for name, tensor in tuned.model.named_buffers() if "lora_" in name]
    assert lora and all(tensor.dtype == torch.bfloat16 for tensor in lora)


def test_the_tuned_judge_adds_each_lora_update_in_one_product_and_keeps_no_peft_layer(smol_judge_bf16, smol_adapter):
    from peft.tuners.lora import LoraLayer

    tuned = tuning.tuned_judge(smol_judge_bf16, smol_adapter[0])
    modules = list(tuned.model.modules())
    assert not any(isinstance(module, LoraLayer) for module in modules)
    answering = [module for module in modules if isinstance(module, tuning.AnsweringLoraLinear)]
    assert len(answering) == tuning.LORA["upper_layers"] * len(tuning.LORA["target_modules"])
    # the judge's own weights, shared, not copied
    judge_weights = {parameter.data_ptr() for parameter in smol_judge_bf16.model.parameters()}
    assert all(module.base_layer.weight.data_ptr() in judge_weights for module in answering)


@pytest.mark.parametrize("dtype, tolerance", [(torch.float32, 1e-5), (torch.bfloat16, 0.05)])
def test_answering_lora_layers_give_the_sum_pefts_layers_give(tiny_model, tmp_path, dtype, tolerance):
    saved_adapter(tiny_model, tmp_path / "a.safetensors")
    adapter = tuning.Adapter(tmp_path / "a.safetensors")
    base = copy.deepcopy(tiny_model).to(dtype)
    peft_model = adapter.load_into(copy.deepcopy(base), trainable=False).eval()
    ids = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, 10, 11]])
    with torch.no_grad():
        expected = peft_model.get_base_model()(input_ids=ids).logits.float()
        answered = tuning.answering_layers(peft_model)(input_ids=ids).logits.float()
        plain = base(input_ids=ids).logits.float()
    assert torch.allclose(answered, expected, atol=tolerance)
    assert (answered - plain).abs().max() > 2 * (answered - expected).abs().max()  # the adapter is applied


def test_a_tuned_verdict_cached_by_an_earlier_computation_is_computed_again(
    smol_judge_bf16, smol_adapter, tmp_path, monkeypatch
):
    """v2: LoRA layers in fp32 on a bf16 judge; v3: the update added in three bf16-rounded steps (peft's layers)."""
    tuned = tuning.tuned_judge(smol_judge_bf16, smol_adapter[0])
    prompt = f"{SOURCE}\nIs it true that the ferry takes 35 minutes? Answer yes or no:"
    monkeypatch.setattr(tuned, "cache", ResultCache(tmp_path / "r.sqlite"))
    for version in ("v2", "v3"):
        tuned.cache.put_many({cache_key(tuned.fingerprint, f"yes_probability/{version}", prompt): 0.123})
    assert tuned.yes_probability([prompt]) != [0.123]


def test_lora_options_change_rank_and_layers_and_keep_the_scale():
    assert tuning.lora_options() == tuning.LORA
    assert tuning.LORA["r"] == 8 and tuning.LORA["upper_layers"] == 24
    options = tuning.lora_options(rank=16, upper_layers=8)
    assert (options["r"], options["lora_alpha"], options["upper_layers"]) == (16, 32, 8)


def test_row_weights_keep_the_labels_even_and_weigh_the_attacks_within_the_unsupported_rows():
    labels = [1, 1, 1, 0, 0, 0, 0, 0]  # three supported, five unsupported, two of them attacks
    attacks = [False, False, False, True, True, False, False, False]
    even = tuning.row_weights(labels, attacks)
    # at weight 1, each label's rows share half of the loss evenly: 0.5 / share of the label
    assert even.tolist() == pytest.approx([4 / 3] * 3 + [0.8] * 5)
    weighted = tuning.row_weights(labels, attacks, attack_weight=3.0)
    assert float(weighted.mean()) == pytest.approx(1.0)
    assert float(weighted[:3].sum()) == pytest.approx(float(weighted[3:].sum()))  # the labels still weigh the same
    assert float(weighted[3]) == pytest.approx(3 * float(weighted[5]))
    assert weighted[:3].tolist() == pytest.approx([4 / 3] * 3)
    assert weighted[3:].tolist() == pytest.approx([4 / 3] * 2 + [4 / 9] * 3)  # 8 rows x 0.5 x 3/9, x 1/9


def test_row_weights_per_group_keep_the_labels_even_within_every_group_and_its_share_of_the_rows():
    # group "g" a quarter supported, group "n" three quarters: overall the labels are even, within a group not
    labels = [1, 0, 0, 0, 1, 1, 1, 0]
    groups = ["g"] * 4 + ["n"] * 4
    overall = tuning.row_weights(labels, [False] * 8)
    assert overall.tolist() == pytest.approx([1.0] * 8)  # even labels overall: nothing to weigh
    weights = tuning.row_weights(labels, [False] * 8, groups=groups)
    assert float(weights.mean()) == pytest.approx(1.0)
    assert weights.tolist() == pytest.approx([2.0, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 2.0])
    for group in ("g", "n"):
        rows = torch.tensor([key == group for key in groups])
        supported = rows & (torch.tensor(labels) == 1)
        assert float(weights[supported].sum()) == pytest.approx(float(weights[rows & ~supported].sum()))
        assert float(weights[rows].sum()) == pytest.approx(4.0)  # each group keeps its share of the rows
    # the attack weight applies within a group's unsupported rows
    attacked = tuning.row_weights(labels, [False, True, False, False] + [False] * 4, 3.0, groups)
    assert float(attacked[1]) == pytest.approx(3 * float(attacked[2]))
    assert float(attacked[:4].sum()) == pytest.approx(4.0) and float(attacked[0]) == pytest.approx(2.0)


def test_the_learning_rate_warms_up_linearly_then_holds():
    assert [tuning.warmup_factor(step, 4) for step in range(6)] == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]
    assert tuning.warmup_factor(0, 0) == 1.0
    parameter = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.AdamW([parameter], lr=1e-4)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: tuning.warmup_factor(step, 10))
    rates = []
    for _ in range(12):  # as the training script steps it: once per optimizer step
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    assert rates[0] == pytest.approx(1e-5) and rates[4] == pytest.approx(5e-5) and rates[9:] == pytest.approx([1e-4] * 3)


def test_a_step_on_a_gradient_that_is_not_finite_is_skipped_and_the_weights_stay():
    parameters = [torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2))]
    optimizer = torch.optim.AdamW(parameters, lr=0.1)
    parameters[0].grad, parameters[1].grad = torch.tensor([1.0, float("nan")]), torch.tensor([1.0, 1.0])
    assert not tuning.clipped_step(optimizer, parameters, 1.0)
    assert all(torch.equal(p.detach(), torch.ones(2)) for p in parameters)
    parameters[0].grad, parameters[1].grad = torch.tensor([30.0, 0.0]), torch.tensor([40.0, 0.0])
    assert tuning.clipped_step(optimizer, parameters, 1.0)
    assert parameters[0].grad.tolist() == pytest.approx([0.6, 0.0]) and parameters[1].grad.tolist() == pytest.approx([0.8, 0.0])
    assert parameters[0][0] < 1 and parameters[1][0] < 1 and torch.isfinite(torch.cat(parameters)).all()


def test_the_best_checkpoint_has_the_highest_validation_bacc_at_its_offset_then_auc():
    assert tuning.better_checkpoint({"BAcc at offset": 0.55, "AUC": 0.6}, None)
    best = {"BAcc at offset": 0.6, "AUC": 0.7}
    assert tuning.better_checkpoint({"BAcc at offset": 0.61, "AUC": 0.5}, best)
    assert not tuning.better_checkpoint({"BAcc at offset": 0.59, "AUC": 0.9}, best)
    assert tuning.better_checkpoint({"BAcc at offset": 0.6, "AUC": 0.71}, best)
    assert not tuning.better_checkpoint({"BAcc at offset": 0.6, "AUC": 0.7}, best)  # a tie keeps the earlier one
    curve = [{"BAcc at offset": b, "AUC": auc} for b, auc in [(0.64, 0.72), (0.70, 0.73), (0.70, 0.75), (0.5, 0.8)]]
    chosen = None
    for point in curve:
        chosen = point if tuning.better_checkpoint(point, chosen) else chosen
    assert chosen is curve[2]  # not the last


def test_checkpoints_are_compared_at_the_threshold_they_ship_with_not_at_margin_zero():
    # at margin 0 one says "yes" to 60 % of the attacks; its offset (fitted under the attack limit) is what ships
    steered_at_zero = {"BAcc": 0.70, "AUC": 0.80, "attacks called supported": 0.60, "BAcc at offset": 0.66}
    safe_at_zero = {"BAcc": 0.62, "AUC": 0.70, "attacks called supported": 0.0, "BAcc at offset": 0.63}
    assert tuning.better_checkpoint(steered_at_zero, safe_at_zero)
    assert not tuning.better_checkpoint({**steered_at_zero, "BAcc at offset": 0.60}, safe_at_zero)


def test_the_offset_maximises_validation_bacc_and_is_zero_where_zero_does_as_well():
    labels = [0, 0, 0, 1, 1, 1]
    assert tuning.fitted_offset(labels, [-3.0, -2.5, -2.0, -1.0, -0.5, 1.0]) == pytest.approx(-1.5)  # all read "no" at 0
    assert tuning.fitted_offset(labels, [-2.0, -1.5, -1.0, 1.0, 2.0, 3.0]) == 0.0
    generator = torch.Generator().manual_seed(0)
    labels = torch.randint(0, 2, (200,), generator=generator).tolist()
    margins = [2.0 * label + 2.0 + noise for label, noise in zip(labels, torch.randn(200, generator=generator).tolist())]  # leaning to "yes"
    offset = tuning.fitted_offset(labels, margins)

    def bacc(threshold):
        called = [margin >= threshold for margin in margins]
        return (sum(c for c, y in zip(called, labels) if y) / sum(labels)
                + sum(not c for c, y in zip(called, labels) if not y) / (len(labels) - sum(labels))) / 2

    assert 2.0 < offset < 4.0 and bacc(offset) > bacc(0.0) + 0.2
    assert bacc(offset) >= max(bacc(threshold / 10) for threshold in range(-20, 60))


def test_the_offset_follows_the_weights_of_the_rows():
    # two families: the first separates at -1, the second at +1; the heavier family decides the threshold
    labels = [0, 1, 0, 1]
    margins = [-1.5, -0.5, 0.5, 1.5]
    assert tuning.fitted_offset(labels, margins, [10.0, 10.0, 1.0, 1.0]) == pytest.approx(-1.0)
    assert tuning.fitted_offset(labels, margins, [1.0, 1.0, 10.0, 10.0]) == pytest.approx(1.0)


def test_the_offset_calls_at_most_the_limit_of_the_attacks_supported():
    # unconstrained, the best threshold is -1.5 (every supported row called); the attacks sit at -0.8 and above
    labels = [0, 0, 0, 1, 1, 1]
    margins = [-3.0, -2.5, -2.0, -1.0, -0.5, 1.0]
    attacks = [-0.8] * 19 + [5.0]
    offset = tuning.fitted_offset(labels, margins, attack_margins=attacks)
    assert offset == pytest.approx(-0.75)  # the best of the thresholds above the attacks: a supported row is lost
    assert sum(margin >= offset for margin in attacks) <= tuning.ATTACKS_CALLED_LIMIT * len(attacks)
    # attacks the unconstrained threshold already rejects change nothing
    assert tuning.fitted_offset(labels, margins, attack_margins=[-5.0] * 20) == tuning.fitted_offset(labels, margins)
    # attacks above every validation margin: the lowest threshold that rejects them, though it calls nothing supported
    offset = tuning.fitted_offset(labels, margins, attack_margins=[3.0] * 20)
    assert 3.0 < offset < 3.001


def saved_adapter(model, path, scale=0.05, seed=0):
    torch.manual_seed(seed)
    adapted = tuning.adapted(copy.deepcopy(model), TINY_LORA)
    with torch.no_grad():
        for name, parameter in adapted.named_parameters():
            if "lora_B" in name:  # peft starts B at zero: a fresh adapter changes nothing
                parameter.normal_(0, scale)
    tuning.save_adapter(tuning.adapter_tensors(tuning.lora_weights(adapted)), TINY_LORA, "tiny", {"rows_seen": 8}, path)
    return adapted


def test_an_adapter_file_round_trips_with_its_fingerprint_and_card(tiny_model, tmp_path):
    saved_adapter(tiny_model, tmp_path / "a.safetensors")
    saved_adapter(tiny_model, tmp_path / "b.safetensors", seed=1)
    first, second = tuning.Adapter(tmp_path / "a.safetensors"), tuning.Adapter(tmp_path / "b.safetensors")
    assert first.card == {"rows_seen": 8} and first.config == {"judge": "tiny", "lora": TINY_LORA}
    assert re.fullmatch(r"[0-9a-f]{16}", first.fingerprint) and first.fingerprint != second.fingerprint
    assert all(tensor.dtype == torch.bfloat16 for tensor in first.tensors.values())


def test_a_missing_or_altered_adapter_is_refused_by_path(tiny_model, tmp_path):
    missing = tmp_path / "none.safetensors"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        tuning.Adapter(missing)
    path = tmp_path / "a.safetensors"
    saved_adapter(tiny_model, path)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF  # a weight's bits
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*fingerprint"):
        tuning.Adapter(path)
    path.write_bytes(b"not an adapter")
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*unreadable"):
        tuning.Adapter(path)


# ------------------------------------------------------------------ the tuned verdict
@pytest.fixture(scope="module")
def smol_adapter(smol_judge, tmp_path_factory):
    """An adapter with random weights for the small embedded judge, and the adapted (unmerged) model."""
    path = tmp_path_factory.mktemp("adapter") / "smol.safetensors"
    torch.manual_seed(0)
    adapted = tuning.adapted(copy.deepcopy(smol_judge.model).float(), {**tuning.LORA, "lora_dropout": 0.0})
    with torch.no_grad():
        for name, parameter in adapted.named_parameters():
            if "lora_B" in name:
                parameter.normal_(0, 0.02)
    tuning.save_adapter(tuning.adapter_tensors(tuning.lora_weights(adapted)), {**tuning.LORA, "lora_dropout": 0.0}, smol_judge.name, {}, path)
    return str(path), adapted.eval()


def test_the_tuned_judge_answers_as_the_model_it_was_trained_as(smol_judge_fp32, smol_adapter, tmp_path):
    path, _ = smol_adapter
    adapted = tuning.Adapter(path).load_into(copy.deepcopy(smol_judge_fp32.model)).eval()
    setting = Verdict("tuned", window_tokens=160, adapter=path)
    items = [{"document": SOURCE, "claim": CLAIM}, {"document": SOURCE, "claim": "The ferry is free."}]
    verdicts = judge_items(smol_judge_fp32, "alignment", items, settings={"alignment": setting}, cache=False)
    tuned = tuning.tuned_judge(smol_judge_fp32, path)
    prompts = [learned.verification_prompt(tuned, "alignment", {"document": SOURCE, "statement": item["claim"]}) for item in items]
    ids, mask = tuning.padded([tuned._encode(prompt) for prompt in prompts], smol_judge_fp32.tokenizer.pad_token_id)
    with torch.no_grad():
        trained = torch.sigmoid(tuning.answer_margins(adapted, ids, mask, tuned._yes_ids, tuned._no_ids))
    for (probability, _), expected in zip(verdicts, trained.tolist()):
        assert probability == pytest.approx(expected, abs=2e-3)
    with torch.no_grad():  # the adapter changes the answers
        base = smol_judge_fp32.yes_probability(prompts, cache=False)
    assert max(abs(a - b) for a, b in zip(base, trained.tolist())) > 1e-3


def test_the_tuned_verdict_decides_at_the_threshold_in_its_adapters_card(smol_judge, smol_adapter, tmp_path):
    path, _ = smol_adapter
    adapter = tuning.Adapter(path)
    shifted, per_dtype = tmp_path / "shifted.safetensors", tmp_path / "per_dtype.safetensors"
    tuning.save_adapter(adapter.tensors, adapter.config["lora"], adapter.config["judge"], {"offset": 1.5}, shifted)
    # an offset measured in the judge's own dtype wins over the card's; another dtype's is not read
    other = "torch.float32" if smol_judge.model.dtype == torch.bfloat16 else "torch.bfloat16"
    card = {"offset": 1.5, "offsets": {str(smol_judge.model.dtype): -1.0, other: 9.0}}
    tuning.save_adapter(adapter.tensors, adapter.config["lora"], adapter.config["judge"], card, per_dtype)
    items = [{"document": SOURCE, "claim": CLAIM}, {"document": SOURCE, "claim": "The ferry is free."}]
    at_zero, at_card, at_dtype = (
        [probability for probability, _ in judge_items(smol_judge, "alignment", items, settings={"alignment": Verdict("tuned", adapter=str(name))})]
        for name in (path, shifted, per_dtype)
    )
    # the same weights, so the same answers; the card's threshold moves the verdict's 0.5 to margin 1.5
    assert [1 / (1 + math.exp(-(logit(p) - 1.5))) for p in at_zero] == pytest.approx(at_card, abs=1e-9)
    assert all(card < zero for zero, card in zip(at_zero, at_card))
    assert [1 / (1 + math.exp(-(logit(p) + 1.0))) for p in at_zero] == pytest.approx(at_dtype, abs=1e-9)


def test_an_adapter_reads_the_offset_of_a_dtype_else_the_one_it_was_trained_in(tiny_model, tmp_path):
    path = tmp_path / "a.safetensors"
    adapted = saved_adapter(tiny_model, path)
    trained = tuning.Adapter(path)
    offsets = {"torch.bfloat16": 0.4, "torch.float32": 0.13}
    tuning.save_adapter(trained.tensors, TINY_LORA, "tiny", {**trained.card, "offset": 0.4, "offsets": offsets}, path)
    adapter = tuning.Adapter(path)
    assert adapter.offset(torch.float32) == 0.13 and adapter.offset(torch.bfloat16) == 0.4
    assert adapter.offset(torch.float16) == 0.4 and adapter.offset(None) == 0.4  # not measured there; a served judge
    assert adapter.fingerprint == trained.fingerprint  # a measured offset leaves the weights' cached verdicts valid
    tensors = tuning.adapter_tensors(tuning.lora_weights(adapted))
    tuning.save_adapter(tensors, TINY_LORA, "tiny", {}, tmp_path / "b.safetensors")
    assert tuning.Adapter(tmp_path / "b.safetensors").offset(torch.float32) == 0.0


def test_the_tuned_judge_is_built_once_shares_the_judges_weights_and_its_fingerprint_follows_the_adapter(
    smol_judge, smol_adapter, tiny_model, tmp_path
):
    path, _ = smol_adapter
    tuned = tuning.tuned_judge(smol_judge, path)
    assert tuning.tuned_judge(smol_judge, path) is tuned
    # an adapter not applied in this process yet: building its judge leaves the judge's own answers as they were,
    # and holds the judge's weights once (a full copy of the model would double its memory)
    adapter = tuning.Adapter(path)
    doubled = tmp_path / "doubled.safetensors"
    tuning.save_adapter({name: 2 * tensor for name, tensor in adapter.tensors.items()}, adapter.config["lora"], smol_judge.name, {}, doubled)
    questions = [f"{SOURCE}\nIs it true that the ferry takes 35 minutes? Answer yes or no:", "Is Dunmore a ferry? Answer yes or no:"]
    before = smol_judge.yes_probability(questions, cache=False)
    tuned_doubled = tuning.tuned_judge(smol_judge, str(doubled))
    assert smol_judge.yes_probability(questions, cache=False) == before
    assert tuned_doubled.yes_probability(questions, cache=False) != before
    weights = {parameter.data_ptr() for parameter in tuned_doubled.model.parameters()}
    assert all(parameter.data_ptr() in weights for parameter in smol_judge.model.parameters())
    fingerprint = tuning.Adapter(path).fingerprint
    assert tuned.fingerprint == f"{smol_judge.fingerprint}+adapter:{fingerprint}" and tuned.settings_key == smol_judge.settings_key
    settings = {"alignment": Verdict("tuned", window_tokens=160, adapter=path)}
    other = tmp_path / "other.safetensors"
    saved_adapter(tiny_model, other)
    assert settings_fingerprint(settings) != settings_fingerprint({"alignment": Verdict("tuned", window_tokens=160, adapter=str(other))})
    assert settings_label(smol_judge, None).startswith("shipped:") and "adapter" not in settings_label(smol_judge, None)


def test_a_judge_without_a_model_here_gives_its_stateless_verdict_for_a_tuned_one(smol_adapter):
    judge = ScriptedJudge(verdicts={CLAIM: 0.9})
    settings = {"alignment": Verdict("tuned", adapter=smol_adapter[0])}
    assert judge_settings(judge, "alignment", settings).method == "probability"
    assert settings_label(judge, settings).endswith("+alignment:no-adapter")
    assert judge_items(judge, "alignment", [{"document": SOURCE, "claim": CLAIM}], settings=settings)[0][0] == 0.9


def test_a_tuned_verdict_is_for_summary_claims_and_facts_only(smol_judge, smol_adapter):
    """Claims against the source (alignment) and facts against the summary (coverage); a chunk's usefulness has no
    verification prompt."""
    path, _ = smol_adapter
    tuned = Verdict("tuned", adapter=path)
    ((probability, _),) = judge_items(smol_judge, "coverage", [{"summary": SOURCE, "question": "y", "fact": CLAIM}],
                                      settings={"coverage": tuned})
    assert 0.0 <= probability <= 1.0
    with pytest.raises(ValueError, match="utilization"):
        judge_items(smol_judge, "utilization", [{"question": "q", "answer": "a", "context": "c"}],
                    settings={"utilization": tuned})


# ------------------------------------------------------------------ served adapters (vLLM --enable-lora)
def test_an_exported_adapter_is_a_peft_directory_known_by_its_weights_or_its_name(tiny_model, tmp_path):
    from peft import PeftModel

    path = tmp_path / "a.safetensors"
    saved_adapter(tiny_model, path)
    adapter = tuning.Adapter(path)
    fingerprint = adapter.fingerprint
    directory = tuning.export_adapter(str(path), tmp_path / "exported")
    config = json.loads((directory / "adapter_config.json").read_text())
    assert (config["peft_type"], config["r"], config["lora_alpha"]) == ("LORA", 8, 16)
    assert sorted(config["target_modules"]) == sorted(TINY_LORA["target_modules"]) and config["layers_to_transform"] == [1]
    # peft reads it back as the adapter the tuned judge applies (vLLM reads the same two files)
    exported = PeftModel.from_pretrained(copy.deepcopy(tiny_model), str(directory)).eval()
    applied = adapter.load_into(copy.deepcopy(tiny_model)).eval()
    tokens = torch.arange(12).view(2, 6)
    with torch.no_grad():
        assert torch.equal(exported(tokens).logits, applied(tokens).logits)
        assert not torch.allclose(exported(tokens).logits, tiny_model(tokens).logits)
    # a server names the directory: here the weights decide, elsewhere its name; another LoRA's is no adapter of ours
    assert tuning.served_fingerprint(str(directory)) == fingerprint
    assert tuning.served_fingerprint(f"/on/the/server/tiny-adapter-{fingerprint}") == fingerprint
    other = tmp_path / "other"
    other.mkdir()
    save_file({"w": torch.zeros(2)}, str(other / "adapter_model.safetensors"))
    assert tuning.served_fingerprint(str(other)) is None and tuning.served_fingerprint("/on/the/server/lora") is None


def test_a_served_judge_asks_for_the_adapter_where_its_server_applies_it(smol_judge, smol_adapter, tmp_path):
    path, _ = smol_adapter
    directory = tuning.export_adapter(path, tmp_path / "exported")
    settings = {"alignment": Verdict("tuned", window_tokens=160, adapter=path)}

    def served(lora_models):  # no request is sent: what the server lists decides
        return ServedJudge(None, "http://127.0.0.1:1/v1", smol_judge.name, smol_judge.tokenizer, f"served:{len(lora_models)}",
                           4096, tmp_path, settings_key=smol_judge.settings_key, lora_models=lora_models)

    applying = served([{"id": "smol-tuned", "root": str(directory), "parent": smol_judge.name}])
    assert judge_settings(applying, "alignment", settings).method == "tuned"
    assert not settings_label(applying, settings).endswith("no-adapter")
    tuned = tuning.tuned_judge(applying, path)
    assert tuned.name == "smol-tuned" and tuned.fingerprint == f"served:1+adapter:{tuning.Adapter(path).fingerprint}"
    # a server without it: the stateless verdict, said in the label; asking for the adapter says how to serve it
    without = served([])
    assert judge_settings(without, "alignment", settings) == STATELESS_SETTINGS[smol_judge.settings_key]["alignment"]
    assert settings_label(without, settings).endswith("+alignment:no-adapter")
    with pytest.raises(ValueError, match="does not apply the adapter.*localjudge export-adapter"):
        tuning.tuned_judge(without, path)


def test_the_default_judge_served_without_its_adapter_gives_its_likelihood_verdict_and_says_so(smol_judge, tmp_path):
    """The default judge's shipped claim verdict is the tuned one; where its server does not apply the adapter, the
    result gets the likelihood verdict that was the default before it (`ALIGNMENT_Q10`), and its label says so."""
    judge = ServedJudge(None, "http://127.0.0.1:1/v1", DEFAULT_JUDGE, smol_judge.tokenizer, "served:0", 4096, tmp_path,
                        settings_key=DEFAULT_JUDGE, lora_models=[])
    assert JUDGE_SETTINGS[DEFAULT_JUDGE]["alignment"] == TUNED_ALIGNMENTS[DEFAULT_JUDGE]
    assert judge_settings(judge, "alignment") == ALIGNMENT_Q10
    assert settings_label(judge, None) == f"shipped:{DEFAULT_JUDGE}@{PROMPT_VERSION}+alignment:no-adapter"


def test_a_lora_adapter_is_no_judge_of_its_own():
    models = [{"id": "base", "root": "/models/base"}, {"id": "base-tuned", "root": "/adapters/x", "parent": "base"}]
    assert _choose_model(models, None, "http://h/v1")["id"] == "base"  # the server's one judge
    with pytest.raises(JudgeServerError, match="'base-tuned' at http://h/v1 is a LoRA adapter on the model 'base'"):
        _choose_model(models, "base-tuned", "http://h/v1")


def test_export_adapter_prints_how_to_serve_it(tmp_path, capsys):
    assert cli.main(["export-adapter", "--judge", "smollm2-135m", "-o", str(tmp_path)]) == 1
    assert "smollm2-135m.adapter.safetensors is missing" in capsys.readouterr().err
    if not learned.default_adapter_path(DEFAULT_JUDGE).is_file():
        pytest.skip("no adapter shipped")
    assert cli.main(["export-adapter", "-o", str(tmp_path / "exported")]) == 0
    printed = capsys.readouterr().out
    assert f"--served-model-name {DEFAULT_JUDGE} --enable-lora --max-lora-rank 8" in printed
    assert f"--lora-modules {DEFAULT_JUDGE}-tuned={tmp_path / 'exported'}" in printed
    assert tuning.served_fingerprint(str(tmp_path / "exported")) == tuning.shipped_adapter(DEFAULT_JUDGE).fingerprint


def test_vllm_is_told_a_max_lora_rank_it_takes_and_that_fits_the_adapter():
    assert [cli.vllm_max_lora_rank(rank) for rank in (1, 4, 8, 12, 16)] == [1, 8, 8, 16, 16]


@pytest.mark.parametrize("judge", list(TUNED_ALIGNMENTS))
def test_each_shipped_adapter_loads_offline_and_matches_its_card(judge):
    path = learned.default_adapter_path(judge)
    if not path.is_file():
        pytest.skip(f"no adapter shipped at {path}")
    adapter = tuning.Adapter(path)
    assert adapter.config["judge"] == judge and adapter.card["rows_seen"] > 0 and TUNED_ALIGNMENTS[judge].adapter == judge
    assert path.stat().st_size < 10 * 2**20 and not math.isnan(adapter.card["curve"][-1]["BAcc"])
    # one threshold per dtype the judge runs in here: bf16 on CPUs with AVX512-BF16, fp32 on the others
    assert {"torch.bfloat16", "torch.float32"} <= set(adapter.card["offsets"])


def test_an_adapter_for_another_judge_is_refused_with_the_judges_names(smol_judge, smol_adapter, tmp_path):
    path, _ = smol_adapter
    other = tmp_path / "for-another-judge.safetensors"
    tuning.save_adapter(tuning.Adapter(path).tensors, {**tuning.LORA, "lora_dropout": 0.0}, "qwen2.5-coder-1.5b", {}, other)
    with pytest.raises(ValueError, match="trained for judge 'qwen2.5-coder-1.5b', not 'smollm2-135m'"):
        tuning.tuned_judge(smol_judge, str(other))


def test_a_checkpoint_resumes_only_its_own_session_on_its_own_pool():
    script = Path(__file__).resolve().parents[1] / "scripts" / "train_judge.py"
    spec = importlib.util.spec_from_file_location("train_judge", script)
    train_judge = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train_judge)
    settings = {"learning_rate": 2e-5, "dtype": "torch.float32"}
    card = {"rows_seen": 52992, "pool_id": "new"}
    saved = {"start": "run20.safetensors", "lora": {"r": 8},
             "card": {"rows_seen": 53376, "pool_id": "new", "sessions": [{**settings, "machine": "cpu"}]}}
    assert train_judge.continues_session(saved, card, "run20.safetensors", {"r": 8}, settings)
    # a run stopped on another pool (another mix of edits, another --per-file) starts a session of its own
    other_pool = {**saved, "card": {**saved["card"], "pool_id": "old"}}
    assert not train_judge.continues_session(other_pool, card, "run20.safetensors", {"r": 8}, settings)
    assert not train_judge.continues_session(saved, card, "run20.safetensors", {"r": 8}, {**settings, "learning_rate": 5e-5})
    assert not train_judge.continues_session(None, card, "run20.safetensors", {"r": 8}, settings)
