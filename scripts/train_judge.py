"""Fine-tune the judge for grounding (a LoRA adapter) from ../shared/train, and measure it out of fold.

    python scripts/train_judge.py                     # from scratch: rows, training, figures, the adapter
    python scripts/train_judge.py --resume            # continue from the shipped adapter with the next rows
    python scripts/train_judge.py --minutes 80        # stop (checkpoint, adapter, figures) after 80 minutes
    python scripts/train_judge.py --measure-only      # the shipped adapter's figures, nothing trained

Rows (`localjudge.heads.rows`): every training file of ../shared/train sampled with balanced labels, each source
cut to the window the product judges the claim against, and minimal edits of a share of the supported claims
beside their twins; the units in `rows.HELD_OUT` are never trained on. The training order is fixed by the seed,
so a run that continues from the shipped adapter takes the rows after those it has seen. After every block of
400 rows a checkpoint (adapter and optimiser) is written outside the repository, and a stopped run restarts
from it. A learning curve (rows seen → balanced accuracy of P(yes) ≥ 0.5 on a fixed held-out sample) is
printed and kept in the adapter's card; at the end the held-out sample is measured beside the judge without the
adapter (zero-shot, same prompt) and word overlap, and the adapter is written to localjudge/heads/data/.
"""

import argparse
import json
import os
import platform
import random
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import balanced_accuracy_score, roc_auc_score  # noqa: E402
from tqdm.auto import tqdm  # noqa: E402

from localjudge import load_judge  # noqa: E402
from localjudge.baselines import ngram_precision  # noqa: E402
from localjudge.cache import default_cache_dir  # noqa: E402
from localjudge import heads  # noqa: E402
from localjudge.heads import head_prompt, rows, tuning  # noqa: E402
from localjudge.prompts import TUNED_WINDOW_TOKENS  # noqa: E402

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "train"
SEED = 26
PER_FILE = 600  # rows sampled per training file (balanced labels); the pool is trained through in order
EDIT_SHARE = 1.0  # of the supported rows, the share that gets a minimal edit beside it (where one applies)
MEASURE_PER_UNIT = 40  # held-out rows per unit measured at the end
CURVE_PER_UNIT = 16  # held-out rows per unit of the learning curve's fixed sample
# the pool is sorted by length within blocks of this many rows (batches of similar length); after each block, a
# checkpoint and a point of the learning curve
BLOCK = 400
MAX_PROMPT_TOKENS = 512
MAX_GRADIENT_NORM = 1.0


