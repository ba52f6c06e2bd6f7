"""The verdict board: every candidate alignment verdict on every kind of text, in one table (issue 29).

    python3 benchmarks/verdict_board.py                    # run the passes still missing (resumable), print the board
    python3 benchmarks/verdict_board.py --report           # the board from the stored passes alone, no judge pass
    python3 benchmarks/verdict_board.py --passes verdict@160 likelihood@1024 --groups held-out plain
    python3 benchmarks/verdict_board.py --throughput 16      # rows/s of summarization_score with each verdict, one run
    python3 benchmarks/verdict_board.py --passes tuned@160 --groups plain held-out news --per-news 24 \
        --adapter /tmp/candidate.adapter.safetensors   # a tuned judge's adapter file, on units it never trained on
    python3 benchmarks/verdict_board.py --passes tuned@160 --groups held-out --per-held-out 200 \
        --units file=climate_fever language=de   # only these units: a long one (podcast) can take a session of its own
    python3 benchmarks/verdict_board.py --report --top-windows 1 2 3   # the tuned pass with each claim's windows pruned

The tables are Markdown (pandas' `to_markdown`: `pip install -e ".[bench]"`). Results and the choice they made:
docs/benchmarks.md.

**Units** (rows drawn with balanced labels, seeded):
* held-out: the units of `learned.rows.HELD_OUT` (Climate-FEVER, FaithDial, de, es, zh, SummEdits podcast), never
  fitted on by any learned verdict;
* training: every other English dataset of ../shared/train and four other languages, one unit each; a verdict with
  fitted parts is measured on a training unit with a fit on the other training units only;
* news: the four factuality sets of ../shared/devset (FRANK, QAGS; `factual`) and SummEval (consistency 5 = 1);
* plain: the 64 plain dev pairs (faithful = 1, wrong = 0), also counted as pairs (both right, soft rank);
* llm-written: summaries written by instruction-tuned LLMs, the kind most users bring today: summeval_op's
  summaries of eight product reviews by its nine LLMs (GPT-4, ChatGPT, Llama-2, Mistral, Vicuna, Zephyr, SOLAR;
  ../shared/coverage, never trained on), faithfulness 5 from all three raters = 1 (SummEval's rule), balanced
  (`--per-llm`), with the Spearman of the soft score with the raters' mean;
* probe: who did what, counted as pairs only, never in the summary over units (a probe of one error, not a kind of
  text): in a chat (`speaker_pair`), each supported faceval summary of the held-out sample beside the same summary
  with the speakers of one sentence traded (`edits.speaker_edit`); in prose (`phrase_pair`), each faithful English
  plain summary beside the same with two noun phrases of one sentence traded (the `phrases` edit).
No fitted part ever sees a held-out, news or plain row; thresholds are fixed on the training units. The tuned
judge (issue 30) was trained on rows of the training units' files: it runs on the other groups only, and its
figures are those of the units never fitted on.

**The metric's own path**: a row's summary is split into claims as `summarization_score` splits it (a
question-answering row's question and answer are one statement, `learned.statement`: a few-word answer means
nothing alone), every claim is judged against every window of its source (`summarization.source_units`), a claim
keeps its best window, and the row is supported when every claim is (alignment = 1, the hard decision); soft =
the mean claim probability (`soft=True`). Word-bigram overlap of the summary with its source is the baseline.

**Passes** are the judge's forward passes; **candidates** are verdicts computed from them. A pass runs once per
row and is stored per unit under `--store` (default benchmarks/board/: numbers and row ids only, never text), with
the fingerprints of the judge and of the prompt templates and a digest of each row's claims and windows
(`row_digests`), so the board resumes unit by unit across sessions, a larger sample runs only its new rows, a row
whose claims or windows changed since (the sentence rules did) is judged again and never read against other text,
and a new candidate built from stored passes costs no judge time.
"""

import argparse
import functools
import gzip
import hashlib
import json
import math
import os
import time
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import balanced_accuracy_score, roc_auc_score  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from devset import DEVSET  # noqa: E402
from localjudge import DEFAULT_JUDGE, learned, load_judge  # noqa: E402
from localjudge.baselines import ngram_precision  # noqa: E402
from localjudge.learned import edits, rows as train_rows  # noqa: E402
from localjudge.maths import logit  # noqa: E402
from localjudge.prompts import (  # noqa: E402
    ALIGNMENT_Q10, LIKELIHOOD_PROMPTS, TUNED_TOP_WINDOWS, VERDICT_PROMPTS, VERIFICATION_PROMPTS, Verdict,
)
from localjudge.summarization import source_units  # noqa: E402
from localjudge.text import claim_sentences, clean, read_source, top_windows  # noqa: E402
from localjudge.verdicts import item_signals, item_verdict, likelihood_signals, verdict_prompt  # noqa: E402

TRAIN = DEVSET.parent / "train"
COVERAGE = DEVSET.parent / "coverage"
STORE = Path(__file__).resolve().parent / "board"
SEED = 29
# other languages than the held-out ones, each its own training unit (NLI files of ../shared/train)
TRAINING_LANGUAGES = ("fr", "ru", "ja", "id")
NEWS = {"frank-cnndm": "factual", "frank-xsum": "factual", "qags-cnndm": "factual", "qags-xsum": "factual", "summeval": "consistency"}
# a source longer than this is left out of the sample (a few WiCE pages run to 20,000+ characters)
MAX_SOURCE_CHARS = 8000

# pass name → the window size its claims are judged in (None: no document at all)
PASSES = {
    "verdict@160": 160, "likelihood@1024": 1024, "empty": None, "verification@160": 160,
    "verdict@96": 96, "verdict@256": 256, "tuned@160": 160,
}
GROUPS = ("plain", "held-out", "llm-written", "training", "news", "probe")
# summeval_op's summaries that no instruction-tuned LLM wrote: the human reference and three opinion summarisers of
# 2021–2023 (its README); the other nine systems are the LLMs
NOT_LLM_WRITTEN = ("reference", "Multimodalsum", "ls-sum-g", "plansum")
# the probe's chats: the held-out chat summaries (faceval), whose errors are mostly who did what
PROBED_FILE = "faceval"


