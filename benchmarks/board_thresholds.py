"""A tuned adapter's threshold fitted on the dev set's units instead of its validation rows, read on the held-out units.

The tuned verdict ships the threshold fitted on its validation rows (`tuning.fitted_offset`), which come from the
files it trained on; the held-out units are kinds of text it never saw, and want a lower one (docs/tuning.md,
Threshold rules). The verdict board's dev-set units (the news sets and the plain pairs) are unseen by the adapter
and are not the held-out units: this script fits one threshold on them (`verdict_board.fit_offset`: the best mean row
BAcc over the units, every claim read as the metric reads it, its top windows best first) and reads the held-out
units at it, from the board's stored tuned passes alone (no judge runs; run the board's tuned pass first). It also
fits one on the board's training units (samples of the files the adapter trained on, read in the product's path,
where the card's validation rows are one window each): the one fit that leaves every unit it reads unseen. Its last
line reads every unit at the threshold that suits that unit best, chosen on the unit's own rows after the fact: an
upper bound for any threshold rule, which no rule fitted elsewhere reaches.

    python3 benchmarks/board_thresholds.py --judge qwen2.5-coder-1.5b --adapter qwen2.5-coder-1.5b --per-news 24
    python3 benchmarks/board_thresholds.py --judge qwen2.5-coder-1.5b --adapter qwen2.5-coder-1.5b --per-news 24 \
        --per-held-out 200 --shifts -1.0 -0.3   # also every unit at these thresholds (from the card's)
    python3 benchmarks/board_thresholds.py --per-held-out 200 --store training/board-bf16-fused   # the default, bf16
    python3 benchmarks/verdict_board.py --passes tuned@160 --groups training --pass-top-windows 2 --per-held-out 200 \
        --per-news 0 --store training/board-bf16-fused   # the training units' pass, which the fit on them reads
"""

import argparse

import numpy as np
import pandas as pd

import verdict_board as board
from localjudge import load_judge

FITTED_ON = {"the card's threshold": (), "the training units": ("training",), "news and plain": ("news", "plain"),
             "news": ("news",), "plain": ("plain",)}
# the shipped verdict's reading of a claim (`verdict_board.claim_features`)
MARGIN = f"tuned top{board.TUNED_TOP_WINDOWS} margin"
# the units never trained on that issue 58's rule reads: the probes and the training units are not among them
NEVER_TRAINED_ON = ("held-out", "news", "plain")
OWN_BEST = "each unit's own (after the fact)"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", default=board.DEFAULT_JUDGE)
    parser.add_argument("--adapter", default=board.DEFAULT_JUDGE, help="the adapter whose stored passes to read")
    parser.add_argument("--per-news", type=int, default=0, help="as the board's pass was run (0: all rows)")
    parser.add_argument("--per-held-out", type=int, default=60, help="as the board's pass was run")
    parser.add_argument("--per-training", type=int, default=40, help="as the board's pass was run")
    parser.add_argument("--store", default=str(board.STORE), help="where the board's passes are stored")
    parser.add_argument("--shifts", type=float, nargs="*", default=(),
                        help="also read every unit at these thresholds from the card's (e.g. threshold_rules.py's fits)")
    args = parser.parse_args()
    found = {**board.devset_unit_rows(args.per_news), **board.train_unit_rows(args.per_held_out, args.per_training)}
    units = {name: rows for name, rows in found.items() if rows[0]["group"] in (*NEVER_TRAINED_ON, "training")}
    judge = load_judge(args.judge)  # its tokenizer cuts the sources into the windows the passes judged

    def passes_of(unit_name):
        values, fingerprint = board.stored_pass(args.store, args.judge, "tuned@160", unit_name)
        return {"tuned@160": board.at_card_threshold(values, fingerprint, args.adapter)} if values else {}

    def documents_of(source):
        return board.window_documents(judge, source, board.PASSES["tuned@160"])

    claims = board.claim_table(units, passes_of, documents_of, (board.TUNED_TOP_WINDOWS,)).dropna(subset=[MARGIN])
    claims = claims.assign(p=claims[MARGIN].map(board.SIGMOID))
    # a fit whose units have no stored pass (the training units' is run apart: this docstring) is left out
    thresholds = {name: board.fit_offset(claims[claims.group.isin(groups)], MARGIN) if groups else 0.0
                  for name, groups in FITTED_ON.items() if not groups or claims.group.isin(groups).any()}
    # every line reads the units never trained on alone
    claims = claims[claims.group.isin(NEVER_TRAINED_ON)]
    # each row as the board reads it: its claims' lowest margin, their mean probability
    rows = claims.groupby(["group", "unit", "row"]).agg(low=(MARGIN, "min"), soft=("p", "mean"),
                                                        label=("label", "first")).reset_index()
    thresholds.update({f"given {shift:+.2f}": shift for shift in args.shifts})
    thresholds[OWN_BEST] = {unit: board.fit_offset(part, MARGIN) for unit, part in claims.groupby("unit")}
    lines = []
    for name, threshold in thresholds.items():
        per_unit = threshold if isinstance(threshold, dict) else dict.fromkeys(rows.unit.unique(), threshold)
        measures = {(group, unit): board.unit_measures(part.assign(low=part.low - per_unit[unit]))
                    for (group, unit), part in rows.groupby(["group", "unit"])}
        held = {unit: measure for (group, unit), measure in measures.items() if group == "held-out"}
        lines.append({"fitted on": name,
                      "threshold (from the card's)": "per unit" if isinstance(threshold, dict) else round(threshold, 2),
                      "held-out BAcc mean": np.mean([measure["BAcc"] for measure in held.values()]),
                      "lowest": min(measure["BAcc"] for measure in held.values()),
                      "soft AUC": np.mean([measure["AUC"] for measure in held.values()]),
                      **{unit.split("=")[1]: f"{measure['BAcc']:.3f} ({measure['called supported']:.0%})"
                         for unit, measure in held.items()},
                      "news mean": np.mean([measure["BAcc"] for (group, _), measure in measures.items() if group == "news"]),
                      "plain": measures[("plain", "plain")]["BAcc"],
                      "units never trained on, mean": np.mean([measure["BAcc"] for measure in measures.values()]),
                      "lowest of those": min(measure["BAcc"] for measure in measures.values())})
    print(pd.DataFrame(lines).round(3).to_markdown(index=False))
    print(f"\n{OWN_BEST}: " + ", ".join(f"{unit} {value:+.2f}" for unit, value in thresholds[OWN_BEST].items()))


if __name__ == "__main__":
    main()
