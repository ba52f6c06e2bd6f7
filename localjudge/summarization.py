"""Summarization score pipeline: units → batched verdicts → Ragas and Mastra scores per row.

Per row:
1. Ragas path: closed questions about the source (`text = "\\n".join(contexts)`) are answered from the
   summary alone → `qa_score` (yes / asked), plus character-length conciseness weighted by `coeff`.
2. Mastra path: claims of the summary are judged against the source → `alignment_score`; the same
   questions give `coverage_score` (answered / asked); `final="min"` → min(alignment, coverage) · scale.

Units come from sentences (`extraction="sentences"`: each source sentence becomes the question "does the
text state that …", each summary sentence a claim) or, for judges that follow instructions, from generation
(`extraction="generate"`: keyphrases → questions, claims), falling back to sentences when the output does not
parse. All verdicts of all rows go through the judge in one batched pass per task.
"""

import logging
import math

from . import keyfacts, maths
from .judges.base import take_failures
from .prompts import GENERATION_PROMPTS, PROMPT_VERSION, REASON, SENTENCE_QUESTION
from .settings import resolve_settings, settings_label
from .text import (
    claim_sentences, clean, closest_sentence, laid_out, parse_list, quote, source_lines, source_sentences,
    source_windows, without_reasoning,
)
from .verdicts import judge_items, judge_settings

logger = logging.getLogger(__name__)

FINALS = ("ragas", "min")
EXTRACTIONS = ("sentences", "generate")
# which source sentences become the questions (`keyfacts`): the lead (default; news puts its key facts first) or the
# most central sentences by LexRank (opt-in; measured on the coverage board, docs/benchmarks.md)
KEY_FACTS = {"lead": keyfacts.lead_sentences, "central": keyfacts.central_sentences}
# generated questions kept by default (Mastra's `maxQuestions`); sentence questions: `keyfacts.question_count`
GENERATED_QUESTIONS = 10
# tokens kept free in the judge's window for instructions and the item under judgement
PROMPT_RESERVE_TOKENS = 512
# CPU attention over longer texts is slow and memory-hungry: a longer summary, or a source given to generation,
# is truncated with a warning (claims are judged against windows of the source, which is never cut)
MAX_SOURCE_TOKENS = 8192


def as_contexts(value):
    """A row's contexts as a list of strings (a plain string is one context)."""
    return [value] if isinstance(value, str) else value


def check_columns(chunk_lists=False, **columns):
    """One value per row in every column (`None`: a column not given), or an error that says what to pass: a string
    where a list of rows goes (read as a row a character otherwise: for one row, `summary=["…"]`), one row's chunks
    as a flat list of strings (where each row's contexts is a list of chunks, `chunk_lists`, or where the strings
    outnumber the rows: for one row, `contexts=[[chunk, chunk]]`), columns of different lengths."""
    given = {name: values for name, values in columns.items() if values is not None}
    for name, values in given.items():
        if isinstance(values, str):
            shown = values if len(values) <= 40 else values[:40] + "…"
            raise TypeError(f"{name} is one string, not a list with a {name} for each row: for one row, pass {name}=[{shown!r}]")
    lengths = {name: len(values) for name, values in given.items()}
    contexts, rows = given.get("contexts"), min((length for name, length in lengths.items() if name != "contexts"), default=0)
    if (isinstance(contexts, (list, tuple)) and contexts and all(isinstance(chunk, str) for chunk in contexts)
            and (chunk_lists or len(contexts) > rows)):
        raise TypeError(
            f"contexts holds {len(contexts)} strings for {rows} row(s), not a list of chunks for each row: for one "
            "row, pass contexts=[[chunk, chunk, …]]"
        )
    if len(set(lengths.values())) > 1:
        raise ValueError(f"Columns have different lengths {lengths}; pass one value per row in every column.")


def source_budget(judge) -> int:
    return min(judge.context_window, MAX_SOURCE_TOKENS) - PROMPT_RESERVE_TOKENS


def fit_source(judge, text: str, row: dict, what: str, budget: int = None):
    """`text` cut to the judge's window; the cut is recorded as a warning on the row and logged."""
    kept, dropped = judge.truncate(text, budget or source_budget(judge))
    if dropped:
        message = f"{what} truncated to the judge's window: {dropped} of {len(text)} characters dropped"
        row["warnings"].append(message)
        logger.warning("Row %d: %s", row["row"], message)
    return kept