# ------------------------------------------------------------------ units
def train_unit_rows(per_held: int, per_training: int):
    """{unit: rows} of ../shared/train: the held-out units and the training units, balanced and seeded."""
    every = train_rows.read_train(TRAIN)
    units = defaultdict(list)
    held = [{**row, "unit": train_rows.held_out_unit(row)} for row in every if train_rows.held_out(row)]
    rest = [row for row in every if not train_rows.held_out(row)]
    rest = [
        {**row, "unit": f"file={row['file']}" if row["language"] == "en" else f"language={row['language']}"}
        for row in rest if row["language"] == "en" or row["language"] in TRAINING_LANGUAGES
    ]
    for group, chosen, count in (("held-out", held, per_held), ("training", rest, per_training)):
        for row in train_rows.per_file_sample(chosen, count, SEED, MAX_SOURCE_CHARS, group="unit"):
            statement = learned.statement(row["claim"], row.get("question"))
            claims = [statement] if row.get("question") else claim_sentences(clean(row["claim"]))
            units[row["unit"]].append({"id": row["id"], "group": group, "source": clean(row["source"]), "summary": statement,
                                       "claims": claims, "label": int(row["label"])})
            if row["file"] == PROBED_FILE and row["label"] == 1:
                units[f"speakers={PROBED_FILE}"] += speaker_pair(row, units[row["unit"]][-1])
    return units


def speaker_pair(row, judged):
    """The probe of who did what in a chat: a supported chat summary (`judged`, its board row) beside the same
    summary with the speakers of its first claim that names one traded (`edits.speaker_edit`)."""
    dialogue_speakers = edits.speakers(row["source"])
    return edited_pair(judged, lambda claim: edits.speaker_edit(claim, dialogue_speakers, row["id"]), "traded")


def phrase_pair(judged):
    """The probe of who did what in prose: a faithful English plain summary (`judged`, its board row under the pair's
    id) beside the same summary with two noun phrases of its first claim that has two traded (`edits.minimal_edit`,
    kind "phrases")."""
    return edited_pair(judged, lambda claim: edits.minimal_edit(claim, judged["source"], "en", "phrases", judged["id"]),
                       "swapped")


def edited_pair(judged, edit, name):
    """A pair of a probe (group "probe"): a supported summary (`judged`, its board row) and the same summary with its
    first claim that `edit` changes changed (labelled unsupported, id suffix `name`); none where it changes none."""
    for index, claim in enumerate(judged["claims"]):
        if changed := edit(claim):
            claims = [*judged["claims"][:index], changed, *judged["claims"][index + 1 :]]
            return [{**judged, "id": f"{judged['id']}/faithful", "group": "probe", "pair": judged["id"], "language": "en"},
                    {**judged, "id": f"{judged['id']}/{name}", "group": "probe", "pair": judged["id"], "language": "en",
                     "claims": claims, "summary": " ".join(claims), "label": 0}]
    return []


def devset_unit_rows(per_news: int):
    """{unit: rows} of ../shared/devset: the news sets (balanced sample of `per_news`, all with 0) and the plain pairs."""
    units = defaultdict(list)
    news = pd.read_json(DEVSET / "summaries.jsonl", lines=True, dtype=False)
    for name, measure in NEWS.items():
        frame = news[news.dataset == name]
        graded = measure == "consistency"  # SummEval's 1–5 mean; FRANK's and QAGS' labels are 0/1 already
        records = [{**row, "label": int(row["labels"][measure] == 5) if graded else int(row["labels"][measure])}
                   for row in frame.to_dict("records")]
        chosen = train_rows.balanced_sample(records, per_news or len(records), SEED) if per_news else records
        units[f"news={name}"] = [
            {"id": f"{row['id']}", "group": "news", "source": clean(row["source"]), "summary": clean(row["summary"]),
             "claims": claim_sentences(clean(row["summary"])), "label": row["label"],
             **({"score": row["labels"][measure]} if graded else {})}
            for row in chosen
        ]
    for pair in pd.read_json(DEVSET / "plain_pairs.jsonl", lines=True, dtype=False).to_dict("records"):
        rows = {kind: {"id": f"{pair['id']}/{kind}", "group": "plain", "source": clean(pair["source"]),
                       "summary": clean(pair[kind]), "claims": claim_sentences(clean(pair[kind])),
                       "label": label, "pair": pair["id"], "language": pair["language"]}
                for kind, label in (("faithful", 1), ("wrong", 0))}
        units["plain"] += rows.values()
        if pair["language"] == "en":
            units["phrases=plain"] += phrase_pair({**rows["faithful"], "id": pair["id"]})
    return units


def llm_unit_rows(per_llm: int):
    """{unit: rows} of LLM-written summaries with human faithfulness labels (../shared/coverage/summeval_op.jsonl):
    balanced and seeded, the label 1 where all three raters gave faithfulness 5, the raters' mean kept as `score`."""
    frame = pd.read_json(COVERAGE / "summeval_op.jsonl", lines=True, dtype=False)
    frame = frame[~frame.system.isin(NOT_LLM_WRITTEN)]
    records = [{**row, "label": int(row["faithfulness"] == 5)} for row in frame.to_dict("records")]
    return {"llm=summeval_op": [
        {"id": row["id"], "group": "llm-written", "source": clean(row["source"]), "summary": clean(row["summary"]),
         "claims": claim_sentences(clean(row["summary"])), "label": row["label"], "score": row["faithfulness"]}
        for row in train_rows.balanced_sample(records, per_llm, SEED)
    ]}


