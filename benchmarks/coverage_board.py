"""The coverage board (issue 59): the summary metrics' coverage side against six human-labelled sets, in one table.

    python3 benchmarks/coverage_board.py --per-set 12            # run the passes still missing (resumable), print the board
    python3 benchmarks/coverage_board.py --per-set 12 --report   # the board from the stored passes alone, no judge pass
    python3 benchmarks/coverage_board.py --per-set 12 --sets realsumm pyrxsum --rules lead-3 central-3

**Sets** (`--per-set N`: the first N documents of each set in a fixed hash order, `devset.article_group`, with all
their summaries, the `reference` rows included; a larger N only adds documents):
* summeval (`relevance`) and realsumm (`coverage`, LitePyramid recall of the reference's units): ../shared/devset;
* dialsummeval (`relevance`), summeval_op (`aspect_coverage`), opinsummeval (`aspect_relevance`) and pyrxsum
  (`unit_recall`, and each unit's `present`): ../shared/coverage.

**Signals**, per summary, from the metric's own verdict (`verdicts.item_signals` / `verdict_probability` with the
judge's coverage setting: the likelihood gain of each fact given the summary, `COVERAGE_GAIN`, for the default
judge) on the facts a rule picks from the source (`--rules`, `RULES`; `by-kind` is the metric's default: the first
three sentences, the first ten of a dialogue, `keyfacts.question_count`; `lead-3`, `lead-5` and `lead-10` the first
three, five and ten; `central-3` the three most central by LexRank, `summarization_score`'s `key_facts="central"`;
`keyphrase-3` the three holding the most YAKE keyphrases; `clauses-3` the first three cut into clauses; the last two
measured here only):
`qa hard` = Ragas' `qa_score` = Mastra's `coverage_score` (share of facts with verdict ≥ 0.5), `qa soft` (the mean
probability, `soft=True`), `ragas` = the default final score, `qa·0.5 + conciseness·0.5`. Beside them, on the same
rows: `length` (the summary's word count) and `lead-3 overlap` (`baselines.lead_coverage`).

**Measures**: Spearman with the label pooled over all rows and per document (the mean over documents of the
within-document ρ; a document whose labels are all equal is left out and counted, one whose signal is constant
counts ρ = 0: a tie ranks nothing), the partial Spearman controlling for length (ranks residualised on the
length's rank), pooled, and each signal's per-document ρ minus the first signal's (the first rule's `qa hard`: with
`--verdict shipped` and `by-kind` or `lead-3` first, the metric's default now or before 2026-11-28), document by
document, with the standard error of that
mean difference: the noise a choice between two signals has to clear. pyrxsum also scores the yes/no step with
gold facts: each unit is the fact and the summary the evidence; ROC-AUC of the verdict probability and balanced
accuracy against `present`, at 0.5 (the verdict's own threshold) and at a threshold fitted for facts on the other
documents' units (leave one document out), beside the unit's content words found in the summary (the README's
overlap matcher).

**Verdicts** (`--verdict`): `shipped`, the judge's coverage setting above; `tuned`, the tuned judge's fact check
(`prompts.TUNED_COVERAGES`: run 16's adapter answering its verification prompt with the summary as the document and
the fact as the statement, its margin read at the card's threshold; issue 59 item 2).

**Passes** (the judge's signals of each (summary, fact)) are stored per set under `--store` (default
benchmarks/board/, beside the verdict board's and by its `save_pass`: numbers, row ids and fact hashes only, never
text), with the fingerprints of the judge and of the coverage templates: a rerun computes only the (summary, fact)
pairs it lacks.
"""

import argparse
import functools
import hashlib
import json
import math
import re
import time

import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn.metrics import balanced_accuracy_score