def window_ranges(judge, sentences, settings=None):
    """The (first, end) sentence ranges of the windows a claim is judged against (`text.source_windows`), each
    within the judge's context window. Every claim of a row shares each window's prefix, so the engine runs it
    once per window."""
    size = min(judge_settings(judge, "alignment", settings).window_tokens, source_budget(judge))
    return source_windows(sentences, judge.count_tokens, size)


def source_units(judge, source: str, settings=None) -> dict:
    """What a row's claims are judged against: the source's sentences, the windows over them and each window's
    text (built once per row; every claim of the row is judged against these windows, or against those of them
    that its verdict's `top_windows` keeps for it: `verdicts.preselect`). `source` is the text as `text.read_source`
    reads it (a chat's or a meeting's export as its turns, a hard-wrapped text as its paragraphs): `_read_row` reads
    a row's once, for this and for its questions and conciseness."""
    sentences = source_sentences(source)
    windows = window_ranges(judge, sentences, settings)
    documents = [" ".join(sentences[first:end]) for first, end in windows]
    return {"source_sentences": sentences, "windows": windows, "documents": documents}


def _new_row(index):
    return {"row": index, "error": None, "warnings": [], "keyphrases": [], "questions": [], "claims": []}


def nothing_stated(field, text):
    """The error of a row whose `field` holds only what `text.claim_sentences` sets aside."""
    return f"the {field} {text[:40]!r} states nothing, only layout (list marks, rules or citations): pass the {field}'s text"


def _read_row(index, summary, contexts):
    """(row record, summary, source text as read) with `error` set when the row cannot be scored."""
    row = _new_row(index)
    contexts = as_contexts(contexts)
    written = clean(summary) if isinstance(summary, str) else ""
    # what a reasoning model thought before its reply is no part of the summary: not its claims, not the text that
    # answers the source's questions, not its length
    summary = without_reasoning(written)
    chunks_are_text = isinstance(contexts, list) and all(isinstance(c, str) for c in contexts)
    given = clean("\n".join(contexts)) if chunks_are_text else ""
    # a web page is read as its text, an exported chat or meeting as its turns, without the timings and message times
    # its app added, a hard-wrapped text (a PDF's) as its paragraphs, markdown without its layout (`text.read_source`):
    # the same text scores the same, whichever app it came from, its length too. Whether it is a dialogue is read
    # from its lines before their layout: a heading joined to its section's first line reads as a turn
    lines = source_lines(given)
    source = laid_out(lines)
    row["question_count"] = keyfacts.question_count(lines)
    if not written:
        row["error"] = "empty or missing summary: pass a non-empty string"
    elif not summary:
        row["error"] = (f"the summary {written[:40]!r} holds only a reasoning model's thoughts (<think>…</think>): pass "
                        "its reply after them")
    elif not claim_sentences(summary):
        row["error"] = nothing_stated("summary", summary)
    elif not given:
        row["error"] = "empty or missing contexts: pass the source text as a non-empty list of strings"
    elif not source:
        row["error"] = (f"the contexts {given[:40]!r} hold no words once read, only markup or a subtitle file's timings: "
                        "pass the text of the page or of its cues")
    return row, summary, source


def _generated_units(judge, rows, sources, summaries, max_questions, batch_size, cache, progress):
    """Keyphrases → questions for each source and claims for each summary, by generation."""

    sources = [fit_source(judge, source, row, "source given to generation") for row, source in zip(rows, sources)]

    def generate(template, texts):
        prompts = [judge.render(GENERATION_PROMPTS[template].format(**fields)) for fields in texts]
        return judge.generate(prompts, max_new_tokens=256, batch_size=batch_size, cache=cache, progress=progress)

    quoted_sources = [quote(judge.sanitize(s), "text") for s in sources]
    keyphrase_outputs = generate("keyphrases", [{"text": s} for s in quoted_sources])
    keyphrases = [parse_list(output, "keyphrases")[0] for output in keyphrase_outputs]
    question_outputs = generate(
        "questions", [{"text": s, "keyphrases": ", ".join(k)} for s, k in zip(quoted_sources, keyphrases)]
    )
    claim_outputs = generate("claims", [{"summary": quote(judge.sanitize(s), "summary")} for s in summaries])
    for row, phrases, question_output, claim_output in zip(rows, keyphrases, question_outputs, claim_outputs):
        row["keyphrases"] = phrases
        questions, error = parse_list(question_output, "questions")
        if error:
            row["warnings"].append(f"question generation failed ({error}); used source sentences")
            questions = None
        claims, error = parse_list(claim_output, "claims")
        if error:
            row["warnings"].append(f"claim generation failed ({error}); used summary sentences")
            claims = claim_sentences(row["summary"])
        row["questions"] = (
            [{"question": q, "fact": q} for q in questions[:max_questions]]
            if questions
            else _sentence_questions(row, max_questions)
        )
        row["claims"] = [{"claim": c} for c in claims]