# ------------------------------------------------------------------ passes
def judged_items(judge, unit, window_tokens, top=0):
    """(flat items {"document", "claim"}, owner (row, claim, window) of each, the number of windows of each row): every
    claim of every row against every window of its source, as the metric builds them, or with `top` against only the
    `top` windows BM25 ranks first for it (`text.top_windows`, as `verdicts.preselect` keeps them); no window at all
    (`None`) judges each claim against an empty document."""
    items, owners, counts = [], [], []
    for index, row in enumerate(unit):
        documents = [""] if window_tokens is None else window_documents(judge, row["source"], window_tokens)
        counts.append(len(documents))
        for claim_index, kept in enumerate(top_windows(row["claims"], documents, top)):
            items += [{"document": documents[window], "claim": row["claims"][claim_index]} for window in kept]
            owners += [(index, claim_index, window) for window in kept]
    return items, owners, counts


@functools.lru_cache(maxsize=None)
def window_documents(judge, source, window_tokens):
    """The texts of the windows the metric judges a claim of `source` against (`summarization.source_units`, over
    the source as the metric reads it: `text.read_source`)."""
    setting = {"alignment": Verdict("probability", window_tokens=window_tokens)}
    return source_units(judge, read_source(source), setting)["documents"]


def run_pass(judge, name, unit, adapter, top=0):
    """Per row, per claim, the list of each window's values of pass `name`: P(yes) of the verdict prompt, the
    likelihood signals, the judge's own yes/no margin on the verification prompt (logit P(yes)), or the tuned judge's signals
    (`adapter` applied: P(yes) and its margin over the adapter's threshold); with `top`, each claim's values at
    its `top` first windows only (`judged_items`), None at the others."""
    items, owners, counts = judged_items(judge, unit, PASSES[name], top)
    if name.startswith("tuned"):
        values, _ = item_signals(judge, "alignment", items, tuned_setting(adapter), progress=True)
    elif name.startswith("likelihood"):
        values = likelihood_signals(judge, "alignment", items, progress=True)
    elif name.startswith("verification"):
        prompts = [learned.verification_prompt(judge, "alignment", learned.verification_fields("alignment", item))
                   for item in items]
        values = [{"yes_margin": logit(p)} for p in judge.yes_probability(prompts, progress=True)]
    else:
        values = judge.yes_probability([verdict_prompt(judge, "alignment", item) for item in items], progress=True)
    nested = [[[None] * count for _ in row["claims"]] for row, count in zip(unit, counts)]
    for value, (row, claim, window) in zip(values, owners):
        nested[row][claim][window] = value
    return {row["id"]: claims for row, claims in zip(unit, nested)}


def tuned_setting(adapter):
    return Verdict("tuned", window_tokens=PASSES["tuned@160"], adapter=adapter)


def pass_judge(judge, adapter=None):
    """The judge that computes a pass: `judge` itself, or for a tuned pass `judge` with `adapter` applied."""
    if adapter is None:
        return judge
    from localjudge.learned import tuning  # torch and peft: only where an adapter is applied

    return tuning.tuned_judge(judge, adapter)


def store_path(store, judge_key, name, unit_name):
    safe = unit_name.replace("=", "-").replace("/", "-")
    return Path(store) / judge_key / name / f"{safe}.json.gz"


def prompts_fingerprint() -> str:
    """The templates the passes render: stored values are reused only while these texts are unchanged."""
    text = json.dumps([VERDICT_PROMPTS["alignment"], VERIFICATION_PROMPTS["alignment"],
                       LIKELIHOOD_PROMPTS["alignment"]])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def stored_payload(store, judge_key, name, unit_name, prompts=None):
    """What `save_pass` stored for a pass on a unit ({"rows": values, "judge": the fingerprint that computed them,
    "digests": `row_digests` where kept, …}), or None where none is stored or its templates changed since: `prompts`,
    the fingerprint of those a pass renders (this board's `prompts_fingerprint()` unless another board's)."""
    path = store_path(store, judge_key, name, unit_name)
    if not path.is_file():
        return None
    payload = json.loads(gzip.decompress(path.read_bytes()))
    return payload if payload["prompts"] == (prompts or prompts_fingerprint()) else None


def stored_pass(store, judge_key, name, unit_name, prompts=None):
    """(the stored values of a pass on a unit, the judge fingerprint that computed them), or (None, None)
    (`stored_payload`)."""
    payload = stored_payload(store, judge_key, name, unit_name, prompts)
    return (payload["rows"], payload["judge"]) if payload else (None, None)


def row_windows(judge, name, unit):
    """{row id: the texts of the windows that pass `name` judges the row's claims against}: its source's windows at
    the pass's window size (`window_documents`), or one empty text for a pass that reads no source."""
    window_tokens = PASSES[name]
    return {row["id"]: [""] if window_tokens is None else window_documents(judge, row["source"], window_tokens)
            for row in unit}


def row_digests(unit, windows):
    """{row id: a digest of what a pass judges of the row}: its claims and the texts of its windows (`row_windows`),
    so a change of `text.claim_sentences`, `text.split_sentences` or the windows since a pass ran shows."""
    return {row["id"]: hashlib.sha256(json.dumps([row["claims"], windows[row["id"]]]).encode()).hexdigest()[:16]
            for row in unit}


def stale_rows(unit, stored, windows, stored_digests=None):
    """The ids of the rows of `unit` whose stored values were computed on other claims or windows than the row has
    now (`windows`: `row_windows`): not one list per claim of the row as it is split now, not one value per window
    of its source as it is cut now, or (where the pass stored digests, `row_digests`) another digest than the row's
    now. Their values would be read against other text. A pass stored before digests were kept shows a change of
    the windows' number only."""
    stored_digests, digests = stored_digests or {}, row_digests(unit, windows)
    return {row["id"] for row in unit if row["id"] in stored and (
        len(stored[row["id"]]) != len(row["claims"])
        or any(len(values) != len(windows[row["id"]]) for values in stored[row["id"]])
        or (row["id"] in stored_digests and stored_digests[row["id"]] != digests[row["id"]]))}


