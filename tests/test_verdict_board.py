"""The verdict board's fitted candidates (`benchmarks/verdict_board.py`), on a synthetic claim table: a fitted part
never sees the unit it is measured on, and the one threshold it fits is the one that suits the training units best.
No judge runs: the board's passes are stored numbers, and its candidates are computed from them alone.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import verdict_board  # noqa: E402


def synthetic_claims(shift_of_unit, rows_per_unit=40, seed=0):
    """One claim per row; a supported row's margins sit 2 above an unsupported one's, plus the unit's shift."""
    rng = np.random.default_rng(seed)
    lines = []
    for unit, (group, shift) in shift_of_unit.items():
        for index in range(rows_per_unit):
            label = index % 2
            base = 2.0 * label - 1.0 + shift + rng.normal(0, 0.3)
            lines.append({
                "unit": unit, "group": group, "row": f"{unit}/{index}", "claim": 0, "label": label,
                "overlap": 0.5 + 0.1 * label, "verdict@160 margin": base, "empty margin": rng.normal(0, 0.3),
                "q10 margin": base + rng.normal(0, 0.3), "claim cond_mean": base, "claim gain_mean": base,
                "claim gain_q10": base, "claim explained": 0.5, "verification margin": base,
            })
    frame = pd.DataFrame(lines)
    frame["contrast"] = frame["verdict@160 margin"] - frame["empty margin"]
    return frame


def test_one_threshold_is_fitted_where_the_training_units_are_separated_best():
    frame = synthetic_claims({"a": ("training", 3.0), "b": ("training", 3.0)})
    threshold = verdict_board.fit_offset(frame, "verdict@160 margin")
    assert 2.0 - 0.6 < threshold < 4.0 + 0.6  # between the two labels' margins (2 and 4), not at 0


def test_a_training_unit_is_measured_with_a_threshold_fitted_without_it():
    # units a and b agree (labels split at margin 3); unit c sits far below: fitted with c, the threshold would move
    frame = synthetic_claims({"a": ("training", 3.0), "b": ("training", 3.0), "c": ("training", -6.0), "h": ("held-out", 3.0)})
    values = verdict_board.candidate_values(frame)
    shifted = values["yn160+t"]
    on_c = frame.unit == "c"
    threshold_for_c = verdict_board.fit_offset(frame[frame.unit.isin(["a", "b"])], "verdict@160 margin")
    assert shifted[on_c].to_numpy() == pytest.approx((frame.loc[on_c, "verdict@160 margin"] - threshold_for_c).to_numpy())
    # the held-out unit is measured with the threshold fitted on every training unit, and never on itself
    on_h = frame.unit == "h"
    threshold_for_h = verdict_board.fit_offset(frame[frame.group == "training"], "verdict@160 margin")
    assert shifted[on_h].to_numpy() == pytest.approx((frame.loc[on_h, "verdict@160 margin"] - threshold_for_h).to_numpy())


def test_every_fitted_candidate_is_computed_for_every_claim():
    frame = synthetic_claims({"a": ("training", 0.0), "b": ("training", 0.5), "h": ("held-out", 0.0)})
    values = verdict_board.candidate_values(frame)
    for name in ("logistic", "yn160·Q10", *verdict_board.FITTED_THRESHOLD):
        assert values[name].notna().all(), name
    # a clean synthetic signal: every fitted candidate separates the held-out unit's labels at 0
    on_h = frame.unit == "h"
    for name in ("logistic", "yn160·Q10", "yn160+t"):
        assert ((values[name][on_h] >= 0) == (frame.label[on_h] == 1)).mean() > 0.9, name


def test_a_claim_without_every_signal_gets_no_logistic_value():
    # a news row measured by the likelihood pass but not (yet) by the yes/no one: no value rather than a made-up one
    frame = synthetic_claims({"a": ("training", 0.0), "b": ("training", 0.5), "h": ("held-out", 0.0)})
    frame.loc[frame.unit == "h", "verdict@160 margin"] = np.nan
    values = verdict_board.candidate_values(frame)
    assert values["logistic"][frame.unit == "h"].isna().all()
    assert values["logistic"][frame.unit != "h"].notna().all()