from agreement import roc_auc, spearman  # noqa: E402  (benchmarks/agreement.py)
from devset import DEVSET, article_group  # noqa: E402
from verdict_board import STORE, card_threshold, fit_offset, pass_judge, save_pass, stored_pass  # noqa: E402
from localjudge import DEFAULT_JUDGE, load_judge  # noqa: E402
from localjudge import baselines, keyfacts, maths  # noqa: E402
from localjudge.maths import logit  # noqa: E402
from localjudge.prompts import (  # noqa: E402
    DEFAULT_SETTINGS, JUDGE_SETTINGS, LIKELIHOOD_PROMPTS, SENTENCE_QUESTION, TUNED_COVERAGES, VERDICT_PROMPTS,
    VERIFICATION_FIELDS, VERIFICATION_PROMPTS,
)
from localjudge.text import clean, laid_out, source_lines, source_sentences  # noqa: E402
from localjudge.verdicts import item_signals, judge_settings, verdict_probability  # noqa: E402

COVERAGE = DEVSET.parent / "coverage"
# verdict → the pass that stores its signals: the judge's shipped coverage verdict, or the tuned judge's fact check
# (`prompts.TUNED_COVERAGES`: the verification prompt with the summary as its document)
PASSES = {"shipped": "coverage", "tuned": "coverage-tuned"}
# set → (file, dataset name in it or None, label field; a devset label sits in `labels`)
SETS = {
    "summeval": (DEVSET / "summaries.jsonl", "summeval", "relevance"),
    "realsumm": (DEVSET / "summaries.jsonl", "realsumm", "coverage"),
    "dialsummeval": (COVERAGE / "dialsummeval.jsonl", None, "relevance"),
    "summeval_op": (COVERAGE / "summeval_op.jsonl", None, "aspect_coverage"),
    "opinsummeval": (COVERAGE / "opinsummeval.jsonl", None, "aspect_relevance"),
    "pyrxsum": (COVERAGE / "pyrxsum.jsonl", None, "unit_recall"),
}


# ------------------------------------------------------------------ key-fact rules measured here, not shipped
# YAKE (Campos et al. 2020, the `yake` package, no model or download): Ragas asks its judge for keyphrases and builds one
# question on each from the text; here the question is the sentence the keyphrase comes from. Phrases of up to three
# words, the text's ten best (its stopwords are English)
KEYPHRASE_WORDS = 3
KEYPHRASES = 10
# atomic facts without a judge: a clause ends at a semicolon, or at a comma before a word that opens a clause; a part
# shorter than this many words stays joined to its neighbour
CLAUSE_BREAK = re.compile(r";\s+|,\s+(?=(?:and|but|while|which|who|where|after|before|because|although|as|so)\b)")
MIN_CLAUSE_WORDS = 4


@functools.lru_cache(maxsize=1)
def keyphrase_extractor():
    import yake  # `pip install -e ".[bench]"`

    return yake.KeywordExtractor(lan="en", n=KEYPHRASE_WORDS, top=KEYPHRASES)


def keyphrase_sentences(sentences, count: int = 3):
    """The indices of the `count` sentences that hold the most of the text's YAKE keyphrases, each keyphrase weighing
    1 / its rank, in source order; a tie goes to the earlier sentence (a text without keyphrases gives its lead)."""
    phrases = [phrase.lower() for phrase, _ in keyphrase_extractor().extract_keywords(" ".join(sentences))]
    weights = [sum(1 / rank for rank, phrase in enumerate(phrases, 1) if phrase in sentence.lower()) for sentence in sentences]
    ranked = sorted(range(len(sentences)), key=lambda index: (-weights[index], index))
    return sorted(ranked[:count])


def clauses(sentence: str):
    """The clauses of one sentence (`CLAUSE_BREAK`); a part of fewer than `MIN_CLAUSE_WORDS` words stays joined to
    its neighbour (the clause before it, or the first one after it), so a sentence of one clause is itself."""
    def short(text):
        return len(text.split()) < MIN_CLAUSE_WORDS

    parts = []
    for part in CLAUSE_BREAK.split(sentence.strip()):
        if parts and (short(part) or short(parts[-1])):
            parts[-1] = f"{parts[-1]}, {part}"
        else:
            parts.append(part)
    return parts