def card_threshold(fingerprint, adapter):
    """The margin threshold that the adapter's card holds now for the dtype that computed a stored tuned pass (a
    local judge's fingerprint ends in its dtype): a card's offset can be measured again (`train_judge.py
    --measure-only`) without changing the weights or their fingerprint, so the stored P(yes) stays valid and the
    margin follows the card. A pass another adapter computed is refused: its margins would be read at this one's
    threshold (the store holds one tuned pass per unit, the last adapter run)."""
    from localjudge.learned import tuning  # torch and peft: only where an adapter is read

    judge_part, computed_with = fingerprint.split("+adapter:")
    card = tuning.shipped_adapter(adapter)
    if computed_with != card.fingerprint:
        raise SystemExit(f"the stored tuned passes were computed with adapter {computed_with}, not {adapter} "
                         f"({card.fingerprint}): run the board with --adapter naming that adapter, or without "
                         "--report to compute this one's")
    return card.offset(judge_part.rsplit(":", 1)[-1])


def at_card_threshold(values, fingerprint, adapter):
    """A stored tuned pass with its margins over the threshold of the adapter's card (`card_threshold`)."""
    threshold = card_threshold(fingerprint, adapter)
    return {row: [[window and {**window, "tuned_margin": logit(window["p_yes"]) - threshold} for window in claim]
                  for claim in claims] for row, claims in values.items()}


def save_pass(store, judge, name, unit_name, values, prompts=None, **fields):
    """Store the values `judge` computed for pass `name` on a unit, beside the fingerprints of the judge and of the
    templates (`prompts`, as `stored_pass`) and any further `fields` a board records (its judge seconds)."""
    path = store_path(store, judge.settings_key, name, unit_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"judge": judge.fingerprint, "prompts": prompts or prompts_fingerprint(), "pass": name, "unit": unit_name,
               **fields, "rows": values}
    path.write_bytes(gzip.compress(json.dumps(payload, separators=(",", ":")).encode(), mtime=0))


# ------------------------------------------------------------------ candidates: claim probabilities from stored passes
def q10_margin(signals):
    """Today's default verdict (`ALIGNMENT_Q10`) as a margin: supported when ≥ 0, its probability the sigmoid."""
    raw = sum(coefficient * signals[name] for name, coefficient in ALIGNMENT_Q10.signals.items())
    return ALIGNMENT_Q10.scale * (raw - ALIGNMENT_Q10.offset)


def claim_features(passes, row_id, claim_index, kept=None):
    """The signals of one claim, each at its best window: the yes/no margins, the likelihood signals of the window
    today's verdict picks, the margin against an empty document; with `kept` ({K: the indices of the windows BM25
    ranks first for the claim, best first}), the tuned margin of those K windows as the metric reads them too ("tuned
    topK margin": the first that supports the claim, else the best; `verdicts.item_verdict`)."""
    features = {}
    for name, value in passes.items():
        windows = value.get(row_id, [[]])[claim_index] if row_id in value else []
        if not windows:
            continue
        if name.startswith("verdict") or name == "empty":
            features[f"{name} margin"] = max(logit(p) for p in windows)
        elif name.startswith("tuned"):
            # a pass run with --pass-top-windows K holds no value at the other windows: only topk, k ≤ K, is read off it
            if all(windows):
                features["tuned margin"] = max(window["tuned_margin"] for window in windows)
            for count, indices in (kept or {}).items():
                if all(windows[index] for index in indices):
                    # as the metric reads its kept windows, best first: the first that supports the claim, else the best
                    margins = [windows[index]["tuned_margin"] for index in indices]
                    features[f"tuned top{count} margin"] = margins[item_verdict([SIGMOID(m) for m in margins], True)[1]]
        elif name.startswith("verification"):
            features["verification margin"] = max(window["yes_margin"] for window in windows)
        else:
            best = max(windows, key=lambda signals: -math.inf if math.isnan(q10_margin(signals)) else q10_margin(signals))
            features.update({"q10 margin": q10_margin(best), **{f"claim {k}": best[f"claim_{k}"] for k in ("cond_mean", "gain_mean", "gain_q10", "explained")}})
    if "verdict@160 margin" in features and "empty margin" in features:
        features["contrast"] = features["verdict@160 margin"] - features["empty margin"]
    return features


# candidates read off one feature: supported when it is ≥ 0, the claim's probability its sigmoid
SINGLE = {
    "Q10": "q10 margin", "yn96": "verdict@96 margin", "yn160": "verdict@160 margin", "yn256": "verdict@256 margin",
    "vp160": "verification margin", "contrast": "contrast", "tuned": "tuned margin",
}
CANDIDATES = {
    "Q10": "today's default, ALIGNMENT_Q10: likelihood signals after 1,024-token windows, cond_mean + gain_q10 ≥ −1.8",
    "yn96": "the judge's yes/no answer, verdict prompt (VERDICT_PROMPTS), 96-token windows, P(yes) ≥ 0.5",
    "yn160": "the same, 160-token windows",
    "yn256": "the same, 256-token windows",
    "vp160": "the judge's yes/no answer, VERIFICATION_PROMPTS, 160-token windows, P(yes) ≥ 0.5",
    "contrast": "yn160's margin log P(yes) − log P(no) less the same claim's margin against an empty document, ≥ 0",
    "logistic": "logistic model over yn160, the empty-document margin, contrast, Q10 and its likelihood signals, bigram overlap; fitted on the training units, out of unit",
    "yn160·Q10": "yn160's margin and Q10's margin, each standardised on the training units' claims, summed, ≥ 0 (no weights fitted), out of unit",
    "yn160+t": "yn160 at one margin threshold fitted on the training units (best mean BAcc), out of unit",
    "Q10+t": "Q10 at one threshold fitted on the training units, out of unit",
    "contrast+t": "contrast at one threshold fitted on the training units, out of unit",
    "vp160+t": "vp160 at one threshold fitted on the training units, out of unit",
    "tuned": "the judge fine-tuned for grounding (`--adapter`, issue 30), verification prompt, 160-token windows, margin ≥ the threshold in the adapter's card; units never trained on only",
}
# candidates that move a single-feature candidate's threshold to the one that suits the training units best
FITTED_THRESHOLD = {"yn160+t": "yn160", "Q10+t": "Q10", "contrast+t": "contrast", "vp160+t": "vp160"}
LOGISTIC_FEATURES = ("verdict@160 margin", "empty margin", "contrast", "q10 margin", "claim cond_mean", "claim gain_mean",
                     "claim gain_q10", "claim explained", "overlap")