def _sentence_questions(row, max_questions, key_facts="lead"):
    """Source sentences as closed questions: the lead ones (news puts the key facts first), or with
    `key_facts="central"` the most central ones (`keyfacts.central_sentences`), in source order."""
    facts = keyfacts.asked_facts(row["source_sentences"], KEY_FACTS[key_facts], max_questions)
    return [{"question": SENTENCE_QUESTION.format(sentence=fact), "fact": fact} for fact in facts]


def _sentence_units(row, max_questions, key_facts="lead"):
    row["questions"] = _sentence_questions(row, max_questions, key_facts)
    row["claims"] = [{"claim": c} for c in claim_sentences(row["summary"])]


def _reason(row, score):
    unsupported = [c for c in row["claims"] if not c["supported"]]
    uncovered = [q["question"] for q in row["questions"] if not q["answered"]]
    claims, questions = len(row["claims"]), len(row["questions"])
    if unsupported:
        quoted = "; ".join(REASON["claim"].format(**claim) for claim in unsupported)
        alignment_part = REASON["misaligned"].format(unsupported=len(unsupported), total=claims, claims=quoted)
    else:
        alignment_part = REASON["aligned"].format(total=claims)
    if uncovered:
        quoted = "; ".join(f'"{q}"' for q in uncovered)
        coverage_part = REASON["uncovered"].format(uncovered=len(uncovered), total=questions, questions=quoted)
    else:
        coverage_part = REASON["covered"].format(total=questions)
    return REASON["summary"].format(score=score, alignment_part=alignment_part, coverage_part=coverage_part)


