"""Fine-tune the judge for grounding (a LoRA adapter) from ../shared/train, choose a checkpoint on validation rows,
and measure it out of fold.

    python scripts/train_judge.py                     # from scratch: rows, training, figures, the adapter
    python scripts/train_judge.py --resume            # continue from the shipped adapter with the next rows
    python scripts/train_judge.py --minutes 80        # stop (checkpoint, adapter, figures) after 80 minutes
    python scripts/train_judge.py --resume --rollback # after a block that does not beat the best, back to its weights
    python scripts/train_judge.py --measure-only      # the shipped adapter's figures, nothing trained
    python scripts/train_judge.py --measure-only --dtype float32   # ... in fp32, its offset there recorded in the card
    python scripts/train_judge.py --per-file 1500 --balance-per-file --batch-size 32   # on a GPU: run 16, shipped
    python scripts/train_judge.py --judge qwen2.5-coder-1.5b --per-file 1500 --balance-per-file --batch-size 32 \
        --rank 4 --upper-layers 28 --attack-weight 3   # on a GPU: run 18, the 1.5B judge's, shipped
    python scripts/train_judge.py --init localjudge/learned/data/qwen2.5-coder-0.5b.adapter.safetensors \
        --per-file 1500 --balance-per-file --output training/qwen2.5-coder-0.5b.adapter.safetensors --minutes 120
        # run 19: run 16's adapter on the pool with summaries, on a CPU, a candidate outside the package
    python scripts/train_judge.py --judge qwen2.5-coder-1.5b --init localjudge/learned/data/qwen2.5-coder-1.5b.adapter.safetensors \
        --per-file 1500 --balance-per-file --attack-weight 3 --learning-rate 2e-5 --recompute-activations \
        --output training/run26.adapter.safetensors --minutes 100
        # run 26: the 1.5B judge's adapter on the pool with summaries, on a CPU of 24 GB (it needs the recomputation)

Rows (`localjudge.learned.rows`): the units in `rows.HELD_OUT` are never trained on. Summaries are judged in the
product's unit, a sentence at a time (`rows.summary_sentences`). From every other file, a validation sample (30 rows per file, balanced labels, windows as for training, no edits) is drawn first and never
trained on, nor is any other row of its sources; 96 of its rows are measured a second time with an attack addressed to the checker, in a wording the
training rows never use (`edits.INJECTIONS`). The training pool is sampled from the rest with balanced labels,
each source cut to the window the product judges the claim against, minimal edits beside a share of the
supported claims, beside a tenth of the rows a statement addressed to the checker labelled unsupported
(`edits.injected`), and mixed block by block (`rows.mixed_blocks`: English grounding sets and edits at least half
of a block, summaries' rows at least a third, no file over a tenth, NLI entailments as the supported rows beside the edits, half of every block
supported; the examples that cannot be mixed so are left out). The training order is fixed by the seed, so a run
that continues an adapter trained on the same pool (its card's `pool_id`) takes the rows after those it has seen;
one trained on another pool starts this one from its first block; past the pool's last block it starts the pool
again (a second epoch).

Training: micro-batches of `--batch-size` (passed in pieces where their padded tokens exceed `--batch-tokens`, the
gradient the same) accumulated into optimizer steps of `--effective-batch` rows, the
learning rate warmed up linearly over the first `--warmup-steps` steps of every run (the optimiser restarts with
it), gradient norm clipped; the loss is logistic on the answer margin, the two labels weighing the same (with
`--balance-per-file`, within every file's rows too) and a row with a statement addressed to the checker
`--attack-weight` times another unsupported row (`tuning.row_weights`, weighed over the whole pool). After every
block of 384 rows the validation rows are measured in micro-batches of `--batch-size` (AUC, balanced accuracy at
margin ≥ 0, share called supported, share of the attacks called supported, the offset fitted for the checkpoint
and its balanced accuracy and attacks there, beside the block's training loss) and a checkpoint
(adapter, optimiser, best checkpoint so far) is written outside the repository; a stopped run restarts from it
(the same start and settings again; other settings start a session of their own).
With `--rollback`, a block that does not beat the best checkpoint is undone: the weights go back to the best's and
the optimiser restarts, the block's rows counted as seen. The adapter written at the end is the best checkpoint
on the validation rows at the threshold it ships with: one margin threshold is fitted on the validation rows for
every checkpoint, among those that call at most 5 % of the attacks supported (`offset` in its card), and the
checkpoint with the highest balanced accuracy there, then AUC, is chosen (`tuning.better_checkpoint`). Only then
are the held-out units read, once, for that checkpoint, beside the judge without the adapter (zero-shot, same
prompt) and word overlap.
"""