SIGMOID = lambda x: 1 / (1 + math.exp(-max(min(x, 50), -50)))  # noqa: E731


def add_pruned_candidates(counts):
    """The candidates "tuned topK", one per K of `counts`, computed from the stored tuned pass (`claim_table`)."""
    for count in counts:
        SINGLE[f"tuned top{count}"] = f"tuned top{count} margin"
        CANDIDATES[f"tuned top{count}"] = (
            f"tuned, each claim judged against only the {count} windows BM25 ranks first for it (`Verdict.top_windows`, "
            f"`text.top_windows`; the shipped tuned verdicts keep {TUNED_TOP_WINDOWS}), read off the same pass")


def kept_windows(row, stored, documents_of, counts):
    """Per claim of `row`, {K: the indices of the K windows BM25 ranks first for it} for each K of `counts`, as the
    metric keeps them (`verdicts.preselect`); {} per claim without a stored tuned pass for the row. A stored row cut
    into other windows than the source's now never reaches here: `stale_rows` refuses it first."""
    if not counts or row["id"] not in stored:
        return [{} for _ in row["claims"]]
    documents = documents_of(row["source"])
    ranked = {count: top_windows(row["claims"], documents, count) for count in counts}
    return [{count: ranked[count][index] for count in counts} for index in range(len(row["claims"]))]


def claim_table(units, passes_of, documents_of=None, counts=()):
    """One row per claim of every unit: its features, its row's label and unit; with `counts`, the tuned pass also
    pruned to each claim's top K windows (`kept_windows`; `documents_of(source)`: the texts of its windows)."""
    lines = []
    for unit_name, unit in units.items():
        passes = passes_of(unit_name)
        tuned = passes.get("tuned@160", {})
        # a pass run with --pass-top-windows judged every window of a short source only: no 'tuned' on part of a unit
        pruned = any(window is None for claims in tuned.values() for windows in claims for window in windows)
        for row in unit:
            kept = kept_windows(row, tuned, documents_of, counts)
            for index, claim in enumerate(row["claims"]):
                overlap = ngram_precision(claim, row["source"], 2)  # NaN for a claim of one word (or a Chinese one): no pair
                features = claim_features(passes, row["id"], index, kept[index])
                if pruned:
                    features.pop("tuned margin", None)
                lines.append({"unit": unit_name, "group": row["group"], "row": row["id"], "claim": index, "label": row["label"],
                              "overlap": 0.0 if math.isnan(overlap) else overlap, **features})
    return pd.DataFrame(lines)


def fitting_claims(frame):
    """Claims with a label to fit on: all claims of a supported row; of an unsupported row, the claim the 160-token
    yes/no verdict finds least supported (one error makes a summary unfaithful)."""
    supported = frame[frame.label == 1]
    worst = frame[frame.label == 0].sort_values("verdict@160 margin").groupby("row", sort=False).head(1)
    return pd.concat([supported, worst])


def fit_logistic(frame):
    data = fitting_claims(frame).dropna(subset=list(LOGISTIC_FEATURES))
    weights = 1.0 / data.groupby("unit")["unit"].transform("size")  # every training unit weighs the same
    scaler = StandardScaler().fit(data[list(LOGISTIC_FEATURES)])
    model = LogisticRegression(class_weight="balanced", max_iter=2000).fit(
        scaler.transform(data[list(LOGISTIC_FEATURES)]), data.label, sample_weight=weights)

    def predict(rows):
        """The model's margin for each claim with every feature measured, NaN (not measured) for the others."""
        data = rows[list(LOGISTIC_FEATURES)]
        complete = data.notna().all(axis=1).to_numpy()
        margins = np.full(len(rows), np.nan)
        if complete.any():
            margins[complete] = model.decision_function(scaler.transform(data[complete]))
        return margins

    return predict


def fit_standard_sum(frame, features=("verdict@160 margin", "q10 margin")):
    """The sum of `features`, each centred and scaled by its mean and spread over the claims of `frame`."""
    data = frame.dropna(subset=list(features))
    scaler = StandardScaler().fit(data[list(features)])
    return lambda rows: scaler.transform(rows[list(features)]).sum(axis=1)


def fit_offset(frame, feature):
    """The threshold on `feature` with the best mean row BAcc over the units of `frame` (one threshold for all). Each
    unit's BAcc at every threshold at once: the numbers of sklearn's `balanced_accuracy_score` (the mean of the two
    labels' recalls), without its checks on every call, which made a report of the whole board take 20 minutes."""
    thresholds = np.linspace(-6, 6, 241)
    rows = frame.groupby(["unit", "row"]).agg(low=(feature, "min"), label=("label", "first")).reset_index()
    per_unit = []
    for _, part in rows.groupby("unit"):
        if part.label.nunique() == 2:
            called = part.low.to_numpy()[None, :] >= thresholds[:, None]
            supported = part.label.to_numpy() == 1
            per_unit.append((called[:, supported].sum(1) / supported.sum() + (~called[:, ~supported]).sum(1) / (~supported).sum()) / 2)
    # the first threshold of the best mean, as `max` over the thresholds in order picked it
    return float(thresholds[np.argmax(np.mean(per_unit, axis=0))])