def test_each_claim_keeps_its_best_window_of_every_pass_and_the_tuned_margin_as_the_metric_gives_it():
    # one row, two claims; the tuned pass stores the metric's own signals (`verdicts.item_signals`), margin over
    # the adapter's threshold included, so the board reads the verdict the metric would give
    passes = {
        "verdict@160": {"r": [[0.2, 0.9], [0.5]]},
        "tuned@160": {"r": [[{"p_yes": 0.3, "tuned_margin": -1.0}, {"p_yes": 0.6, "tuned_margin": 0.7}], [{"p_yes": 0.1, "tuned_margin": -2.5}]]},
    }
    first, second = (verdict_board.claim_features(passes, "r", index) for index in (0, 1))
    assert first["verdict@160 margin"] == pytest.approx(np.log(0.9 / 0.1)) and first["tuned margin"] == 0.7
    assert second["verdict@160 margin"] == pytest.approx(0.0) and second["tuned margin"] == -2.5
    assert "tuned margin" not in verdict_board.claim_features({"tuned@160": {}}, "r", 0)


def test_a_tuned_pass_at_each_claims_top_windows_only_gives_the_pruned_candidates_only():
    # `--pass-top-windows 1`: the claim was judged against its first window only; the other holds no value
    passes = {"tuned@160": {"r": [[None, {"p_yes": 0.6, "tuned_margin": 0.7}]]}}
    pruned = verdict_board.claim_features(passes, "r", 0, kept={1: [1], 2: [0, 1]})
    assert pruned == {"tuned top1 margin": 0.7}


def test_a_stored_tuned_pass_is_read_at_the_threshold_the_card_holds_now_for_its_dtype():
    # a card's offset can be measured again without changing the weights' fingerprint: the stored P(yes) stays,
    # the margin follows the card, for the dtype in the computing judge's fingerprint
    from localjudge.learned import tuning

    adapter = tuning.shipped_adapter("qwen2.5-coder-0.5b")
    stored = {"r": [[{"p_yes": 0.3, "tuned_margin": 9.0}, {"p_yes": 0.6, "tuned_margin": 9.0}]]}
    for dtype in ("torch.bfloat16", "torch.float32"):
        read = verdict_board.at_card_threshold(stored, f"qwen2.5-coder-0.5b:abc:{dtype}+adapter:{adapter.fingerprint}",
                                               "qwen2.5-coder-0.5b")
        assert [w["tuned_margin"] for w in read["r"][0]] == pytest.approx(
            [np.log(0.3 / 0.7) - adapter.offset(dtype), np.log(0.6 / 0.4) - adapter.offset(dtype)])
        assert [w["p_yes"] for w in read["r"][0]] == [0.3, 0.6]
    assert adapter.offset("torch.bfloat16") != adapter.offset("torch.float32")
    # a window a pruned pass did not judge stays without a value
    pruned = verdict_board.at_card_threshold({"r": [[None, {"p_yes": 0.6}]]},
                                             f"qwen2.5-coder-0.5b:abc:torch.float32+adapter:{adapter.fingerprint}", "qwen2.5-coder-0.5b")
    assert pruned["r"][0][0] is None and pruned["r"][0][1]["tuned_margin"] == pytest.approx(np.log(1.5) - adapter.offset("torch.float32"))
    # a pass computed with another adapter is not read at this one's threshold
    with pytest.raises(SystemExit, match="computed with adapter 0123456789abcdef"):
        verdict_board.at_card_threshold(stored, "qwen2.5-coder-0.5b:abc:torch.bfloat16+adapter:0123456789abcdef",
                                        "qwen2.5-coder-0.5b")


def test_the_who_did_what_probe_pairs_a_chat_summary_with_its_speakers_traded():
    chat = "Noor: can you water my plants on Friday?\nIvo: sure\nNoor: thanks"
    judged = {"id": "s1", "group": "held-out", "source": chat, "summary": "The plants need water. Ivo will water them.",
              "claims": ["The plants need water.", "Ivo will water them."], "label": 1}
    faithful, traded = verdict_board.speaker_pair({"id": "s1", "source": chat}, judged)
    assert (faithful["label"], traded["label"]) == (1, 0) and faithful["pair"] == traded["pair"] == "s1"
    assert faithful["claims"] == judged["claims"] and traded["claims"] == ["The plants need water.", "Noor will water them."]
    assert {faithful["group"], traded["group"]} == {"probe"}
    assert verdict_board.speaker_pair({"id": "s2", "source": chat}, {**judged, "claims": ["It rained."]}) == []