def score_summaries(
    judge,
    summaries,
    contexts,
    length_penalty=True,
    coeff=0.5,
    final="ragas",
    scale=1.0,
    max_questions=None,
    extraction="sentences",
    soft=False,
    settings=None,
    batch_size=None,
    cache=True,
    progress=None,
    key_facts="lead",
):
    """One result dict per row (scores, units with their verdict probabilities, reason, error, warnings).

    `max_questions=None` asks about the source's first 3 sentences with sentence units (the lead of a news text
    holds its key facts; more sentences agreed less with human relevance ratings on the dev set), its first 10
    when the source is a dialogue (`keyfacts.question_count`: a chat's key content is spread over its turns), and
    at most 10 generated questions (Mastra's default) with `extraction="generate"`. `soft=True` makes the QA, alignment
    and coverage scores mean verdict probabilities instead of the share of verdicts ≥ 0.5. `settings`: verdict
    settings ({task: Verdict}, e.g. from `localjudge.calibrate`) instead of the judge's shipped ones.
    `key_facts="central"` asks about the source's most central sentences (LexRank) instead of its first ones.
    """
    maths.check_coeff(coeff)
    if key_facts not in KEY_FACTS:
        raise ValueError(f"key_facts must be one of {tuple(KEY_FACTS)}, got {key_facts!r}.")
    if final not in FINALS:
        raise ValueError(f"final must be one of {FINALS}, got {final!r}.")
    if extraction not in EXTRACTIONS:
        raise ValueError(f"extraction must be one of {EXTRACTIONS}, got {extraction!r}.")
    if max_questions is not None and not 1 <= max_questions <= 100:
        raise ValueError(f"max_questions must be between 1 and 100, got {max_questions}.")
    check_columns(summary=summaries, contexts=contexts)
    settings = resolve_settings(settings)

    label = settings_label(judge, settings)
    rows, scorable = [], []
    for index, (summary, row_contexts) in enumerate(zip(summaries, contexts)):
        row, summary_text, source_text = _read_row(index, summary, row_contexts)
        row["verdict_settings"] = label
        rows.append(row)
        if row["error"] is None:
            row["text"] = source_text
            row["summary"] = fit_source(judge, summary_text, row, "summary")
            row["source"] = source_text
            row.update(source_units(judge, row["source"], settings))
            scorable.append(row)

    if extraction == "generate":
        _generated_units(
            judge,
            scorable,
            [r["source"] for r in scorable],
            [r["summary"] for r in scorable],
            max_questions or GENERATED_QUESTIONS,
            batch_size,
            cache,
            progress,
        )
    else:
        for row in scorable:
            _sentence_units(row, max_questions or row["question_count"], key_facts)

    claim_items = [(row, claim) for row in scorable for claim in row["claims"]]
    question_items = [(row, question) for row in scorable for question in row["questions"]]
    claim_verdicts = judge_items(
        judge,
        "alignment",
        [{"document": row["documents"], "claim": claim["claim"]} for row, claim in claim_items],
        settings=settings,
        batch_size=batch_size,
        cache=cache,
        progress=progress,
    )
    question_verdicts = judge_items(
        judge,
        "coverage",
        [{"summary": row["summary"], **question} for row, question in question_items],
        settings=settings,
        batch_size=batch_size,
        cache=cache,
        progress=progress,
    )
    for (row, claim), (probability, window) in zip(claim_items, claim_verdicts):
        first, end = row["windows"][window]
        evidence = closest_sentence(claim["claim"], row["source_sentences"][first:end])
        claim.update(p_yes=probability, supported=maths.is_yes(probability), evidence=evidence)
    for (row, question), (probability, _) in zip(question_items, question_verdicts):
        question.update(p_yes=probability, answered=maths.is_yes(probability))
    failures = take_failures(judge)
    for row in scorable:
        unjudged = sum(math.isnan(unit["p_yes"]) for unit in row["claims"] + row["questions"])
        if unjudged and failures:  # the judge failed them (a served judge's server): the row is not scored
            row["error"] = f"the judge returned no verdict for {unjudged} items ({failures})"
        elif unjudged:
            row["warnings"].append(f"the judge returned no verdict for {unjudged} items: counted as not supported")

    for row in rows:
        if row["error"]:
            row.update(
                score=maths.NAN,
                qa_score=maths.NAN,
                conciseness_score=maths.NAN,
                alignment_score=maths.NAN,
                coverage_score=maths.NAN,
                reason=f"Not scored: {row['error']}.",
            )
            continue
        question_p = [q["p_yes"] for q in row["questions"]]
        asked = len(row["questions"])
        row["qa_score"] = maths.fraction_yes(question_p, asked, soft)
        row["conciseness_score"] = maths.conciseness_score(row["summary"], row["text"])
        row["alignment_score"] = maths.alignment_score([c["p_yes"] for c in row["claims"]], soft)
        row["coverage_score"] = maths.coverage_score(question_p, asked, soft)
        if final == "ragas":
            row["score"] = maths.ragas_summary_score(row["qa_score"], row["conciseness_score"], length_penalty, coeff)
        else:
            row["score"] = maths.min_score(row["alignment_score"], row["coverage_score"], scale)
        row["reason"] = _reason(row, row["score"])
    return rows


DETAIL_FIELDS = ("keyphrases", "questions", "claims", "reason", "error", "warnings")


def dataset_result(metric_name, rows, confidence_level=None):
    """{metric_name: mean over scored rows, "scores": per row} and the number of failed rows (logged).

    With a `confidence_level`, also `{metric_name}_ci`: the bootstrap interval of that mean, from the per-row
    scores (the judge does not run again).
    """
    scores = [row["score"] for row in rows]
    mean, failed = maths.mean_of_scored(scores)
    if failed:
        logger.warning("%d of %d rows could not be scored (NaN, excluded from the mean); see details", failed, len(rows))
    output = {metric_name: mean}
    if confidence_level is not None:
        output[f"{metric_name}_ci"] = maths.bootstrap_ci(scores, confidence_level)
        if len(rows) - failed < 2:
            logger.warning("%s_ci is (NaN, NaN): an interval needs at least 2 scored rows", metric_name)
    output["scores"] = scores
    return output, failed


def summarization_output(rows, return_details=False, confidence_level=None):
    """The metric's result dict: dataset mean over scored rows (with its confidence interval when a
    `confidence_level` is given), per-row lists, failures counted."""
    output, failed = dataset_result("summarization_score", rows, confidence_level)
    output.update(
        qa_scores=[row["qa_score"] for row in rows],
        conciseness_scores=[row["conciseness_score"] for row in rows],
        alignment_scores=[row["alignment_score"] for row in rows],
        coverage_scores=[row["coverage_score"] for row in rows],
        num_failed=failed,
    )
    if return_details:
        output["details"] = [{field: row[field] for field in DETAIL_FIELDS} for row in rows]
        output["prompt_version"] = PROMPT_VERSION
        output["verdict_settings"] = rows[0]["verdict_settings"] if rows else None
    return output