def candidate_values(frame):
    """{candidate: per claim raw value (supported when ≥ 0)}; fitted candidates out of unit (training units with a
    fit on the other training units, every other unit with a fit on all of them)."""
    values = {name: frame[feature] for name, feature in SINGLE.items() if feature in frame}
    training = frame.group == "training"
    if not training.any() or any(feature not in frame for feature in LOGISTIC_FEATURES):
        return values
    logistic = pd.Series(np.nan, index=frame.index)
    standard_sum = pd.Series(np.nan, index=frame.index)
    shifted = {name: pd.Series(np.nan, index=frame.index) for name, single in FITTED_THRESHOLD.items() if SINGLE[single] in frame}
    for unit in [None, *frame[training].unit.unique()]:
        fit_rows = frame[training & (frame.unit != unit)]
        target = (frame.unit == unit) if unit else ~training
        logistic[target] = fit_logistic(fit_rows)(frame[target])
        standard_sum[target] = fit_standard_sum(fit_rows)(frame[target])
        for name in shifted:
            feature = SINGLE[FITTED_THRESHOLD[name]]
            shifted[name][target] = frame.loc[target, feature] - fit_offset(fit_rows, feature)
    values["logistic"] = logistic
    values["yn160·Q10"] = standard_sum
    return {**values, **shifted}


def shipped_thresholds(frame):
    """The thresholds of the `FITTED_THRESHOLD` candidates fitted on every training unit: what a default would ship."""
    training = frame[frame.group == "training"]
    return {name: fit_offset(training, SINGLE[single]) for name, single in FITTED_THRESHOLD.items() if SINGLE[single] in frame}


# ------------------------------------------------------------------ the board
# units of pairs (unit → the suffixes of a pair's supported and unsupported row ids), counted as pairs too
PAIRED_UNITS = {"plain": ("faithful", "wrong"), f"speakers={PROBED_FILE}": ("faithful", "traded"),
                "phrases=plain": ("faithful", "swapped")}


def balanced_accuracy_error(labels, calls) -> float:
    """The standard error of a balanced accuracy: half the root of the two rates' binomial variances, each rate
    read plus two (one success and one failure added, Agresti and Caffo), so that a unit with two supported rows,
    both called supported, is not read as exact (a news set is whole, not balanced: FRANK XSum has 2 of 48)."""
    labels, calls = np.asarray(labels, dtype=bool), np.asarray(calls, dtype=bool)
    variance = 0.0
    for rows_of_label in (labels, ~labels):
        right, count = int((calls == labels)[rows_of_label].sum()), int(rows_of_label.sum())
        rate = (right + 1) / (count + 2)
        variance += rate * (1 - rate) / (count + 2)
    return 0.5 * math.sqrt(variance)


def unit_measures(rows):
    hard, soft = rows.low >= 0, rows.soft
    line = {"rows": len(rows), "supported rows": int(rows.label.sum()),
            "labelled supported": round(float(rows.label.mean()), 3), "called supported": round(float(hard.mean()), 3)}
    two = rows.label.nunique() == 2
    line["BAcc"] = round(float(balanced_accuracy_score(rows.label, hard)), 3) if two else math.nan
    line["BAcc SE"] = round(balanced_accuracy_error(rows.label, hard), 3) if two else math.nan
    line["AUC"] = round(float(roc_auc_score(rows.label, soft)), 3) if two else math.nan
    return line


def board(units, frame):
    """(long table: unit × candidate → rows, BAcc, AUC, called supported; overlap AUC per unit; plain pairs table)."""
    values = candidate_values(frame)
    lines, pairs = [], []
    summaries = {(name, row["id"]): row for name, unit in units.items() for row in unit}
    for candidate, raw in values.items():
        claims = frame.assign(raw=raw, p=[SIGMOID(x) if not math.isnan(x) else math.nan for x in raw])
        claims = claims[claims.raw.notna()]
        per_row = claims.groupby(["unit", "row"]).agg(low=("raw", "min"), soft=("p", "mean"), label=("label", "first")).reset_index()
        for unit, rows in per_row.groupby("unit"):
            line = {"candidate": candidate, "unit": unit, "group": units[unit][0]["group"], **unit_measures(rows)}
            if "score" in units[unit][0]:  # a graded label beside the binary one (SummEval, summeval_op)
                scores = [summaries[unit, row]["score"] for row in rows.row]
                line["Spearman"] = round(float(spearmanr(rows.soft, scores).statistic), 3)
            lines.append(line)
        for unit_name in PAIRED_UNITS:
            paired = per_row[per_row.unit == unit_name].set_index("row")
            for pair_id in sorted({row["pair"] for row in units.get(unit_name, [])}):
                faithful, wrong = (f"{pair_id}/{kind}" for kind in PAIRED_UNITS[unit_name])
                if faithful in paired.index and wrong in paired.index:
                    pairs.append({"candidate": candidate, "unit": unit_name, "language": summaries[unit_name, faithful]["language"],
                                  "both right": paired.low[faithful] >= 0 and paired.low[wrong] < 0,
                                  "soft rank": paired.soft[faithful] > paired.soft[wrong]})
    overlap = {}
    for unit_name, unit in units.items():
        labels = [row["label"] for row in unit]
        scores = [ngram_precision(row["summary"], row["source"], 2) for row in unit]
        scores = [0.0 if math.isnan(s) else s for s in scores]
        overlap[unit_name] = round(float(roc_auc_score(labels, scores)), 3) if len(set(labels)) == 2 else math.nan
    return pd.DataFrame(lines), overlap, pd.DataFrame(pairs)