# ------------------------------------------------------------------ rows and facts
def sentences_by(pick, count=3):
    return lambda row: keyfacts.asked_facts(row["sentences"], pick, count)


def by_kind(row):
    """The metric's default: the first `keyfacts.question_count` sentences (3 of prose, 10 of a dialogue)."""
    return sentences_by(keyfacts.lead_sentences, row["question_count"])(row)


# rule → the facts of a row's source (its sentences) it asks about: the first three, five or ten sentences, the
# default (three, or ten of a dialogue), the three most central (LexRank), the three holding the most YAKE
# keyphrases, and the first three cut into clauses (atomic facts)
RULES = {
    "lead-3": sentences_by(keyfacts.lead_sentences),
    "lead-5": sentences_by(keyfacts.lead_sentences, 5),
    "lead-10": sentences_by(keyfacts.lead_sentences, 10),
    "by-kind": by_kind,
    "central-3": sentences_by(keyfacts.central_sentences),
    "keyphrase-3": sentences_by(keyphrase_sentences),
    "clauses-3": lambda row: [part for sentence in row["sentences"][:3] for part in clauses(sentence)],
}


def set_rows(name, per_set=None):
    """The rows of one set as {id, set, doc, source, summary, label, words, [units]}, the first `per_set` documents
    in `article_group` order with all their summaries."""
    path, dataset, label = SETS[name]
    frame = pd.read_json(path, lines=True, dtype=False)
    if dataset:
        frame = frame[frame.dataset == dataset]
    docs = sorted(frame.doc_id.astype(str).unique(), key=article_group)[:per_set]
    rows = []
    for row in frame[frame.doc_id.astype(str).isin(docs)].to_dict("records"):
        lines, summary = source_lines(clean(row["source"])), clean(row["summary"])
        source = laid_out(lines)
        rows.append({
            "id": row["id"], "set": name, "doc": str(row["doc_id"]), "source": source, "summary": summary,
            "label": float(row["labels"][label] if dataset else row[label]), "words": len(summary.split()),
            "sentences": source_sentences(source), "question_count": keyfacts.question_count(lines),
            "units": row.get("units") or [],
        })
    return rows


def fact_key(fact: str) -> str:
    """A stored pass names a fact by this hash, never by its text."""
    return hashlib.sha256(fact.encode()).hexdigest()[:16]


def asked_facts(row, rules):
    """Every fact a row is asked about: the sentences its rules pick, and (pyrxsum) its gold units."""
    picked = [fact for rule in rules for fact in RULES[rule](row)]
    return list(dict.fromkeys(picked + [unit["text"] for unit in row["units"]]))


# ------------------------------------------------------------------ passes
def prompts_fingerprint(verdict="shipped") -> str:
    """The coverage templates a pass renders: stored values are reused only while these texts are unchanged."""
    texts = {"shipped": [LIKELIHOOD_PROMPTS["coverage"], VERDICT_PROMPTS["coverage"], SENTENCE_QUESTION],
             "tuned": [VERIFICATION_PROMPTS["coverage"], VERIFICATION_FIELDS["coverage"]]}[verdict]
    return hashlib.sha256(json.dumps(texts).encode()).hexdigest()[:16]


def verdict_setting(judge_key, verdict):
    """The coverage verdict a pass measures: the judge's shipped one, or its tuned fact check."""
    if verdict == "tuned":
        return TUNED_COVERAGES[judge_key]
    return JUDGE_SETTINGS.get(judge_key, DEFAULT_SETTINGS)["coverage"]


def at_card_threshold(signals, setting, fingerprint):
    """A stored tuned pass's P(yes) as the margin over the threshold of the adapter's card (the verdict board's
    `card_threshold`: the one for the dtype that computed it; a pass of another adapter is refused)."""
    threshold = card_threshold(fingerprint, setting.adapter)
    return {row: {fact: {**values, "tuned_margin": logit(values["p_yes"]) - threshold} for fact, values in facts.items()}
            for row, facts in signals.items()}