def built_rows(judge, window_tokens):
    """(training pool in training order, held-out measuring sample), built once and kept in the cache."""
    path = default_cache_dir() / "tuning" / f"rows-{SEED}-{PER_FILE}-{EDIT_SHARE}-{window_tokens}-{BLOCK}-{MEASURE_PER_UNIT}.json"
    if path.is_file():
        return json.loads(path.read_text())
    every = rows.read_train(TRAIN)
    training = [row for row in every if not rows.held_out(row)]
    measured = [{**row, "unit": rows.held_out_unit(row)} for row in every if rows.held_out(row)]
    count = judge.count_tokens
    pool = rows.examples(rows.per_file_sample(training, PER_FILE, SEED), count, window_tokens, EDIT_SHARE, SEED)
    random.Random(SEED).shuffle(pool)
    lengths = [len(ids) for ids in encoded(judge, pool)]
    order = [index for start in range(0, len(pool), BLOCK)
             for index in sorted(range(start, min(start + BLOCK, len(pool))), key=lambda index: lengths[index])]
    pool = [pool[index] for index in order]
    sample = rows.per_file_sample(measured, MEASURE_PER_UNIT, SEED, group="unit")
    held = [{**made, "unit": row["unit"]} for row in sample for made in rows.examples([row], count, window_tokens)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pool": pool, "held": held}))
    return json.loads(path.read_text())


def encoded(judge, items):
    return [judge._encode(head_prompt(judge, "alignment", {"document": item["document"], "statement": item["statement"]}))
            for item in items]


def measures(labels, margins):
    labels, margins = np.asarray(labels), np.asarray(margins)
    auc = roc_auc_score(labels, margins) if len(set(labels)) == 2 else float("nan")
    return {"AUC": round(float(auc), 3), "BAcc": round(float(balanced_accuracy_score(labels, margins >= 0)), 3),
            "called supported": round(float((margins >= 0).mean()), 3)}


def held_out_table(held, tuned, zero_shot):
    """Per held-out unit: the tuned judge, the judge without the adapter and word overlap (a one-feature
    logistic model fitted on the other units), each at its one threshold."""
    frame = pd.DataFrame(held).assign(tuned=tuned, zero_shot=zero_shot)
    frame["overlap"] = [ngram_precision(item["statement"], item["document"], 1) for item in held]
    lines = []
    for unit, rows_of in frame.groupby("unit", sort=True):
        others = frame[frame.unit != unit]
        model = LogisticRegression(class_weight="balanced").fit(others[["overlap"]].fillna(0), others.label)
        overlap = model.decision_function(rows_of[["overlap"]].fillna(0))
        line = {"unit": unit, "rows": len(rows_of)}
        for name, values in (("tuned", rows_of.tuned), ("zero-shot", rows_of.zero_shot), ("overlap", overlap)):
            line.update({f"{name} {key}": value for key, value in measures(rows_of.label, values).items()})
        lines.append(line)
    return pd.DataFrame(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", default="qwen2.5-coder-0.5b")
    parser.add_argument("--resume", action="store_true", help="continue from the shipped adapter")
    parser.add_argument("--init", help="continue from this adapter file")
    parser.add_argument("--rows", type=int, default=None, help="examples to train on in this run, in whole blocks (default: the rest of the pool)")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long, saving everything")
    parser.add_argument("--measure-only", action="store_true")
    parser.add_argument("--batch-size", type=int, default=8)
    # 2e-4 (batches of 8, no clipping) drifted to "no" for every row after 1,200 rows (docs/tuning.md)
    parser.add_argument("--learning-rate", type=float, default=5e-5)
    args = parser.parse_args()
    started = time.time()
    torch.manual_seed(SEED)
    judge = load_judge(args.judge)
    data = built_rows(judge, TUNED_WINDOW_TOKENS)
    pool, held = data["pool"], data["held"]
    print(f"pool {len(pool)} examples ({sum(not e['edit'] for e in pool)} rows, "
          f"{pd.Series([e['edit'] for e in pool if e['edit']]).value_counts().to_dict()} edits); "
          f"held out {len(held)} rows in {len({e['unit'] for e in held})} units", flush=True)

    source = Path(args.init) if args.init else heads.default_adapter_path(judge) if (args.resume or args.measure_only) else None
    checkpoint_path = default_cache_dir() / "tuning" / f"checkpoint-{judge.settings_key}.pt"
    card = {"curve": [], "rows_seen": 0, "seconds": 0.0}
    model = judge.model.float()
    if source:
        adapter = tuning.Adapter(source)
        peft_model, card = adapter.load_into(model), {**card, **adapter.card}
        print(f"continuing from {source} (fingerprint {adapter.fingerprint}, {card['rows_seen']} rows seen)")
    else:
        peft_model = tuning.adapted(model)
    trainable = [p for p in peft_model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=args.learning_rate, weight_decay=0.0)
    if checkpoint_path.is_file() and not args.measure_only:
        saved = torch.load(checkpoint_path, weights_only=False)
        if saved["card"]["rows_seen"] > card["rows_seen"] and saved.get("start") == (str(source) if source else None):
            from peft import set_peft_model_state_dict

            set_peft_model_state_dict(peft_model, saved["tensors"])
            optimizer.load_state_dict(saved["optimizer"])
            card = saved["card"]
            print(f"restarting from the checkpoint at {card['rows_seen']} rows")
    yes, no, pad = judge._yes_ids, judge._no_ids, judge.tokenizer.pad_token_id
    curve_sample = rows.per_file_sample(held, CURVE_PER_UNIT, SEED, group="unit")
    curve_ids = encoded(judge, curve_sample)

    def curve_point(**extra):
        margins = tuning.margins_of(peft_model, curve_ids, pad, yes, no)
        point = {"rows_seen": card["rows_seen"], **measures([e["label"] for e in curve_sample], margins), **extra}
        card["curve"].append(point)
        print(f"curve: {point}", flush=True)

    if not args.measure_only:
        start = card["rows_seen"] % len(pool)
        end = len(pool) if args.rows is None else start + -(-args.rows // BLOCK) * BLOCK
        todo = [pool[index % len(pool)] for index in range(start, end)]
        todo_ids = [ids[:MAX_PROMPT_TOKENS] for ids in encoded(judge, todo)]
        labels = torch.tensor([e["label"] for e in todo], dtype=torch.float32)
        positive = float(labels.mean()) if len(labels) else 0.5
        # the classes weigh the same: a pool with edits holds more unsupported claims than supported ones
        class_weight = torch.tensor([0.5 / (1 - positive), 0.5 / positive])
        if not card["curve"]:
            curve_point()
        peft_model.train()
        progress = tqdm(total=len(todo), desc="training rows")
        for block in range(0, len(todo), BLOCK):
            block_started = time.time()
            batches = [list(range(i, min(i + args.batch_size, block + BLOCK, len(todo))))
                       for i in range(block, min(block + BLOCK, len(todo)), args.batch_size)]
            # the pool is sorted by length within a block, and length goes with the kind of row and its label: the
            # batches of a block run in a seeded random order, so no stretch of training leans to one label
            random.Random(f"{SEED}:{card['rows_seen']}").shuffle(batches)
            losses = []
            for batch in batches:
                ids, mask = tuning.padded([todo_ids[i] for i in batch], pad)
                margins = tuning.answer_margins(peft_model, ids, mask, yes, no)
                target = labels[batch]
                loss = torch.nn.functional.binary_cross_entropy_with_logits(margins.float(), target, weight=class_weight[target.long()])
                loss.backward()
                torch.nn.utils.clip_grad_norm_(trainable, MAX_GRADIENT_NORM)
                optimizer.step()
                optimizer.zero_grad()
                losses.append(loss.item())
                progress.update(len(batch))
            # a block is the unit of progress: the rows seen stay an exact prefix of the pool's order
            card["rows_seen"] += sum(len(batch) for batch in batches)
            card["seconds"] = round(card.get("seconds", 0.0) + time.time() - block_started, 1)
            curve_point(training_loss=round(float(np.mean(losses)), 4))
            torch.save({"tensors": tuning.adapter_tensors(peft_model), "optimizer": optimizer.state_dict(), "card": card,
                        "start": str(source) if source else None}, checkpoint_path)
            if args.minutes is not None and time.time() - started > 60 * args.minutes:
                print(f"stopping after {args.minutes} minutes, at the end of a block")
                break
        progress.close()

    held_ids = encoded(judge, held)
    tuned = tuning.margins_of(peft_model, held_ids, pad, yes, no)
    with peft_model.disable_adapter():
        zero_shot = tuning.margins_of(peft_model, held_ids, pad, yes, no)
    table = held_out_table(held, tuned, zero_shot)
    print("## Held-out units (never trained on), one threshold P(yes) >= 0.5\n" + table.to_string(index=False))
    trained_rows = pool[: min(card["rows_seen"], len(pool))]
    card.update({
        "judge": judge.settings_key, "seed": SEED, "window_tokens": TUNED_WINDOW_TOKENS, "held_out": rows.HELD_OUT,
        "pool": len(pool), "learning_rate": args.learning_rate, "batch_size": args.batch_size,
        "max_gradient_norm": MAX_GRADIENT_NORM,
        "machine": f"{platform.machine()} CPU, {torch.get_num_threads()} threads, {model.dtype}",
        "trained_files": pd.Series([e["file"] for e in trained_rows]).value_counts().sort_index().to_dict(),
        "trained_edits": pd.Series([e["edit"] for e in trained_rows if e["edit"]]).value_counts().sort_index().to_dict(),
        "held_out_table": table.to_dict("records"),
    })
    if not args.measure_only:
        path = heads.default_adapter_path(judge)
        fingerprint = tuning.save_adapter(tuning.adapter_tensors(peft_model), tuning.LORA, judge.settings_key, card, path)
        print(f"saved {path} (fingerprint {fingerprint}, {card['rows_seen']} rows seen, {card['seconds']:.0f} s of training)")


if __name__ == "__main__":
    main()