def print_board(table, overlap, pairs):
    order = sorted(table.unit.unique(), key=lambda unit: (GROUPS.index(table[table.unit == unit].group.iloc[0]), unit))
    columns = [name for name in CANDIDATES if name in set(table.candidate)]
    print("Candidates:\n" + "\n".join(f"* `{name}`: {CANDIDATES[name]}" for name in columns))

    def wide(measure):
        frame = table.pivot(index="unit", columns="candidate", values=measure).loc[order, columns]
        frame.insert(0, "rows", table.groupby("unit").rows.max().loc[order])
        return frame

    # a unit's candidates can read samples of different sizes (a pass run on fewer rows): the largest sample's labels
    labelled = table.sort_values("rows").groupby("unit")[["supported rows", "labelled supported"]].last().loc[order]
    print("\n## Hard BAcc (a row is supported when every claim is: alignment = 1), per unit\n")
    hard = wide("BAcc")
    hard.insert(1, "supported rows", labelled["supported rows"])
    print(hard.to_markdown(floatfmt=".3f"))
    print("\n## Standard error of the hard BAcc, per unit (binomial, each rate read plus two: `balanced_accuracy_error`)\n")
    print(wide("BAcc SE").to_markdown(floatfmt=".3f"))
    auc = wide("AUC")
    auc["overlap"] = [overlap[unit] for unit in order]
    print("\n## Soft AUC (the mean claim probability), per unit; `overlap`: word-bigram precision of the summary\n")
    print(auc.to_markdown(floatfmt=".3f"))
    print("\n## Share called supported, per unit; `labelled`: the share the labels call supported\n")
    called = wide("called supported")
    called.insert(1, "labelled", labelled["labelled supported"])
    print(called.to_markdown(floatfmt=".2f"))
    summary = []
    for candidate in columns:
        part = table[(table.candidate == candidate) & (table.group != "probe")]  # a probe is not a kind of text
        never = part[part.group != "training"]
        line = {
            "candidate": candidate, "units": len(part), "mean BAcc": part.BAcc.mean(), "lowest BAcc": part.BAcc.min(),
            "mean BAcc, units never fitted on": never.BAcc.mean(), "lowest of those": never.BAcc.min(),
            "mean AUC": part.AUC.mean(),
            "AUC > overlap": f"{sum(part.AUC.values > np.array([overlap[u] for u in part.unit]))}/{len(part)}",
            "called 30-70 %": f"{sum(part['called supported'].between(0.3, 0.7))}/{len(part)}",
            # the same band read against each unit's own labels: a news set is whole, not balanced (FRANK XSum 4 %)
            "called within 0.2 of labelled": f"{sum((part['called supported'] - part['labelled supported']).abs() <= 0.2)}/{len(part)}",
        }
        mine = pairs[(pairs.candidate == candidate) & (pairs.unit == "plain")] if len(pairs) else pairs
        if len(mine):
            line.update({"plain both right": mine["both right"].mean(), "plain soft rank": mine["soft rank"].mean()})
        summary.append(line)
    print("\n## Summary over units (a training unit is measured with fitted parts that never saw it)\n")
    print(pd.DataFrame(summary).sort_values("mean BAcc", ascending=False).to_markdown(index=False, floatfmt=".3f"))
    for unit, label in (("news=summeval", "SummEval, Spearman of the soft score with consistency"),
                        ("llm=summeval_op", "LLM-written review summaries, Spearman of the soft score with faithfulness")):
        if "Spearman" in table and unit in set(table.unit):
            spearman = table[table.unit == unit].set_index("candidate").Spearman.reindex(columns)
            print(f"\n{label}: " + ", ".join(f"{name} {value:.3f}" for name, value in spearman.items()))
    plain = pairs[pairs.unit == "plain"] if len(pairs) else pairs
    if len(plain):
        print("\n## Plain pairs per language: both right / soft rank, of the pairs\n")
        counts = plain.groupby(["candidate", "language"])[["both right", "soft rank"]].sum().astype(int)
        sizes = plain.groupby(["candidate", "language"]).size()
        cells = (counts["both right"].astype(str) + " / " + counts["soft rank"].astype(str) + " of " + sizes.astype(str))
        print(cells.unstack("language").reindex(columns).to_markdown())
    probe = pairs[pairs.unit != "plain"] if len(pairs) else pairs
    if len(probe):
        print("\n## Who did what: a supported summary against the same with one sentence's speakers (a chat) or noun "
              "phrases (prose) traded (group probe, not in the summary above)\n")
        per_unit = probe.groupby(["unit", "candidate"])
        shares = per_unit[["both right", "soft rank"]].mean().assign(pairs=per_unit.size())
        print(shares.reindex(columns, level="candidate").dropna().to_markdown(floatfmt=".3f"))