def test_the_prose_probe_pairs_a_faithful_summary_with_two_noun_phrases_traded():
    source = "In laboratory trials, the strain degraded about 62 percent of the additive within 14 days."
    judged = {"id": "pairs-1", "group": "plain", "source": source, "summary": "It was a lab test. The strain broke down the additive.",
              "claims": ["It was a lab test.", "The strain broke down the additive."], "label": 1}
    faithful, swapped = verdict_board.phrase_pair(judged)
    assert (faithful["id"], swapped["id"]) == ("pairs-1/faithful", "pairs-1/swapped") and swapped["label"] == 0
    assert swapped["claims"] == ["It was a lab test.", "The additive broke down the strain."]
    assert {faithful["group"], swapped["group"]} == {"probe"}
    assert verdict_board.phrase_pair({**judged, "claims": ["It rained."]}) == []


def test_a_units_balanced_accuracy_has_a_standard_error_that_grows_as_its_supported_rows_get_few():
    # 2 of 4 supported rows called right, 3 of 4 unsupported: rates read plus two are 3/6 and 4/6
    labels, calls = [1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 1]
    expected = 0.5 * np.sqrt(0.5 * 0.5 / 6 + (4 / 6) * (2 / 6) / 6)
    assert verdict_board.balanced_accuracy_error(labels, calls) == pytest.approx(expected)
    # both of two supported rows called right is not an exact rate: its error stays well above zero
    few = verdict_board.balanced_accuracy_error([1, 1] + [0] * 46, [1, 1] + [0] * 46)
    many = verdict_board.balanced_accuracy_error([1] * 24 + [0] * 24, [1] * 24 + [0] * 24)
    assert few > 2 * many > 0


def test_a_units_measures_name_its_labelled_share_beside_the_share_called_supported():
    rows = pd.DataFrame({"low": [1.0, -1.0, 2.0, 3.0], "soft": [0.9, 0.2, 0.8, 0.7], "label": [1, 0, 0, 0]})
    line = verdict_board.unit_measures(rows)
    assert (line["rows"], line["supported rows"], line["labelled supported"], line["called supported"]) == (4, 1, 0.25, 0.75)
    assert line["BAcc"] == pytest.approx((1 + 1 / 3) / 2, abs=1e-3)


def test_a_row_stored_with_another_number_of_claims_than_it_splits_into_now_is_stale():
    unit = [{"id": "a", "claims": ["one.", "two."]}, {"id": "b", "claims": ["one.", "two.", "three."]}, {"id": "c", "claims": ["x."]}]
    stored = {"a": [[0.1], [0.2]], "b": [[0.1], [0.2]]}  # b was judged as two claims; c was never judged
    windows = {"a": ["w"], "b": ["w"], "c": ["w"]}
    assert verdict_board.stale_rows(unit, stored, windows) == {"b"}


def test_a_row_whose_claims_or_windows_changed_since_its_pass_is_stale(smol_judge):
    source = "Ivo: can you water my plants on Friday?\nNoor: Sure. I will water them on Friday and Saturday."
    unit = [{"id": "a", "claims": ["Noor will water the plants."], "source": source},
            {"id": "b", "claims": ["Ivo asked Noor."], "source": source},
            {"id": "c", "claims": ["Noor is away."], "source": source}]
    windows = verdict_board.row_windows(smol_judge, "tuned@160", unit)
    digests = verdict_board.row_digests(unit, windows)
    stored = {"a": [[0.1]], "b": [[0.2]], "c": [[0.3]]}
    assert verdict_board.stale_rows(unit, stored, windows, digests) == set()
    # a's window holds other text now, b's claim is reworded, c is unchanged
    changed = [{**unit[0], "source": source + "\nIvo: thanks, see you on Sunday."}, {**unit[1], "claims": ["Noor asked Ivo."]}, unit[2]]
    now = verdict_board.row_windows(smol_judge, "tuned@160", changed)
    assert verdict_board.stale_rows(changed, stored, now, digests) == {"a", "b"}
    # a pass stored before digests were kept cannot tell that a's window and b's claim read otherwise
    assert verdict_board.stale_rows(changed, stored, now, {}) == set()


