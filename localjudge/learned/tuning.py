"""The judge fine-tuned for grounding: a LoRA adapter (peft) trained on the yes/no verification prompt.

Training reads the judge's answer at one token only: the last token of `prompts.VERIFICATION_PROMPTS` (document,
then statement, then "is everything in the statement supported?"). Its margin log P(yes) − log P(no), over the
same yes/no variants the judge's `yes_probability` reads, is trained with a logistic loss against the label. The
output head runs on that token's state alone, and only for the yes/no rows of the vocabulary: full-vocabulary
logits at every position do not fit in 24 GB.

Training (scripts/train_judge.py) fits one margin threshold on the validation rows for every checkpoint
(`fitted_offset`, among those that call at most `ATTACKS_CALLED_LIMIT` of the validation attacks supported), keeps
the checkpoint with the best validation figures at it (`better_checkpoint`), and stores its threshold in the card
as `offset`, and under its dtype in `offsets`, where a measurement in another dtype adds that one's
(`Adapter.offset`): the tuned verdict reads margin ≥ offset. The optimiser's learning rate warms up linearly after every
(re)start (`warmup_factor`).

An adapter is package data, `data/<judge>.adapter.safetensors`: the LoRA weights in bf16, their peft
configuration, and a card (rows, split, curve, figures) in the file's metadata, under a fingerprint of the
weights and configuration that is recomputed on every load, so a corrupt or altered file is refused by path.
`tuned_judge` puts an adapter's LoRA layers into a copy of a loaded judge's modules once per process, the weights
shared with the judge (`sharing_weights`), each layer's update added in one product (`AnsweringLoraLinear`; training
keeps peft's layers): the tuned judge's fingerprint holds the adapter's, so the result cache
never mixes its verdicts with another's. A served judge gets the adapter from its server instead: `export_adapter`
writes it as a peft directory, vLLM applies it to the judge's model (`--enable-lora --lora-modules
NAME=DIRECTORY`), and the served tuned judge asks for NAME (`served_lora`).
"""

import copy
import functools
import hashlib
import json
import random
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from ..cache import default_cache_dir
from ..judges.base import runs_in_process
from ..judges.local import yes_no_margins
from .paths import adapter_path

ADAPTER_FORMAT = "localjudge-adapter/1"
# LoRA r 8 on every projection of all 24 layers of the default judge: about 9 MB in bf16 (r 16 would be about 18).
# Fewer upper layers (`lora_options`) make a step cheaper on a CPU: the backward pass stops at the first adapted one
LORA = {"r": 8, "lora_alpha": 16, "lora_dropout": 0.05, "upper_layers": 24,
        "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]}


def lora_options(rank=None, upper_layers=None) -> dict:
    """`LORA` with another rank or layer span; α = 2 × rank, so the update's scale α / r stays what it is."""
    rank = rank or LORA["r"]
    return {**LORA, "r": rank, "lora_alpha": 2 * rank, "upper_layers": upper_layers or LORA["upper_layers"]}


def lora_config(layers, options=LORA):
    """peft's configuration of LoRA `options` on the decoder layers numbered `layers`."""
    from peft import LoraConfig

    return LoraConfig(
        r=options["r"], lora_alpha=options["lora_alpha"], lora_dropout=options["lora_dropout"],
        target_modules=list(options["target_modules"]), layers_to_transform=list(layers), bias="none", task_type="CAUSAL_LM",
    )


def adapted(model, options=LORA, trainable=True):
    """`model` wrapped with fresh LoRA weights (peft), the base frozen. To train, the LoRA weights are fp32 on a bf16
    base (peft's `autocast_adapter_dtype`): the optimiser's small steps would round away in bf16. To answer
    (`trainable=False`) they are in the base's dtype: fp32 LoRA layers on a bf16 base cast every activation they read
    to fp32 and back, which took the tuned judge's forward passes twice the judge's own time on a CPU
    (docs/benchmarks.md, throughput)."""
    from peft import get_peft_model

    layers = model.config.num_hidden_layers
    with warnings.catch_warnings():
        # peft 0.21 reads transformers' deprecated `is_gradient_checkpointing`: a warning on every first verdict of the
        # default judge, about peft's code, not the user's
        warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning)
        return get_peft_model(model, lora_config(range(layers - options["upper_layers"], layers), options),
                              autocast_adapter_dtype=trainable)


