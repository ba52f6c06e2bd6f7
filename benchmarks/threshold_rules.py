"""Threshold rules for a tuned judge, measured on its validation rows with each file left out in turn.

The tuned judge ships one margin threshold fitted on the validation rows (`tuning.fitted_offset`, under the limit on
attacks called supported). Whether another rule would transfer better to text never seen is measured here the way
the held-out units would see it: for each validation file, the threshold is fitted on the other files and read on
that one. Two scores: the tuned margin, and the contrast (the margin less the same statement's margin against an
empty document, issue 30 item 3); five fits, each among the thresholds that keep the attacks under their limit:
the shipped one (the best balanced accuracy, the English grounding files weighing as much as all the NLI files,
`rows.family_weights`), every file the same (which, the files' labels being balanced, maximises the mean of the
files' balanced accuracies), the English grounding files alone (whether the NLI files pull the threshold up), the
best lowest file (the highest balanced accuracy of the file read worst), and the most files called 30-70 %
supported (the issue's share target); the last two break ties by the files' mean. The
held-out units are printed only with `--held-out`, once the rule is chosen on validation.

The margins come from `scripts/train_judge.py --measure-only --margins FILE`:

    python3 benchmarks/threshold_rules.py /tmp/margins.json [--held-out]
"""

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from localjudge.learned import rows as train_rows, tuning

SCORES = ("tuned", "contrast")
FITS = ("families", "files", "grounding files", "lowest file", "files in 30-70 %")


def frames(path):
    """(validation rows, attacks, held-out rows), each with its contrast."""
    measured = json.loads(Path(path).read_text())
    return [pd.DataFrame(measured[part]).assign(contrast=lambda f: f["tuned"] - f["empty"])
            for part in ("validation", "attacks", "held")]


def family_weights(validation):
    """The shipped fit's weights (`rows.family_weights`): the English grounding files as much as the NLI ones."""
    return train_rows.family_weights(validation.assign(nli=~validation.grounding))


def fitted(validation, attacks, score, fit):
    if fit in ("families", "files"):
        weights = family_weights(validation) if fit == "families" else None
        return tuning.fitted_offset(validation.label, validation[score], weights, attacks[score])
    if fit == "grounding files":
        grounding = validation[validation.grounding]
        return tuning.fitted_offset(grounding.label, grounding[score], None, attacks[score])
    candidates = tuning.offset_candidates(validation[score], attacks[score])  # those `fitted_offset` considers
    files = [rows for _, rows in validation.groupby("file")]
    balanced = np.array([tuning.balanced_accuracies(rows.label, rows[score], candidates) for rows in files])
    called = np.array([(rows[score].to_numpy()[None, :] >= candidates[:, None]).mean(1) for rows in files])
    primary = balanced.min(0) if fit == "lowest file" else ((called >= 0.3) & (called <= 0.7)).sum(0)
    best = np.lexsort((-np.abs(candidates), balanced.mean(0), primary))[-1]
    return float(candidates[best])


def read_at(rows, score, threshold):
    return {"BAcc": balanced_accuracy_score(rows.label, rows[score] >= threshold),
            "called": float(np.mean(rows[score] >= threshold))}


def left_out(validation, attacks, score, fit):
    """Per validation file: the rule fitted on the other files, read on it."""
    lines = []
    for name, rows in validation.groupby("file"):
        threshold = fitted(validation[validation.file != name], attacks, score, fit)
        lines.append({"file": name, "grounding": rows.grounding.iloc[0], **read_at(rows, score, threshold)})
    return pd.DataFrame(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("margins")
    parser.add_argument("--held-out", action="store_true", help="read the held-out units too (after choosing)")
    args = parser.parse_args()
    validation, attacks, held = frames(args.margins)
    lines = []
    for score in SCORES:
        for fit in FITS:
            threshold = fitted(validation, attacks, score, fit)
            files = left_out(validation, attacks, score, fit)
            grounding, nli = files[files.grounding], files[~files.grounding]
            line = {"score": score, "fit": fit, "threshold": round(threshold, 3),
                    "attacks called": float(np.mean(attacks[score] >= threshold)),
                    "grounding BAcc mean": grounding.BAcc.mean(), "grounding lowest": grounding.BAcc.min(),
                    "NLI BAcc mean": nli.BAcc.mean(), "NLI lowest": nli.BAcc.min(),
                    "files in 30-70 %": f"{files.called.between(0.3, 0.7).sum()}/{len(files)}"}
            if args.held_out:
                units = pd.DataFrame([{"unit": unit, "AUC": roc_auc_score(rows.label, rows[score]),
                                       **read_at(rows, score, threshold)} for unit, rows in held.groupby("unit")])
                line.update({"held AUC": units.AUC.mean(), "held BAcc mean": units.BAcc.mean(),
                             "held lowest": units.BAcc.min(),
                             "held in 30-70 %": f"{units.called.between(0.3, 0.7).sum()}/{len(units)}",
                             **{f"{unit.split('=')[1]} BAcc/called": f"{r.BAcc:.3f}/{r.called:.2f}"
                                for unit, r in units.set_index("unit").iterrows()}})
            lines.append(line)
    print("## Validation files left out in turn (the rule fitted on the others)"
          + (" and the held-out units" if args.held_out else ""))
    print(pd.DataFrame(lines).round(3).to_markdown(index=False))
    auc = {score: roc_auc_score(validation.label, validation[score], sample_weight=family_weights(validation))
           for score in SCORES}
    print(f"\nvalidation AUC (family weights): {', '.join(f'{s} {a:.3f}' for s, a in auc.items())}")


if __name__ == "__main__":
    main()
