"""How well a head's one fixed threshold transfers: every figure out of fold, by whole datasets, languages and
domains left out, each beside word overlap fitted the same way (overlap is a shortcut a head can learn too).

`transfer_report(frame, states, layers, judge_name)` takes one row per labelled pair (`file`, `language`,
`domain`, `label`, `nli`, `overlap`, `zero_shot`: the judge's own yes/no margin) and its states, chooses the head's
kind, layer and penalty by the mean balanced accuracy of leave-one-dataset-out over the English sets, and returns
the three transfer tables for that choice as text, with the head fitted on every row.
"""

import dataclasses

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from .model import fit_head

# (kind, L2 penalty) candidates; the penalty means nothing to a difference of means
CANDIDATES = (("logistic", 0.03), ("logistic", 0.3), ("logistic", 1.0), ("mean-difference", 0.0))


def family_weights(frame) -> np.ndarray:
    """Each file counts the same within its family, and the English grounding sets as much as the NLI sets."""
    sizes = frame.groupby("file")["file"].transform("size")
    files = frame.groupby("nli")["file"].transform("nunique")
    return (1.0 / (sizes * files)).to_numpy()


def _measures(labels, scores):
    """(ROC-AUC, balanced accuracy of score ≥ 0): one threshold, fixed before the held-out rows are seen."""
    labels = np.asarray(labels)
    auc = roc_auc_score(labels, scores) if len(set(labels)) == 2 else np.nan
    return auc, balanced_accuracy_score(labels, np.asarray(scores) >= 0)


def _overlap_logits(frame, train, test, weights):
    """Word overlap as a one-feature logistic model fitted on the same training rows (its threshold is fixed too)."""
    values = frame["overlap"].fillna(0).to_numpy()[:, None]
    model = LogisticRegression(class_weight="balanced").fit(values[train], frame.label.to_numpy()[train], sample_weight=weights[train])
    return model.decision_function(values[test])


def held_out(frame, states, held, layer_index, kind, C, weights, layers):
    """(head logits, overlap logits) of the rows `held` (a boolean mask), fitted on all the others."""
    train, test = np.flatnonzero(~held), np.flatnonzero(held)
    head = fit_head(states[train][:, layer_index], frame.label.to_numpy()[train], weights[train], kind, C, layers)
    return head.logits(states[test][:, layer_index]), _overlap_logits(frame, train, test, weights)


def transfer_table(frame, states, column, values, layer_index, kind, C, layers, within=None):
    """One line per value of `column` left out (of the rows `within`, default all): its rows, and AUC / BAcc of
    the head, of the judge's zero-shot yes/no answer (threshold P(yes) = 0.5) and of word overlap."""
    weights = family_weights(frame)
    lines = []
    for value in values:
        held = (frame[column] == value).to_numpy() & (within if within is not None else True)
        head_logits, overlap_logits = held_out(frame, states, held, layer_index, kind, C, weights, layers)
        labels = frame.label.to_numpy()[held]
        (auc, bacc), (overlap_auc, overlap_bacc) = _measures(labels, head_logits), _measures(labels, overlap_logits)
        zero_shot_auc, zero_shot_bacc = _measures(labels, frame.zero_shot.to_numpy()[held])
        lines.append({column: value, "rows": int(held.sum()), "head AUC": auc, "head BAcc": bacc,
                      "zero-shot AUC": zero_shot_auc, "zero-shot BAcc": zero_shot_bacc,
                      "overlap AUC": overlap_auc, "overlap BAcc": overlap_bacc})
    return pd.DataFrame(lines)


def english_files(frame):
    return sorted(frame.loc[~frame.nli, "file"].unique())


def choose(frame, states, layers):
    """Per candidate (kind, penalty, layer): the mean and lowest leave-one-dataset-out balanced accuracy over the
    English sets; the best mean is chosen."""
    lines = []
    for kind, C in CANDIDATES:
        for layer_index, layer in enumerate(layers):
            table = transfer_table(frame, states, "file", english_files(frame), [layer_index], kind, C, (layer,))
            lines.append({"kind": kind, "C": C, "layer": layer, "mean BAcc": table["head BAcc"].mean(),
                          "lowest BAcc": table["head BAcc"].min(), "mean AUC": table["head AUC"].mean()})
    return pd.DataFrame(lines).sort_values("mean BAcc", ascending=False, kind="stable").reset_index(drop=True)


def transfer_report(frame, states, layers, judge_name):
    """(printable report, the head fitted on every row with the chosen settings, its card holding the figures)."""
    choices = choose(frame, states, layers)
    best = choices.iloc[0]
    layer_index = [list(layers).index(best.layer)]
    kind, C, chosen_layers = best.kind, float(best.C), (int(best.layer),)
    by_dataset = transfer_table(frame, states, "file", english_files(frame), layer_index, kind, C, chosen_layers)
    languages = sorted(frame.loc[frame.nli, "language"].unique())
    by_language = transfer_table(frame, states, "language", languages, layer_index, kind, C, chosen_layers, within=frame.nli.to_numpy())
    summedits = (frame.file == "summedits").to_numpy()
    domains = sorted(frame.loc[summedits, "domain"].dropna().unique())
    by_domain = transfer_table(frame, states, "domain", domains, layer_index, kind, C, chosen_layers, within=summedits)
    head = fit_head(states[:, layer_index], frame.label.to_numpy(), family_weights(frame), kind, C, chosen_layers, judge_name)
    figures = {
        "chosen": {"kind": kind, "C": C, "layer": int(best.layer)},
        "rows": int(len(frame)),
        "files": {name: int(count) for name, count in frame.file.value_counts().sort_index().items()},
        "leave_one_dataset_out": by_dataset.round(3).to_dict("records"),
        "leave_one_language_out": by_language.round(3).to_dict("records"),
        "summedits_leave_one_domain_out": by_domain.round(3).to_dict("records"),
    }
    report = "\n\n".join(
        [
            f"## Head candidates, leave-one-dataset-out over {len(english_files(frame))} English sets (chosen: first)\n"
            + choices.round(3).to_string(index=False),
            f"## Leave-one-dataset-out, {kind} C={C} layer {best.layer}: mean BAcc {by_dataset['head BAcc'].mean():.3f} "
            f"(overlap {by_dataset['overlap BAcc'].mean():.3f}), lowest {by_dataset['head BAcc'].min():.3f}\n"
            + by_dataset.round(3).to_string(index=False),
            "## Leave-one-language-out (NLI rows; trained on every other language and set)\n"
            + by_language.round(3).to_string(index=False),
            "## SummEdits, leave-one-domain-out\n" + by_domain.round(3).to_string(index=False),
        ]
    )
    return report, dataclasses.replace(head, card=figures)