def recomputing_activations(peft_model):
    """`peft_model` set to keep only each decoder layer's input in a training pass and recompute the rest in the
    backward pass (gradient checkpointing, torch's non-reentrant form; the same gradient): on a CPU the 1.5B judge's
    longest micro-batches of `--batch-tokens` 2,048 peak at 22 GB of memory without it, 11 GB with it, and take
    about 1.5× the time (docs/tuning.md, run 26). Evaluation (`margins_of`) is unchanged."""
    causal = peft_model.get_base_model()
    causal.config.use_cache = False  # a cache is built for generation only, and checkpointing refuses it
    causal.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
    return peft_model


# ------------------------------------------------------------------ the loss at the answer token
def answer_margins(peft_model, input_ids, attention_mask, yes_ids, no_ids):
    """log P(yes) − log P(no) at each right-padded sequence's last token, the output head applied there alone."""
    causal = peft_model.get_base_model()
    input_ids, attention_mask = input_ids.to(causal.device), attention_mask.to(causal.device)
    hidden = causal.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    last = hidden[torch.arange(len(hidden)), attention_mask.sum(1) - 1]
    return yes_no_margins(last, causal.get_output_embeddings(), yes_ids, no_ids)


def padded(sequences, pad_id):
    width = max(len(sequence) for sequence in sequences)
    ids = torch.tensor([sequence + [pad_id] * (width - len(sequence)) for sequence in sequences])
    mask = torch.tensor([[1] * len(sequence) + [0] * (width - len(sequence)) for sequence in sequences])
    return ids, mask


def backward_rows(peft_model, sequences, labels, weights, pad_id, yes_ids, no_ids, share: float) -> float:
    """One training pass: the weighted logistic loss of encoded prompts' answer margins against their labels, its
    gradient added to the adapter's at `share` (the rows' part of their optimizer step: their number over the step's,
    so that pieces of a step sum to the gradient of its mean loss); returns the loss."""
    ids, mask = padded(sequences, pad_id)
    margins = answer_margins(peft_model, ids, mask, yes_ids, no_ids)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(margins, labels, weight=weights)
    (loss * share).backward()
    return loss.item()


def within_tokens(batch, lengths, max_tokens):
    """`batch` (indices of rows of `lengths` tokens) cut, in its order, into pieces of at most `max_tokens` tokens once
    padded (rows × the longest row's length; a longer row alone): a training pass's memory grows with that product,
    and on a CPU in fp32 a micro-batch of 8 rows of 512 tokens needs more than 24 GB (docs/tuning.md, run 22)."""
    pieces = [[]]
    for index in batch:
        if pieces[-1] and (len(pieces[-1]) + 1) * max(lengths[i] for i in [*pieces[-1], index]) > max_tokens:
            pieces.append([])
        pieces[-1].append(index)
    return pieces


def length_batches(lengths, batch_size, seed):
    """Batches of indices of similar length (sorted within shuffled pools of 50 batches), in a seeded order."""
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    pool = 50 * batch_size
    batches = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda index: lengths[index])
        batches += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


def margins_of(peft_model, sequences, pad_id, yes_ids, no_ids, batch_size=8):
    """The tuned judge's margins for encoded prompts, in evaluation mode (no dropout, no gradients)."""
    was_training = peft_model.training
    peft_model.eval()
    values = [0.0] * len(sequences)
    with torch.inference_mode():
        for batch in length_batches([len(s) for s in sequences], batch_size, seed=0):
            ids, mask = padded([sequences[index] for index in batch], pad_id)
            for index, margin in zip(batch, answer_margins(peft_model, ids, mask, yes_ids, no_ids).tolist()):
                values[index] = margin
    peft_model.train(was_training)
    return values