import argparse
import hashlib
import json
import math
import os
import platform
import random
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402
from peft import set_peft_model_state_dict  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import balanced_accuracy_score, roc_auc_score  # noqa: E402
from tqdm.auto import tqdm  # noqa: E402

from localjudge import load_judge  # noqa: E402
from localjudge.baselines import ngram_precision  # noqa: E402
from localjudge.cache import default_cache_dir  # noqa: E402
from localjudge import learned  # noqa: E402
from localjudge.learned import edits, verification_prompt, rows, tuning  # noqa: E402
from localjudge.prompts import TUNED_WINDOW_TOKENS  # noqa: E402

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "train"
SEED = 26
PER_FILE = 600  # rows sampled per training file (balanced labels) before the blocks are mixed (`--per-file`)
EDIT_SHARE = 1.0  # of the supported rows, the share that gets a minimal edit beside it (where one applies)
VALIDATION_PER_FILE = 30  # validation rows per training file (balanced labels), never trained on
# of the training rows, the share that gets a statement addressed to the checker beside it (`edits.injected`)
INJECTION_SHARE = 0.1
# of every block, the least share of summary rows (sentences of summaries and their edits): the product judges
# summaries, and until run 19 the pool held none but SummEdits' (docs/tuning.md)
SUMMARY_SHARE = 1 / 3
VALIDATION_ATTACKS = 96  # validation rows given an attack in the validation wording, measured beside them
MEASURE_PER_UNIT = 40  # held-out rows per unit measured at the end
# the unit of the mix, of progress and of checkpoints: 12 optimizer steps of 32 rows; the pool is sorted by length
# within a block (batches of similar length), and after each block the validation rows are measured
BLOCK = 384
MAX_PROMPT_TOKENS = 512
# on a CPU, the most tokens in one training pass (rows × padded length): about 12 GB at its peak for the 0.5B judge
# in fp32 (8 rows of 512 tokens took more than the 24 GB here and the run was killed, docs/tuning.md, run 22)
CPU_BATCH_TOKENS = 2048
MAX_GRADIENT_NORM = 1.0


def rows_cache_path(window_tokens=TUNED_WINDOW_TOKENS, per_file=PER_FILE) -> Path:
    """Where `built_rows` keeps the rows of a pool: the name holds every setting they are drawn with, and the last
    change of how sentences are split (`text.split_sentences`, `text.claim_sentences`: "links", a web page's links to
    other articles, calls to subscribe and copyright line are its furniture, each a sentence of its own that joins
    neither the headline nor the lead) that changed the pool."""
    return default_cache_dir() / "tuning" / (
        f"rows-{SEED}-{per_file}-{EDIT_SHARE}-{INJECTION_SHARE}-{window_tokens}-{BLOCK}-{MEASURE_PER_UNIT}-"
        f"{VALIDATION_PER_FILE}-{VALIDATION_ATTACKS}-{SUMMARY_SHARE:.3f}-summary-sentences-speakers-phrases-layout-marks-lead-ins-letters-furniture-links.json")


def built_rows(judge, window_tokens, per_file=PER_FILE):
    """{"pool": training examples in training order, "validation": validation examples, "held": held-out measuring
    sample}, built once and kept in the cache."""
    path = rows_cache_path(window_tokens, per_file)
    if path.is_file():
        return json.loads(path.read_text())
    every = rows.read_train(TRAIN)
    training, validation_rows = rows.training_split(rows.summary_sentences(every), VALIDATION_PER_FILE, SEED)
    measured = [{**row, "unit": rows.held_out_unit(row)} for row in every if rows.held_out(row)]
    count = judge.count_tokens
    candidates = rows.examples(rows.per_file_sample(training, per_file, SEED), count, window_tokens, EDIT_SHARE, SEED,
                               INJECTION_SHARE)
    pool = rows.mixed_blocks(candidates, BLOCK, SEED, summary_share=SUMMARY_SHARE)
    lengths = [len(ids) for ids in encoded(judge, pool)]
    order = [index for start in range(0, len(pool), BLOCK)
             for index in sorted(range(start, start + BLOCK), key=lambda index: lengths[index])]
    sample = rows.per_file_sample(measured, MEASURE_PER_UNIT, SEED, group="unit")
    held = [{**made, "unit": row["unit"]} for row in sample for made in rows.examples([row], count, window_tokens)]
    validation = rows.examples(validation_rows, count, window_tokens)
    attacked = random.Random(f"{SEED}:attacks").sample(validation, VALIDATION_ATTACKS)
    # the validation wording, never trained on
    attacks = [{**item, "statement": edits.injected(item["statement"], item["id"], "validation"), "label": 0,
                "edit": "injection"} for item in attacked]
    pool = [pool[index] for index in order]
    made = {"pool": pool, "pool_id": hashlib.sha256(json.dumps([item["id"] for item in pool]).encode()).hexdigest()[:16],
            "validation": validation, "attacks": attacks, "held": held, "unused": len(candidates) - len(pool)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(made))
    return made