def run_pass(judge, rows, rules, stored, setting):
    """The judge's signals of every (summary, fact) pair of `rows` that `stored` lacks, added to it; the seconds
    the judge took. Items are the metric's own (`summarization.score_summaries`: summary, question, fact)."""
    owners, items = [], []
    for row in rows:
        have = stored.get(row["id"], {})
        for fact in asked_facts(row, rules):
            if fact_key(fact) not in have:
                owners.append((row["id"], fact_key(fact)))
                items.append({"summary": row["summary"], "question": SENTENCE_QUESTION.format(sentence=fact), "fact": fact})
    if not items:
        return stored, 0.0
    print(f"  {len(items)} (summary, fact) pairs of {len({owner for owner, _ in owners})} summaries", flush=True)
    started = time.perf_counter()
    signals, _ = item_signals(judge, "coverage", items, setting, progress=True)
    seconds = time.perf_counter() - started
    for (row_id, key), values in zip(owners, signals):
        stored.setdefault(row_id, {})[key] = values
    return stored, seconds


# ------------------------------------------------------------------ signals and measures
def row_signals(row, signals, setting, rules):
    """The board's signals of one row from its stored (summary, fact) signals."""
    conciseness = maths.conciseness_score(row["summary"], row["source"])
    line = {"set": row["set"], "doc": row["doc"], "id": row["id"], "label": row["label"], "length": row["words"],
            "lead-3 overlap": baselines.lead_coverage(row["summary"], row["source"])}
    probability = lambda fact: verdict_probability(setting, signals[fact_key(fact)]) if fact_key(fact) in signals else math.nan
    for rule in rules:
        facts = RULES[rule](row)
        p = [probability(fact) for fact in facts]
        if any(math.isnan(value) for value in p):
            continue  # not computed (yet): the row's signals of this rule stay missing, never zero
        hard = maths.fraction_yes(p, len(p), soft=False)
        line[f"{rule} qa hard"] = hard
        line[f"{rule} qa soft"] = maths.fraction_yes(p, len(p), soft=True)
        line[f"{rule} ragas"] = maths.ragas_summary_score(hard, conciseness)
    return line


def partial_spearman(x, y, z):
    """Spearman of x and y controlling for z: the Pearson correlation of their ranks after each is residualised
    (least squares) on the rank of z."""
    ranks = [rankdata(values) for values in (x, y, z)]
    design = np.column_stack([np.ones(len(z)), ranks[2]])
    residuals = [r - design @ np.linalg.lstsq(design, r, rcond=None)[0] for r in ranks[:2]]
    if min(np.std(r) for r in residuals) == 0:
        return math.nan
    return float(np.corrcoef(*residuals)[0, 1])


def document_rhos(frame, signal):
    """(the within-document Spearman of each document, by document; documents left out for equal labels). A
    constant signal ranks nothing: its ρ counts 0."""
    values, equal = {}, 0
    for doc, part in frame.groupby("doc"):
        part = part.dropna(subset=[signal])
        if len(part) < 2 or np.ptp(part.label) == 0:
            equal += 1
            continue
        value, _ = spearman(part.label.to_numpy(), part[signal].to_numpy())
        values[doc] = 0.0 if math.isnan(value) else value
    return pd.Series(values, dtype=float), equal


def per_document(frame, signal):
    """(mean within-document Spearman, documents used, documents left out for equal labels)."""
    values, equal = document_rhos(frame, signal)
    return (float(values.mean()) if len(values) else math.nan), len(values), equal


def against_first(frame, signals):
    """{signal: (the mean over documents of its within-document ρ minus the first signal's, the standard error of that
    mean)}: a paired difference, so that what every signal finds hard in one document does not count as noise."""
    first = document_rhos(frame, signals[0])[0]
    found = {}
    for signal in signals[1:]:
        difference = (document_rhos(frame, signal)[0] - first).dropna()
        if len(difference) > 1:
            found[signal] = (float(difference.mean()), float(difference.std(ddof=1) / math.sqrt(len(difference))))
    return found