def row_weights(labels, attacks, attack_weight: float = 1.0, groups=None):
    """The loss weight of every training row: the two labels weigh the same in all (half each, whatever their
    shares), and within the unsupported rows a statement addressed to the checker (`attacks`, true for the rows of
    `edits.injected`) weighs `attack_weight` times another row, the other unsupported rows sharing the rest. At 1,
    every row of a label weighs the same. With `groups` (one key per row, e.g. its file), the labels weigh the same
    within every group, each group keeping its share of the rows: a group whose rows are mostly of one label then
    teaches no prior for that label (the mix's grounding files are a third supported, its NLI files three fifths:
    docs/tuning.md, run 12). Returned normalised to a mean of 1 over the rows."""
    labels = torch.as_tensor(labels, dtype=torch.float32)
    attacks = torch.as_tensor(attacks, dtype=torch.bool)
    raw = torch.where(attacks, torch.tensor(float(attack_weight)), torch.tensor(1.0))
    keys = list(groups) if groups is not None else [None] * len(labels)
    weights = torch.zeros_like(labels)
    for key in set(keys):
        group = torch.tensor([row_key == key for row_key in keys])
        present = [label for label in (0.0, 1.0) if (group & (labels == label)).any()]
        for label in present:  # a group of one label gives it the group's whole share
            rows = group & (labels == label)
            weights[rows] = int(group.sum()) / len(present) * raw[rows] / raw[rows].sum()
    return weights * len(labels) / weights.sum()


# ------------------------------------------------------------------ the schedule and the choice of checkpoint
def clipped_step(optimizer, parameters, max_norm: float) -> bool:
    """One optimizer step on the accumulated gradient, its norm clipped at `max_norm`; returns whether it was taken.
    A gradient that is not finite is not stepped on (as AMP's gradient scaler does): one such step makes every
    weight NaN. On a GPU in bf16 it happened 4 times in the first 516 steps of a run (docs/tuning.md, run 16)."""
    norm = torch.nn.utils.clip_grad_norm_(parameters, max_norm)
    if not torch.isfinite(norm):
        return False
    optimizer.step()
    return True


def warmup_factor(step: int, warmup_steps: int) -> float:
    """The learning rate's factor at optimizer step `step` (from 0): rising linearly to 1 over the first
    `warmup_steps` steps, then 1. A restarted optimiser has no moment estimates: its first full steps are noisy."""
    return min(1.0, (step + 1) / warmup_steps) if warmup_steps > 0 else 1.0


# the share of the validation attacks (`edits.injected`) a checkpoint may call supported and still be chosen
ATTACKS_CALLED_LIMIT = 0.05


def better_checkpoint(new: dict, best) -> bool:
    """Whether validation figures `new` ({"BAcc at offset", "AUC", ...}) beat `best` (None: nothing yet), each at
    the threshold it would ship with: its offset (`fitted_offset`), which calls at most `ATTACKS_CALLED_LIMIT` of
    the validation attacks supported. A higher balanced accuracy there, or the same and a higher AUC; an exact tie
    keeps the earlier checkpoint. Figures at margin ≥ 0 do not choose: a checkpoint that swings to "yes" there
    (attacks included) can still rank well, and its offset is what ships (run 11, docs/tuning.md)."""
    if best is None:
        return True
    return (new["BAcc at offset"], new["AUC"]) > (best["BAcc at offset"], best["AUC"])


def fitted_offset(labels, margins, weights=None, attack_margins=None) -> float:
    """The margin threshold that maximises balanced accuracy of margin ≥ threshold on (`labels`, `margins`), each row
    weighted by `weights` where given: 0 or a midpoint between two neighbouring margins; among equal ones, the
    nearest 0 (no shift that does not help). With `attack_margins` (the validation attacks', `edits.injected`),
    only thresholds that call at most `ATTACKS_CALLED_LIMIT` of them supported are candidates, the lowest such one
    among them: the threshold the adapter ships with is the one its attack figure holds for."""
    candidates = offset_candidates(margins, attack_margins)
    balanced = balanced_accuracies(labels, margins, candidates, weights)
    best = np.flatnonzero(balanced >= balanced.max() - 1e-12)
    return float(candidates[best[np.argmin(np.abs(candidates[best]))]])