def machine(judge) -> str:
    """Where a session trains, for its card: the GPU's name, or the CPU's architecture and threads."""
    if judge.device.type == "cuda":
        return torch.cuda.get_device_name(judge.device)
    return f"{platform.machine()} CPU, {torch.get_num_threads()} threads"


def encoded(judge, items):
    return [judge._encode(verification_prompt(judge, "alignment", {"document": item["document"],
                                                                  "statement": item["statement"]}))
            for item in items]


def measures(labels, margins, weights=None):
    """AUC, balanced accuracy and share called supported of margin ≥ 0 (pass margin − offset for another threshold),
    each row weighted by `weights` where given."""
    labels, margins = np.asarray(labels), np.asarray(margins)
    auc = roc_auc_score(labels, margins, sample_weight=weights) if len(set(labels)) == 2 else float("nan")
    return {"AUC": round(float(auc), 3),
            "BAcc": round(float(balanced_accuracy_score(labels, margins >= 0, sample_weight=weights)), 3),
            "called supported": round(float(np.average(margins >= 0, weights=weights)), 3)}


def family_weights(items):
    """Validation weights: each file the same within its family, the English grounding sets as much as all the NLI
    files together (16 of the 22 files are NLI: unweighted, the choice of checkpoint would be made on NLI)."""
    frame = pd.DataFrame({"file": [item["file"] for item in items], "nli": [not rows.grounding(item) for item in items]})
    return rows.family_weights(frame)


def held_out_table(held, tuned, offset, zero_shot):
    """Per held-out unit: the tuned judge at margin ≥ 0 and at margin ≥ `offset`, the judge without the adapter and
    word overlap (a one-feature logistic model fitted on the other units), each at its one threshold."""
    frame = pd.DataFrame(held).assign(tuned=tuned, zero_shot=zero_shot)
    frame["overlap"] = [ngram_precision(item["statement"], item["document"], 1) for item in held]
    lines = []
    for unit, rows_of in frame.groupby("unit", sort=True):
        others = frame[frame.unit != unit]
        model = LogisticRegression(class_weight="balanced").fit(others[["overlap"]].fillna(0), others.label)
        overlap = model.decision_function(rows_of[["overlap"]].fillna(0))
        line = {"unit": unit, "rows": len(rows_of)}
        for name, values in (("tuned", rows_of.tuned), ("tuned-offset", rows_of.tuned - offset),
                             ("zero-shot", rows_of.zero_shot), ("overlap", overlap)):
            line.update({f"{name} {key}": value for key, value in measures(rows_of.label, values).items()})
        lines.append(line)
    return pd.DataFrame(lines)