def signal_table(frame, signals):
    """Per set and signal: Spearman with the label pooled, per document and partial (length), and the per-document ρ
    against the first signal's (`against_first`: today's default when it is the first rule's `qa hard`)."""
    lines = []
    for name, part in frame.groupby("set", sort=False):
        present = [signal for signal in signals if signal in part and not part[signal].isna().all()]
        paired = against_first(part, present) if present else {}
        for signal in present:
            scored = part.dropna(subset=[signal])
            pooled, _ = spearman(scored.label.to_numpy(), scored[signal].to_numpy())
            within, used, equal = per_document(scored, signal)
            difference, error = paired.get(signal, (math.nan, math.nan))
            lines.append({
                "set": name, "signal": signal, "rows": len(scored), "docs": scored.doc.nunique(),
                "pooled ρ": pooled, "per-doc ρ": within, "docs used": used, "docs equal labels": equal,
                "partial ρ (length)": math.nan if signal == "length" else partial_spearman(
                    scored[signal].to_numpy(), scored.label.to_numpy(), scored.length.to_numpy()),
                f"per-doc ρ − {present[0]}": difference, "± SE": error,
            })
    return pd.DataFrame(lines)


def out_of_document_calls(frame):
    """Each unit called present at a threshold on its verdict's logit fitted on the other documents' units (the
    verdict board's `fit_offset`: the best mean BAcc over documents), and the threshold fitted on all of them."""
    fitting = frame.assign(unit=frame.doc, row=frame.index, label=frame.present, margin=frame.p.map(logit))
    called = pd.Series(False, index=frame.index)
    for doc, part in fitting.groupby("doc"):
        called[part.index] = part.margin >= fit_offset(fitting[fitting.doc != doc], "margin")
    return called, fit_offset(fitting, "margin")


def unit_table(rows, passes, setting):
    """pyrxsum's yes/no step with gold facts: AUC and BAcc of each unit's verdict against `present` (at 0.5, the
    verdict's own threshold; and at a threshold fitted for facts on the other documents), and the content-word
    overlap matcher's AUC, on the same units."""
    units = []
    for row in rows:
        signals = passes.get(row["id"], {})
        for unit in row["units"]:
            key = fact_key(unit["text"])
            if key in signals:
                units.append({"doc": row["doc"], "present": unit["present"], "p": verdict_probability(setting, signals[key]),
                              "overlap": baselines.found_share(baselines.content_words(unit["text"]), row["summary"])})
    if not units:
        return pd.DataFrame()
    frame = pd.DataFrame(units).fillna({"overlap": 0.0})
    auc, _ = roc_auc(frame.present, frame.p)
    overlap_auc, _ = roc_auc(frame.present, frame.overlap)
    fitted_calls, fitted = out_of_document_calls(frame)
    return pd.DataFrame([{
        "units": str(len(frame)), "summaries": str(len(rows)), "present": frame.present.mean(), "verdict AUC": auc,
        "verdict BAcc @0.5": balanced_accuracy_score(frame.present, frame.p >= 0.5), "called present": (frame.p >= 0.5).mean(),
        "BAcc, threshold fitted out of document": balanced_accuracy_score(frame.present, fitted_calls),
        "called present there": fitted_calls.mean(), "threshold fitted on all (logit)": fitted, "overlap AUC": overlap_auc,
    }])


def rule_overlap_table(names, rules):
    """The key-fact rules without a judge, on every row of each set: Spearman of the share of the chosen facts'
    content words found in the summary (`baselines.found_share`, averaged over the facts) with the label, pooled and
    per document."""
    lines = []
    for name in names:
        rows = set_rows(name)
        for rule in rules:
            shares = []
            for row in rows:
                facts = RULES[rule](row)
                found = [baselines.found_share(baselines.content_words(fact), row["summary"]) for fact in facts]
                shares.append({"doc": row["doc"], "label": row["label"], "share": np.nanmean(found) if found else 0.0})
            frame = pd.DataFrame(shares).fillna({"share": 0.0})
            pooled, _ = spearman(frame.label.to_numpy(), frame.share.to_numpy())
            lines.append({"set": name, "rule": rule, "rows": len(frame), "pooled ρ": pooled,
                          "per-doc ρ": per_document(frame, "share")[0]})
    return pd.DataFrame(lines)