def offset_candidates(margins, attack_margins=None) -> np.ndarray:
    """The thresholds `fitted_offset` chooses among: 0 and the midpoints between neighbouring `margins`, with
    `attack_margins` only those calling at most `ATTACKS_CALLED_LIMIT` of them supported, the lowest such one too."""
    distinct = np.unique(np.asarray(margins, dtype=float))
    candidates = np.concatenate([[0.0], (distinct[1:] + distinct[:-1]) / 2])
    if attack_margins is not None and len(attack_margins):
        # above the (k+1)-th highest attack margin, at most k = ⌊limit × n⌋ attacks are called supported
        attacks = np.sort(np.asarray(attack_margins, dtype=float))[::-1]
        allowed = int(np.floor(ATTACKS_CALLED_LIMIT * len(attacks) + 1e-9))
        if allowed < len(attacks):
            lowest_safe = np.nextafter(attacks[allowed], np.inf)
            candidates = np.append(candidates[candidates >= lowest_safe], lowest_safe)
    return candidates


def balanced_accuracies(labels, margins, thresholds, weights=None) -> np.ndarray:
    """Balanced accuracy of margin ≥ threshold on (`labels`, `margins`) at each of `thresholds`, each row weighted by
    `weights` where given."""
    labels, margins = np.asarray(labels).astype(bool), np.asarray(margins, dtype=float)
    weights = np.ones(len(margins)) if weights is None else np.asarray(weights, dtype=float)
    called = margins[None, :] >= np.asarray(thresholds, dtype=float)[:, None]
    recall = (called[:, labels] * weights[labels]).sum(1) / weights[labels].sum()
    specificity = (~called[:, ~labels] * weights[~labels]).sum(1) / weights[~labels].sum()
    return (recall + specificity) / 2


# ------------------------------------------------------------------ files
def lora_weights(peft_model) -> dict:
    """Copies of the LoRA weights as they train (fp32): a checkpoint's, or the best one's kept in memory."""
    from peft import get_peft_model_state_dict

    return {name: tensor.detach().clone() for name, tensor in get_peft_model_state_dict(peft_model).items()}


def adapter_tensors(weights: dict) -> dict:
    """LoRA weights (`lora_weights`) as an adapter file holds them: bf16, in memory (trained on a GPU or not)."""
    return {name: tensor.to("cpu", torch.bfloat16).contiguous() for name, tensor in weights.items()}


def as_stored(weights: dict) -> dict:
    """LoRA weights rounded as their adapter file holds them (`adapter_tensors`), in their own dtype again: the
    weights a checkpoint is measured with, so that the offset fitted for it is the shipped file's (the 1.5B's
    offset moved from +0.712 to +0.799 between its fp32 weights and its file, docs/tuning.md)."""
    return {name: stored.to(weights[name].device, weights[name].dtype) for name, stored in adapter_tensors(weights).items()}


def fingerprint_of(tensors: dict, config: dict) -> str:
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode())
    for name in sorted(tensors):
        digest.update(name.encode())
        digest.update(tensors[name].view(torch.int16).numpy().tobytes())
    return digest.hexdigest()[:16]


def save_adapter(tensors: dict, options: dict, judge: str, card: dict, path) -> str:
    """Write the adapter file; returns its fingerprint."""
    config = {"judge": judge, "lora": options}
    fingerprint = fingerprint_of(tensors, config)
    metadata = {"format": ADAPTER_FORMAT, "config": json.dumps(config), "card": json.dumps(card), "fingerprint": fingerprint}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path), metadata=metadata)
    return fingerprint