def test_a_row_stored_before_digests_were_kept_is_stale_once_its_source_is_cut_into_other_windows(smol_judge):
    # a pass stored before digests were kept (the 1.5B judge's cliff pass) holds one value per window as the source
    # was cut then: once the source reads as more windows, its values would be read against other windows
    short = "Noor will water the plants on Friday. Ivo is away until Sunday."
    long = " ".join(f"On day {day} of the trip Ivo walked {day + 3} kilometres along the coast near Harlow Bay." for day in range(30))
    unit = [{"id": "a", "claims": ["Ivo is away."], "source": short}, {"id": "b", "claims": ["Ivo walked."], "source": long}]
    windows = verdict_board.row_windows(smol_judge, "tuned@160", unit)
    assert (len(windows["a"]), len(windows["b"]) > 1) == (1, True)
    stored = {"a": [[0.4]], "b": [[0.5]]}  # b judged against one window, when its source was read whole
    assert verdict_board.stale_rows(unit, stored, windows) == {"b"}
    assert verdict_board.stale_rows(unit, {**stored, "b": [[0.5] * len(windows["b"])]}, windows) == set()
    # a pass that reads no source has one value a claim
    assert verdict_board.row_windows(smol_judge, "empty", unit) == {"a": [""], "b": [""]}


def test_llm_written_summaries_are_labelled_supported_only_at_full_faithfulness_and_keep_the_raters_mean(tmp_path, monkeypatch):
    # project-written rows in summeval_op's format: two LLMs' summaries, the reference and an older summariser
    source = "I bought these boots in May. They kept my feet dry on every walk.\nThe laces broke after two weeks."
    rows = [{"id": f"summeval_op-01-{system}", "system": system, "source": source, "summary": summary, "faithfulness": score}
            for system, summary, score in (
                ("gpt-4", "Reviewers say the boots keep feet dry. One says the laces broke.", 5.0),
                ("zephyr-7b-beta", "Reviewers say the boots leak. The laces are strong.", 4.33),
                ("reference", "The boots keep feet dry, but the laces can break.", 5.0),
                ("plansum", "Great boots.", 2.0))]
    pd.DataFrame(rows).to_json(tmp_path / "summeval_op.jsonl", orient="records", lines=True)
    monkeypatch.setattr(verdict_board, "COVERAGE", tmp_path)
    unit = verdict_board.llm_unit_rows(10)["llm=summeval_op"]
    by_id = {row["id"]: row for row in unit}
    assert set(by_id) == {"summeval_op-01-gpt-4", "summeval_op-01-zephyr-7b-beta"}  # written by an LLM only
    assert (by_id["summeval_op-01-gpt-4"]["label"], by_id["summeval_op-01-zephyr-7b-beta"]["label"]) == (1, 0)
    assert by_id["summeval_op-01-zephyr-7b-beta"]["score"] == 4.33
    assert by_id["summeval_op-01-gpt-4"]["claims"] == ["Reviewers say the boots keep feet dry.", "One says the laces broke."]
    assert {row["group"] for row in unit} == {"llm-written"}


def test_a_unit_with_graded_labels_gets_the_spearman_of_its_soft_score_beside_its_balanced_accuracy():
    units = {"llm=x": [{"id": f"r{index}", "group": "llm-written", "summary": "A b c.", "source": "A b c d.",
                        "label": int(index >= 2), "score": float(index)} for index in range(4)],
             "file=y": [{"id": f"p{index}", "group": "held-out", "summary": "A b c.", "source": "A b c d.",
                        "label": index % 2} for index in range(4)]}
    # the verdict's margins rise with the raters' scores on the graded unit
    frame = pd.DataFrame([{"unit": unit, "group": rows[0]["group"], "row": row["id"], "claim": 0, "label": row["label"],
                           "overlap": 0.5, "tuned margin": row.get("score", 1.0) - 1.5} for unit, rows in units.items() for row in rows])
    table, _, _ = verdict_board.board(units, frame)
    graded = table[(table.unit == "llm=x") & (table.candidate == "tuned")].iloc[0]
    assert graded.Spearman == pytest.approx(1.0)
    assert pd.isna(table[table.unit == "file=y"].iloc[0].get("Spearman"))  # a binary label only: no Spearman