def print_table(title, table):
    """A Markdown table (pandas' `to_markdown`: `pip install -e ".[bench]"`), as the verdict board prints."""
    print(f"\n## {title}\n")
    print(table.to_markdown(index=False, floatfmt=".3f"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", default=DEFAULT_JUDGE)
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--per-set", type=int, default=12, help="documents per set, all their summaries (0: all)")
    parser.add_argument("--rules", nargs="+", default=["lead-3"], choices=list(RULES), help="which facts to ask")
    parser.add_argument("--verdict", default="shipped", choices=list(PASSES),
                        help="the judge's shipped coverage verdict, or the tuned judge's fact check (TUNED_COVERAGES)")
    parser.add_argument("--store", default=str(STORE))
    parser.add_argument("--report", action="store_true", help="print the board from stored passes, run nothing")
    parser.add_argument("--out", help="also write the per-row signals to this CSV file (numbers and ids only)")
    parser.add_argument("--rule-overlap", action="store_true",
                        help="no judge: each rule's facts by content-word overlap with the summary, every row of each set")
    args = parser.parse_args()
    if args.rule_overlap:
        print_table("Key-fact rules without a judge: content words of the chosen facts found in the summary, all rows",
                    rule_overlap_table(args.sets, args.rules))
        return

    judge = None if args.report else load_judge(args.judge)
    key = args.judge if args.report else judge.settings_key
    setting = verdict_setting(key, args.verdict)
    if judge:
        setting = judge_settings(judge, "coverage", {"coverage": setting})
        computing = pass_judge(judge, setting.adapter if args.verdict == "tuned" else None)
    lines, units, computed_by, seconds = [], [], set(), {}
    for name in args.sets:
        rows = set_rows(name, args.per_set or None)
        stored, fingerprint = stored_pass(args.store, key, PASSES[args.verdict], name, prompts_fingerprint(args.verdict))
        if stored is None or (judge and fingerprint != computing.fingerprint):
            stored = {}  # none yet, or another judge (or dtype, or adapter) computed them: computed again
        if judge:
            print(f"pass {PASSES[args.verdict]} on {name} ({len(rows)} summaries of "
                  f"{len({row['doc'] for row in rows})} documents)", flush=True)
            stored, spent = run_pass(judge, rows, args.rules, stored, setting)
            if spent:
                save_pass(args.store, computing, PASSES[args.verdict], name, stored, prompts_fingerprint(args.verdict),
                          seconds=spent)
                seconds[name] = spent
            fingerprint = computing.fingerprint
        computed_by.add(fingerprint)
        if args.verdict == "tuned" and stored:
            stored = at_card_threshold(stored, setting, fingerprint)
        lines += [row_signals(row, stored.get(row["id"], {}), setting, args.rules) for row in rows]
        if name == "pyrxsum":
            units.append(unit_table(rows, stored, setting))
    frame = pd.DataFrame(lines)
    signals = [f"{rule} {kind}" for rule in args.rules for kind in ("qa hard", "qa soft", "ragas")]
    print(f"\n# Coverage board, judge {key} (passes computed as {', '.join(sorted(map(str, computed_by)))}), "
          f"{args.per_set or 'all'} documents per set, reference rows included; verdict {setting}")
    if seconds:
        print("# judge seconds this run: " + ", ".join(f"{name} {value:.0f}" for name, value in seconds.items()))
    print_table("Spearman with the human label (qa hard = qa_score = coverage_score)",
                signal_table(frame, [*signals, "length", "lead-3 overlap"]))
    if units:
        print_table("pyrxsum units: is this fact stated in the summary?", pd.concat(units))
    if args.out:
        frame.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