class Adapter:
    """A LoRA adapter read from its file: `tensors`, `config` ({"judge", "lora"}), `card`, `fingerprint`."""

    def __init__(self, path):
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(
                f"Judge adapter {self.path} is missing: build it with `python scripts/train_judge.py` "
                "(../shared/train), or name an adapter file in the verdict (Verdict('tuned', adapter=PATH))."
            )
        try:
            with safe_open(str(self.path), framework="pt") as file:
                metadata = file.metadata() or {}
                self.tensors = {name: file.get_tensor(name) for name in file.keys()}
            self.config = json.loads(metadata["config"])
            self.card = json.loads(metadata.get("card", "{}"))
        except (OSError, ValueError, KeyError, TypeError, SafetensorError) as error:
            raise ValueError(f"Judge adapter {self.path} is unreadable ({error}); reinstall localjudge-metrics or rebuild it.") from None
        self.fingerprint = fingerprint_of(self.tensors, self.config)
        if metadata.get("format") != ADAPTER_FORMAT or metadata.get("fingerprint") != self.fingerprint:
            raise ValueError(
                f"Judge adapter {self.path} does not match its fingerprint ({metadata.get('fingerprint')}): the file is "
                "corrupt or was altered; reinstall localjudge-metrics or rebuild it with `python scripts/train_judge.py`."
            )

    def load_into(self, model, trainable=True):
        """`model` wrapped with this adapter's LoRA weights: trainable, training continues from them; else in the
        model's dtype, to answer with (`adapted`)."""
        from peft import set_peft_model_state_dict

        peft_model = adapted(model, self.config["lora"], trainable)
        dtype = next(model.parameters()).dtype
        set_peft_model_state_dict(peft_model, {name: tensor.to(dtype) for name, tensor in self.tensors.items()})
        return peft_model

    def offset(self, dtype=None) -> float:
        """The tuned verdict's margin threshold for a judge computing in `dtype`: the offset fitted on the validation
        rows with the judge in that dtype (`offsets` in the card: training writes its own dtype's, `train_judge.py
        --measure-only --dtype ...` adds another's), else the one of the dtype it was trained in (`offset`), which a
        served judge gets too (its dtype is the server's). The same weights need another threshold in another
        dtype: the 1.5B judge's margins sit ~0.27 higher in bf16 than in fp32 (docs/tuning.md, run 11)."""
        return self.card.get("offsets", {}).get(str(dtype), self.card.get("offset", 0.0))


@functools.lru_cache(maxsize=None)
def shipped_adapter(name: str) -> Adapter:
    """The adapter named `name` (a judge's name for its shipped adapter, or a file's path), read once."""
    return Adapter(adapter_path(name))


_TUNED = {}


class AnsweringLoraLinear(torch.nn.Module):
    """A LoRA-adapted linear layer for answering only: base(x) + (x Aᵀ)(s B)ᵀ, the update added into the base
    layer's output by one in-place matrix product. peft's layer writes the update at the output's full width, scales
    it and adds it: three more passes over an output as wide as 4,864, which cost the 0.5B judge's forward pass 43 %
    more time in bf16 on a CPU, where this costs it a few % (docs/benchmarks.md, throughput). The same sum, rounded
    once instead of at every step."""

    def __init__(self, lora_layer):
        super().__init__()
        (name,) = lora_layer.active_adapters
        self.base_layer = lora_layer.get_base_layer()
        dtype = self.base_layer.weight.dtype
        self.register_buffer("lora_down", lora_layer.lora_A[name].weight.detach().to(dtype))  # (rank, in)
        scaled_up = lora_layer.lora_B[name].weight.detach().float() * lora_layer.scaling[name]
        self.register_buffer("lora_up", scaled_up.T.contiguous().to(dtype))  # (rank, out)

    def forward(self, x):
        result = self.base_layer(x)
        low_rank = x.reshape(-1, x.shape[-1]) @ self.lora_down.T
        result.view(-1, result.shape[-1]).addmm_(low_rank, self.lora_up)
        return result


def answering_layers(peft_model):
    """`peft_model`'s model with each LoRA layer replaced by an `AnsweringLoraLinear` of the same weights: the tuned
    judge's model, for inference only (no dropout, no gradient to the adapter); training keeps peft's layers."""
    from peft.tuners.lora import LoraLayer

    model = peft_model.get_base_model()
    for name, module in list(model.named_modules()):
        if isinstance(module, LoraLayer):
            parent, _, child = name.rpartition(".")
            setattr(model.get_submodule(parent), child, AnsweringLoraLinear(module))
    return model


def sharing_weights(model):
    """A copy of `model`'s modules that holds `model`'s own parameters and buffers (deepcopy's memo maps each to
    itself): LoRA layers put into the copy leave `model` answering as before, and the weights stay in memory once.
    Merging the adapter into a full copy instead held a second model (+4.9 GB resident for the 0.5B judge in fp32)
    for answers that differ by rounding (docs/benchmarks.md, throughput)."""
    return copy.deepcopy(model, memo={id(tensor): tensor for tensor in [*model.parameters(), *model.buffers()]})