def throughput(judge, rows: int, repeats: int = 2):
    """Rows/s of `summarization_score` (evaluate, cache off, default options) on `throughput.py`'s workload with
    today's alignment verdict and with the 160-token yes/no one, in one run, each timed `repeats` times in turn."""
    import evaluate
    from throughput import REPO, columns, summary_row

    metric = evaluate.load(str(REPO / "summarization_score"))
    data = columns([summary_row(index) for index in range(rows)])
    verdicts = {"Q10": ALIGNMENT_Q10, "yn160": Verdict("probability", window_tokens=160)}
    seconds = defaultdict(list)
    for _ in range(repeats):
        for name, setting in verdicts.items():
            started = time.perf_counter()
            metric.compute(**data, judge=judge, settings={"alignment": setting}, cache=False, progress=False)
            seconds[name].append(time.perf_counter() - started)
    rates = {name: rows / min(values) for name, values in seconds.items()}
    print(f"## Throughput, summarization_score, {rows} rows of benchmarks/throughput.py's workload, cache off, "
          f"{judge.model.dtype}, the faster of {repeats} runs\n")
    print("\n".join(f"* {name}: {rate:.3f} rows/s ({rate / rates['Q10']:.2f}x today's)" for name, rate in rates.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", default=DEFAULT_JUDGE)
    parser.add_argument("--passes", nargs="+", default=list(PASSES), choices=list(PASSES))
    parser.add_argument("--groups", nargs="+", default=list(GROUPS), choices=GROUPS, help="unit groups to run passes on")
    parser.add_argument("--units", nargs="+", default=None, metavar="UNIT",
                        help="run passes on these units of --groups only (e.g. file=climate_fever; podcast's long rows "
                             "can then take a session of their own)")
    parser.add_argument("--per-held-out", type=int, default=60, help="balanced rows per held-out unit")
    parser.add_argument("--per-training", type=int, default=40, help="balanced rows per training unit")
    parser.add_argument("--per-news", type=int, default=40, help="balanced rows per news set (0: all)")
    parser.add_argument("--per-llm", type=int, default=120, help="balanced rows of LLM-written summaries")
    parser.add_argument("--store", default=str(STORE))
    parser.add_argument("--adapter", default=DEFAULT_JUDGE, help="the tuned pass's adapter: a judge's name (its shipped one) or a file")
    parser.add_argument("--report", action="store_true", help="print the board from stored passes, run nothing")
    parser.add_argument("--throughput", type=int, metavar="ROWS", help="time summarization_score with each verdict instead")
    parser.add_argument("--pass-top-windows", type=int, default=0, metavar="K",
                        help="a tuned pass run now judges each claim against only the K windows BM25 ranks first for it "
                             "(a long unit in a fifth of the time): the board then reads 'tuned topk', k ≤ K, off it, "
                             "and not 'tuned' (every window)")
    parser.add_argument("--top-windows", type=int, nargs="*", default=[TUNED_TOP_WINDOWS], metavar="K",
                        help="add the candidates 'tuned topK': the tuned pass, each claim judged against the K windows BM25 "
                             "ranks first for it only (none: leave them out)")
    args = parser.parse_args()
    add_pruned_candidates(args.top_windows)
    if args.throughput:
        return throughput(load_judge(args.judge), args.throughput)

    found = {**devset_unit_rows(args.per_news), **train_unit_rows(args.per_held_out, args.per_training),
             **llm_unit_rows(args.per_llm)}
    units = dict(sorted(found.items(), key=lambda item: GROUPS.index(item[1][0]["group"])))
    if unknown := sorted(set(args.units or ()) - set(units)):
        parser.error(f"no unit {', '.join(unknown)}; the units are {', '.join(units)}")
    key = args.judge if args.report else None
    judge = None
    if not args.report:
        judge = load_judge(args.judge)
        key = judge.settings_key
        for name in args.passes:
            computing = pass_judge(judge, args.adapter if name.startswith("tuned") else None)
            for unit_name, unit in units.items():
                if unit[0]["group"] not in args.groups or unit_name not in (args.units or units):
                    continue
                payload = stored_payload(args.store, key, name, unit_name) or {}
                # a tuned pass stored for another adapter is run again
                if name.startswith("tuned") and payload.get("judge") != computing.fingerprint:
                    payload = {}
                # digests are absent from passes stored before they were kept
                stored, kept = payload.get("rows", {}), payload.get("digests", {})
                windows = row_windows(judge, name, unit)
                stale = stale_rows(unit, stored, windows, kept)
                missing = [row for row in unit if row["id"] not in stored or row["id"] in stale]
                if missing:
                    print(f"pass {name} on {unit_name} ({len(missing)} of {len(unit)} rows)", flush=True)
                    judged = run_pass(judge, name, missing, args.adapter, args.pass_top_windows if name.startswith("tuned") else 0)
                    digests = row_digests(unit, windows)
                    save_pass(args.store, computing, name, unit_name, {**stored, **judged},
                              digests={**kept, **{row: digests[row] for row in {*stored, *judged} if row in digests}})

    computed_by = set()

    def passes_of(unit_name):
        nonlocal judge
        payloads = {name: stored_payload(args.store, key, name, unit_name) for name in PASSES}
        found = {name: (payload["rows"], payload["judge"]) if payload else (None, None) for name, payload in payloads.items()}
        for name, payload in payloads.items():
            if not (payload and payload["rows"]):
                continue
            judge = judge or load_judge(args.judge)
            windows = row_windows(judge, name, units[unit_name])
            if stale := stale_rows(units[unit_name], payload["rows"], windows, payload.get("digests")):
                raise SystemExit(f"pass {name} on {unit_name}: rows {', '.join(sorted(stale))} were judged on other claims "
                                 "or windows than they have now: run the board without --report to judge them again")
        computed_by.update(fingerprint for _, fingerprint in found.values() if fingerprint)
        values, fingerprint = found["tuned@160"]
        if values is not None:
            found["tuned@160"] = (at_card_threshold(values, fingerprint, args.adapter), fingerprint)
        return {name: values for name, (values, _) in found.items() if values is not None}

    def documents_of(source):
        """The texts of the windows of `source` (the judge's tokenizer counts their tokens: loaded once, on use)."""
        nonlocal judge
        judge = judge or load_judge(args.judge)
        return window_documents(judge, source, PASSES["tuned@160"])

    claims = claim_table(units, passes_of, documents_of, args.top_windows)
    table, overlap, pairs = board(units, claims)
    print(f"# Verdict board, judge {key} (passes computed as {', '.join(sorted(computed_by))})\n")
    print_board(table, overlap, pairs)
    print("\nThresholds fitted on all training units (margins; the held-out, news and plain units are measured with these): "
          + ", ".join(f"{name} {value:+.2f}" for name, value in shipped_thresholds(claims).items()))


if __name__ == "__main__":
    main()