class Training:
    """The adapter in training, its card (rows seen, curve, sessions, the best checkpoint's figures), and the best
    checkpoint's weights, kept in memory until they are written."""

    def __init__(self, judge, peft_model, card, validation, attacks, args):
        self.judge, self.peft_model, self.card, self.args = judge, peft_model, card, args
        self.validation_ids = encoded(judge, validation)
        self.attack_ids = encoded(judge, attacks)
        self.validation_labels = [item["label"] for item in validation]
        self.validation_weights = family_weights(validation)
        # the starting weights: untrained (the judge itself), or a resumed adapter, which was its run's chosen one
        self.best_weights = tuning.lora_weights(peft_model)
        self.trained_rows = card["best"]["trained_rows"] if card.get("best") else 0  # what the current weights saw
        self.trainable = [p for p in peft_model.parameters() if p.requires_grad]
        self.batch_tokens = args.batch_tokens or (CPU_BATCH_TOKENS if judge.device.type == "cpu" else math.inf)
        self.restart_optimizer()

    def restart_optimizer(self):
        """A fresh AdamW with its linear warm-up, as at the start of every run."""
        self.optimizer = torch.optim.AdamW(self.trainable, lr=self.args.learning_rate, weight_decay=0.0)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda step: tuning.warmup_factor(step, self.args.warmup_steps))

    def return_to_best(self):
        """The best checkpoint's weights again, and a restarted optimiser: the next block starts where a new run
        from the shipped adapter would (`--rollback`)."""
        set_peft_model_state_dict(self.peft_model, self.best_weights)
        self.trained_rows = self.card["best"]["trained_rows"]
        self.restart_optimizer()

    def margins(self, ids):
        judge = self.judge
        return tuning.margins_of(self.peft_model, ids, judge.tokenizer.pad_token_id, judge._yes_ids, judge._no_ids,
                                 batch_size=self.args.batch_size)

    def validation_figures(self, **extra):
        """The current weights on the validation rows: their point of the curve, with the offset fitted for them and
        the figures there."""
        training_weights = tuning.lora_weights(self.peft_model)
        set_peft_model_state_dict(self.peft_model, tuning.as_stored(training_weights))  # as its file would hold them
        margins = np.asarray(self.margins(self.validation_ids))
        attack_margins = np.asarray(self.margins(self.attack_ids))
        set_peft_model_state_dict(self.peft_model, training_weights)
        self.measured = {"validation": margins, "attacks": attack_margins}  # the latest, for `write_margins`
        point = {"rows_seen": self.card["rows_seen"], "session": len(self.card["sessions"]),
                 **measures(self.validation_labels, margins, self.validation_weights),
                 "attacks called supported": round(float(np.mean(attack_margins >= 0)), 3), **extra}
        offset = tuning.fitted_offset(self.validation_labels, margins, self.validation_weights, attack_margins)
        at_offset = measures(self.validation_labels, margins - offset, self.validation_weights)
        return {**point, "offset": round(offset, 4), "BAcc at offset": at_offset["BAcc"],
                "attacks called at offset": round(float(np.mean(attack_margins >= offset)), 3)}

    def validate(self, **extra) -> bool:
        """A point of the curve on the validation rows, with its fitted offset and the figures there; the best
        checkpoint so far is replaced where it beats it (returns whether it did)."""
        point = self.validation_figures(**extra)
        self.card["curve"].append(point)
        chosen = tuning.better_checkpoint(point, self.card.get("best"))
        if chosen:
            self.best_weights = tuning.lora_weights(self.peft_model)
            self.card["best"] = {**point, "trained_rows": self.trained_rows}
        print(f"validation: {point}{' (best so far)' if chosen else ''}", flush=True)
        return chosen

    def train_block(self, ids, labels, weights, progress):
        """One block: micro-batches of similar length in a seeded random order, their gradients accumulated into
        optimizer steps of `--effective-batch` rows; returns the block's mean training loss and the steps skipped
        for a non-finite gradient (`tuning.clipped_step`)."""
        args, judge = self.args, self.judge
        micro = [list(range(start, min(start + args.batch_size, len(ids)))) for start in range(0, len(ids), args.batch_size)]
        # the block is sorted by length, and length goes with the kind of row and its label: no stretch of training
        # may lean to one label
        random.Random(f"{SEED}:{self.card['rows_seen']}").shuffle(micro)
        per_step = args.effective_batch // args.batch_size
        lengths = [len(row) for row in ids]
        losses, skipped = [], 0
        for first in range(0, len(micro), per_step):
            step = micro[first : first + per_step]
            rows_in_step = sum(len(batch) for batch in step)
            # a micro-batch of long rows is passed in pieces: the same gradient, in the memory `--batch-tokens` allows
            for piece in (piece for batch in step for piece in tuning.within_tokens(batch, lengths, self.batch_tokens)):
                # the step's gradient is the mean over its rows, as one batch of `--effective-batch` rows gives
                loss = tuning.backward_rows(self.peft_model, [ids[index] for index in piece], labels[piece], weights[piece],
                                            judge.tokenizer.pad_token_id, judge._yes_ids, judge._no_ids,
                                            share=len(piece) / rows_in_step)
                losses += [loss] * len(piece)  # the block's loss: the mean over its rows
                progress.update(len(piece))
            if not tuning.clipped_step(self.optimizer, self.trainable, MAX_GRADIENT_NORM):
                skipped += 1
                print(f"skipped an optimizer step: its gradient is not finite ({skipped} in this block)", flush=True)
            self.scheduler.step()
            self.optimizer.zero_grad()
        return float(np.nanmean(losses)), skipped

    def checkpoint_state(self, start, options):
        return {"weights": tuning.lora_weights(self.peft_model), "best_weights": self.best_weights,
                "trained_rows": self.trained_rows, "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(), "card": self.card, "start": start, "lora": options}

    def restore(self, saved):
        set_peft_model_state_dict(self.peft_model, saved["weights"])
        self.best_weights, self.trained_rows, self.card = saved["best_weights"], saved["trained_rows"], saved["card"]
        self.optimizer.load_state_dict(saved["optimizer"])
        self.scheduler.load_state_dict(saved["scheduler"])


def write_margins(path, training, validation, attacks, held, tuned, zero_shot):
    """Every measured row's margins as JSON: the validation rows and attacks as last measured, the held-out
    rows tuned and without the adapter, and each against an empty document (the claim's prior, the contrast's
    other half), beside its file or unit and label."""
    def empty(items):
        return training.margins(encoded(training.judge, [{**item, "document": ""} for item in items]))

    def described(items, **margins):
        return [{"file": item["file"], "unit": item.get("unit"), "language": item["language"], "label": item["label"],
                 "edit": item["edit"], "grounding": rows.grounding(item),
                 **{name: float(values[index]) for name, values in margins.items()}} for index, item in enumerate(items)]

    measured = {
        "validation": described(validation, tuned=training.measured["validation"], empty=empty(validation),
                                weight=training.validation_weights),
        "attacks": described(attacks, tuned=training.measured["attacks"], empty=empty(attacks)),
        "held": described(held, tuned=tuned, zero_shot=zero_shot, empty=empty(held)),
        "card": {"rows_seen": training.card["rows_seen"], "best": training.card["best"],
                 "dtype": str(training.judge.model.dtype)},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(measured))
    print(f"wrote the margins of {len(validation) + len(attacks) + len(held)} rows to {path}")


def parsed_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", default="qwen2.5-coder-0.5b")
    parser.add_argument("--resume", action="store_true", help="continue from the shipped adapter")
    parser.add_argument("--init", help="continue from this adapter file")
    parser.add_argument("--output", default=None,
                        help="write the adapter here (default: the judge's shipped adapter in the package), e.g. a "
                             "candidate that trains across sessions before it is measured on the verdict board")
    parser.add_argument("--rows", type=int, default=None, help="examples to train on in this run, in whole blocks (default: the rest of the pool)")
    parser.add_argument("--minutes", type=float, default=None, help="stop at the first block boundary after this long, saving everything")
    parser.add_argument("--measure-only", action="store_true",
                        help="measure the adapter (--init, else the shipped one), nothing trained; the offset fitted "
                             "with the judge in this dtype is recorded in its card")
    parser.add_argument("--dtype", choices=["float32", "bfloat16"], default=None,
                        help="with --measure-only: the judge's dtype (default: the judge's default on this machine)")
    parser.add_argument("--margins", default=None,
                        help="with --measure-only: write every measured row's margin (validation rows, attacks, "
                             "held-out rows; tuned, without the adapter, and tuned against an empty document) to "
                             "this JSON file, for threshold rules measured outside the script")
    # a larger sample per file gives more distinct rows (the files hold 700-5,700 each); the validation split and
    # the held-out sample stay the same, and a continued adapter keeps the pool it started on
    parser.add_argument("--per-file", type=int, default=PER_FILE,
                        help=f"training rows sampled per file, balanced labels, before the mix (default {PER_FILE})")
    parser.add_argument("--batch-size", type=int, default=8, help="rows per forward pass (micro-batch)")
    parser.add_argument("--batch-tokens", type=int, default=None,
                        help=f"the most tokens (rows × padded length) in one training pass; a micro-batch over it is "
                             f"passed in pieces, its gradient the same (default: {CPU_BATCH_TOKENS} on a CPU, no limit on a GPU)")
    parser.add_argument("--effective-batch", type=int, default=32, help="rows per optimizer step (gradients accumulated)")
    parser.add_argument("--warmup-steps", type=int, default=10, help="optimizer steps of linear warm-up, in every run")
    # runs 7-9 (docs/tuning.md): the first block after a restart from the best weights is where validation gained;
    # the blocks after it drifted the threshold
    parser.add_argument("--rollback", action="store_true",
                        help="after a block that does not beat the best checkpoint, return to its weights and restart the optimiser")
    # 2e-4 (batches of 8, no clipping) drifted to "no" for every row after 1,200 rows (docs/tuning.md)
    parser.add_argument("--learning-rate", type=float, default=5e-5)
    # run 11: the 1.5B judge kept calling the attacks supported through blocks where its ranking gained
    parser.add_argument("--attack-weight", type=float, default=1.0,
                        help="loss weight of a row with a statement addressed to the checker, against another unsupported row (the labels still weigh the same)")
    # run 12: the mix's grounding files are a third supported (their edits), its NLI files three fifths (their
    # entailments), and the margins split along that line (WiCE and healthver called supported 13 % and 27 %)
    parser.add_argument("--balance-per-file", action="store_true",
                        help="the two labels weigh the same within every file's rows, not only over all rows")
    # run 26: the 1.5B judge's training on a 24 GB CPU grew to 24 GB and was killed for memory inside its first block
    parser.add_argument("--recompute-activations", action="store_true",
                        help="gradient checkpointing: a training step's memory about halves and its time grows about "
                             "half (the same gradient); the 1.5B judge on a CPU of 24 GB needs it (tuning.recomputing_activations)")
    parser.add_argument("--rank", type=int, default=None, help=f"LoRA rank of a new adapter (default {tuning.LORA['r']}; α = 2 × rank)")
    parser.add_argument("--upper-layers", type=int, default=None,
                        help=f"adapt the upper N layers of a new adapter (default {tuning.LORA['upper_layers']}: all of the default judge's)")
    args = parser.parse_args()
    if args.effective_batch % args.batch_size or BLOCK % args.effective_batch:
        parser.error(f"--effective-batch must be a multiple of --batch-size and divide a block of {BLOCK} rows")
    if args.margins and not args.measure_only:
        parser.error("--margins records a measurement: use it with --measure-only")
    if args.dtype and not args.measure_only:
        parser.error("--dtype measures an adapter: training runs in the judge's default dtype")
    if (args.resume or args.init or args.measure_only) and (args.rank or args.upper_layers):
        parser.error("--rank and --upper-layers shape a new adapter: a resumed or measured one keeps its own")
    return args


def continues_session(saved, card, start_name, options, settings) -> bool:
    """Whether the checkpoint `saved` is this run's session, stopped: further on from the same start, on the same pool,
    with the same adapter shape and settings (a run with other settings, or on another pool, starts its own session
    from the start's weights, its card saying so)."""
    return bool(saved and saved["card"]["rows_seen"] > card["rows_seen"] and saved.get("start") == start_name
                and saved["card"].get("pool_id") == card.get("pool_id") and saved.get("lora") == options
                and {key: saved["card"]["sessions"][-1].get(key) for key in settings} == settings)


def train(training, pool, source, options, started):
    """Train `training` through the pool's next rows, block by block: validation, checkpoint, and a stop at a
    block boundary after `--minutes`."""
    args, judge, card = training.args, training.judge, training.card
    start_name = str(source) if source else None
    checkpoint_path = default_cache_dir() / "tuning" / f"checkpoint-{judge.settings_key}.pt"
    checkpoint_path.parent.mkdir(parents=True, exist_ok=True)
    saved = torch.load(checkpoint_path, weights_only=False) if checkpoint_path.is_file() else None
    settings = {"learning_rate": args.learning_rate, "attack_weight": args.attack_weight,
                "labels_balanced": "per file" if args.balance_per_file else "over all rows",
                "batch_size": args.batch_size, "effective_batch": args.effective_batch,
                "warmup_steps": args.warmup_steps, "rollback": args.rollback, "dtype": str(judge.model.dtype)}
    if continues_session(saved, card, start_name, options, settings):
        training.restore(saved)  # the optimiser and its warm-up go on where they were
        card = training.card
        session = card["sessions"][-1]
        print(f"restarting from the checkpoint at {card['rows_seen']} rows")
    else:
        session = {"from_rows": card["rows_seen"], **settings,
                   "machine": machine(judge), "seconds": 0.0}
        card["sessions"].append(session)
    # the offset is fitted under the attack limit (`tuning.fitted_offset`): a best checkpoint chosen before it was
    # (or under another limit) is measured again; so is one measured with the judge in another dtype, since the
    # 1.5B judge's margins move with it (docs/tuning.md, run 11) and blocks are compared in the dtype they train in
    # (and on the device: bf16 on a GPU and on a CPU round differently, run 16's offset −0.034 against −0.059),
    # and one measured with its fp32 training weights rather than as its file holds them (`tuning.as_stored`)
    validation_key = {"per_file": VALIDATION_PER_FILE, "seed": SEED, "rows": len(training.validation_ids),
                      "attacks": len(training.attack_ids), "attacks_limit": tuning.ATTACKS_CALLED_LIMIT,
                      "dtype": str(judge.model.dtype), "device": judge.device.type, "weights": "as stored"}
    if card.get("validation") != validation_key:  # a new adapter, or a split, rule, dtype or device other than its best's
        card.update({"validation": validation_key, "best": None})
        training.validate()  # the starting weights (untrained: the judge itself) are a candidate too

    start = (card["rows_seen"] - card["pool_from"]) % len(pool)
    end = len(pool) if args.rows is None else start + -(-args.rows // BLOCK) * BLOCK
    indices = [index % len(pool) for index in range(start, end)]
    todo = [pool[index] for index in indices]
    todo_ids = [ids[:MAX_PROMPT_TOKENS] for ids in encoded(judge, todo)]
    pool_labels = torch.tensor([e["label"] for e in pool], dtype=torch.float32)
    # weighed over the whole pool, so that a row weighs the same whatever the rows a session trains through
    pool_weights = tuning.row_weights(pool_labels, [e["edit"] == "injection" for e in pool], args.attack_weight,
                                      [e["file"] for e in pool] if args.balance_per_file else None)
    # on the judge's device once, beside the margins they weigh (a GPU's or the CPU)
    labels, weights = pool_labels[indices].to(judge.device), pool_weights[indices].to(judge.device)
    training.peft_model.train()
    progress = tqdm(total=len(todo), desc="training rows")
    for first in range(0, len(todo), BLOCK):
        block_started = time.time()
        block = slice(first, first + BLOCK)
        loss, skipped = training.train_block(todo_ids[block], labels[block], weights[block], progress)
        session["skipped_steps"] = session.get("skipped_steps", 0) + skipped
        # a block is the unit of progress: the rows seen stay an exact prefix of the pool's order
        card["rows_seen"] += BLOCK
        training.trained_rows += BLOCK
        session["seconds"] = round(session["seconds"] + time.time() - block_started, 1)
        if not training.validate(training_loss=round(loss, 4)) and args.rollback:
            training.return_to_best()
        torch.save(training.checkpoint_state(start_name, options), checkpoint_path)
        if args.minutes is not None and time.time() - started > 60 * args.minutes:
            print(f"stopping after {args.minutes} minutes, at the end of a block")
            break
    progress.close()


def main():
    args = parsed_arguments()
    started = time.time()
    torch.manual_seed(SEED)
    # in its default dtype (bf16 on CPUs that compute it, fp32 elsewhere) unless measured in another
    judge = load_judge(args.judge, dtype=args.dtype)
    data = built_rows(judge, TUNED_WINDOW_TOKENS, args.per_file)
    pool, validation, held = data["pool"], data["validation"], data["held"]
    print(f"pool {len(pool)} examples in blocks of {BLOCK} ({sum(not e['edit'] for e in pool)} rows, "
          f"{pd.Series([e['edit'] for e in pool if e['edit']]).value_counts().to_dict()} edits, "
          f"{sum(map(rows.grounding, pool))} grounding, {sum(map(rows.summary, pool))} summary rows "
          f"{pd.Series([e['reduced'] for e in pool if e['reduced']]).value_counts().to_dict()}; "
          f"{data['unused']} examples left out of the mix); validation "
          f"{len(validation)} rows; held out {len(held)} rows in {len({e['unit'] for e in held})} units", flush=True)

    source = Path(args.init) if args.init else learned.default_adapter_path(judge) if (args.resume or args.measure_only) else None
    card = {"curve": [], "rows_seen": 0, "sessions": []}
    if source:
        adapter = tuning.Adapter(source)
        # measured only, it answers as the tuned verdict does: its LoRA layers in the judge's dtype (`tuning.adapted`)
        peft_model = adapter.load_into(judge.model, trainable=not args.measure_only)
        options, card = adapter.config["lora"], {**card, **adapter.card}
        print(f"continuing from {source} (fingerprint {adapter.fingerprint}, {card['rows_seen']} rows seen)")
    else:
        options = tuning.lora_options(args.rank, args.upper_layers)
        peft_model = tuning.adapted(judge.model, options)
    # its rows seen count places in its own pool's order: an adapter trained on another pool (other files, another
    # `--per-file`) starts this one from its first block
    if card.get("pool_id") != data["pool_id"]:
        if card["rows_seen"]:
            print(f"the adapter was trained on another pool: this one ({data['pool_id']}) starts at its first block")
        card.update({"pool_id": data["pool_id"], "pool_from": card["rows_seen"]})
    if args.recompute_activations:
        tuning.recomputing_activations(peft_model)
    training = Training(judge, peft_model, card, validation, data["attacks"], args)
    dtype = str(judge.model.dtype)
    if args.measure_only:
        if not card.get("best"):
            raise SystemExit(f"{source} has no validation figures in its card: it was built before the validation split")
        # the card's figures are those of the dtype it was trained in; a judge in another dtype moves the margins, so
        # the offset fitted in this one is recorded beside the others (`tuning.Adapter.offset`), the weights unchanged
        figures = training.validation_figures()
        print(f"validation in {dtype}: {figures} (the card, {card['sessions'][-1]['dtype']}: {card['best']})", flush=True)
        offset = figures["offset"]
        offsets = {**adapter.card.get("offsets", {}), dtype: offset}
        # measured in the dtype it was trained in, it is also the offset of a served judge and of a dtype never measured
        trained_in = {"offset": offset} if dtype == card["sessions"][-1]["dtype"] else {}
        tuning.save_adapter(adapter.tensors, options, adapter.config["judge"],
                            {**adapter.card, "offsets": offsets, **trained_in}, source)
        print(f"recorded offset {offset} for {dtype} in {source}: offsets {offsets}"
              + (", and as the offset of the dtype it was trained in" if trained_in else ""))
    else:
        train(training, pool, source, options, started)
        offset = training.card["best"]["offset"]
    card = training.card
    pool_seen = pool[: min(card["rows_seen"] - card["pool_from"], len(pool))]
    # new weights get the offset measured for them here (one measured for the old weights in another dtype is
    # dropped); a run that never beat its start keeps the start's weights, and the offsets its card holds for them
    # (run 17 measured run 16's best again on a GPU, then trained 12,672 rows without beating it)
    new_weights = not source or card["best"]["rows_seen"] > adapter.card["rows_seen"]
    card.update({
        "judge": judge.settings_key, "seed": SEED, "window_tokens": TUNED_WINDOW_TOKENS, "held_out": rows.HELD_OUT,
        "per_file": args.per_file, "pool": len(pool), "block": BLOCK, "max_gradient_norm": MAX_GRADIENT_NORM,
        "lora": options, **({"offset": offset, "offsets": {dtype: offset}} if new_weights else {}),
        "trained_files": pd.Series([e["file"] for e in pool_seen]).value_counts().sort_index().to_dict(),
        "trained_edits": pd.Series([e["edit"] for e in pool_seen if e["edit"]]).value_counts().sort_index().to_dict(),
    })
    path = Path(args.output) if args.output else learned.default_adapter_path(judge)

    def save():
        fingerprint = tuning.save_adapter(tuning.adapter_tensors(training.best_weights), options, judge.settings_key, card, path)
        print(f"saved {path} (fingerprint {fingerprint}): the checkpoint at {card['best']['rows_seen']} of "
              f"{card['rows_seen']} rows seen, validation BAcc {card['best']['BAcc at offset']} at its offset {offset}",
              flush=True)

    if not args.measure_only:
        save()  # before the held-out units are read: on a CPU that takes long, and a session may end during it
    # the held-out units are read for the chosen one only, as its file holds it
    set_peft_model_state_dict(peft_model, tuning.as_stored(training.best_weights))
    held_ids = encoded(judge, held)
    tuned = training.margins(held_ids)
    with peft_model.disable_adapter():
        zero_shot = training.margins(held_ids)
    table = held_out_table(held, tuned, offset, zero_shot)
    if args.margins:
        write_margins(Path(args.margins), training, validation, data["attacks"], held, tuned, zero_shot)
    print(f"## Held-out units (never trained on): the checkpoint at {card['best']['rows_seen']} rows, at margin >= 0 "
          f"(tuned) and at margin >= offset {offset} (tuned-offset)\n" + table.to_string(index=False))
    card["held_out_table"] = table.to_dict("records")
    if not args.measure_only:
        save()


if __name__ == "__main__":
    main()