def tuned_judge(judge, name: str):
    """`judge` answering with the adapter `name`: a judge of the same class, kept once per process for each
    (judge, adapter) pair, whose fingerprint holds the adapter's, so its verdicts never share the result cache
    with another adapter's or with the judge's own. In this process the adapter's layers run unmerged, in the judge's
    dtype (`AnsweringLoraLinear`), in a copy of the judge's modules that shares its weights; a served judge asks
    for it where its server applies it (`served_lora`)."""
    adapter = shipped_adapter(name)
    key = (judge.fingerprint, adapter.fingerprint)
    if key in _TUNED:
        return _TUNED[key]
    fingerprint = f"{judge.fingerprint}+adapter:{adapter.fingerprint}"
    if runs_in_process(judge):
        if adapter.config["judge"] != judge.settings_key:  # its LoRA weights are shaped for that judge's layers alone
            raise ValueError(
                f"Judge adapter {adapter.path} was trained for judge {adapter.config['judge']!r}, not {judge.settings_key!r}: "
                f"load that judge, or use Verdict('tuned', adapter={judge.settings_key!r}) where that judge ships one "
                "(localjudge.prompts.TUNED_ALIGNMENTS)."
            )
        tuned_model = answering_layers(adapter.load_into(sharing_weights(judge.model), trainable=False)).eval()
        _TUNED[key] = type(judge)(
            tuned_model, judge.tokenizer, name=f"{judge.name}+adapter", fingerprint=fingerprint, cache_dir=judge.cache.path.parent,
            batch_size=judge.batch_size, max_batch_tokens=judge.max_batch_tokens, settings_key=judge.settings_key,
        )
        return _TUNED[key]
    lora = served_lora(judge, name)
    if lora is None:
        raise ValueError(
            f"The server of judge {judge.name!r} does not apply the adapter {adapter.fingerprint} to it: export the "
            "adapter with `localjudge export-adapter` and restart the server with the options that prints."
        )
    _TUNED[key] = judge.with_lora(lora, fingerprint)
    return _TUNED[key]


# ------------------------------------------------------------------ served adapters (vLLM --enable-lora)
def export_adapter(name: str, directory=None) -> Path:
    """Write the adapter `name` as a peft adapter directory, which vLLM's `--lora-modules NAME=DIRECTORY` loads:
    adapter_config.json, and adapter_model.safetensors (the adapter file itself: peft's tensor names, its card
    and fingerprint in the metadata). By default `<cache>/adapters/<judge>-adapter-<fingerprint>`: a server
    shows the directory as the LoRA's `root`, and a served judge knows the adapter by it (`served_fingerprint`)."""
    adapter = shipped_adapter(name)
    directory = Path(directory or default_cache_dir() / "adapters" / f"{adapter.config['judge']}-adapter-{adapter.fingerprint}")
    layers = sorted({int(number) for tensor in adapter.tensors for number in re.findall(r"\.layers\.(\d+)\.", tensor)})
    lora_config(layers, adapter.config["lora"]).save_pretrained(str(directory))
    shutil.copyfile(adapter.path, directory / "adapter_model.safetensors")
    return directory


@functools.lru_cache(maxsize=None)
def served_fingerprint(root: str):
    """The fingerprint of the adapter a server applies from the directory `root`, or None: the weights decide
    when the directory is on this machine, its name (`export_adapter`'s) when the server runs elsewhere."""
    weights = Path(root) / "adapter_model.safetensors"
    if weights.is_file():
        try:
            return Adapter(weights).fingerprint
        except ValueError:  # a LoRA directory that no localjudge adapter was exported to
            return None
    named = re.fullmatch(r".+-adapter-([0-9a-f]{16})", Path(root).name)
    return named.group(1) if named else None


def served_lora(judge, name: str):
    """The name under which the judge's server applies the adapter `name` to the judge's model (vLLM lists such a
    LoRA module with the judge's model as its parent), or None (an in-process judge, or a server without it)."""
    fingerprint = shipped_adapter(name).fingerprint
    return next(
        (model["id"] for model in getattr(judge, "lora_models", ()) if served_fingerprint(model.get("root") or "") == fingerprint),
        None,
    )
