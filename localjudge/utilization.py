"""Context utilization pipeline: per-chunk usefulness verdicts → average precision per row.

For every chunk of every row the judge gives the probability that the chunk was useful in arriving at the
answer to the question (all chunks of all rows in one batched pass). Verdict v_k = probability ≥ 0.5;
score = Σ_k precision@k · v_k / Σ_k v_k, 0.0 when no chunk is useful. `soft=True` uses the probabilities
themselves as v_k; `ragas_compat=True` adds Ragas' 1e-10 to the denominator.
"""

import math

from . import maths
from .judges.base import take_failures
from .prompts import PROMPT_VERSION
from .settings import resolve_settings, settings_label
from .summarization import check_columns, dataset_result, fit_source, nothing_stated, source_budget
from .text import answer_text, clean, read_source
from .verdicts import verdict_probabilities


def _read_row(index, question, answer, contexts):
    """(row record, the answer's text as the judge reads it: `text.answer_text`) with `error` set when the row cannot
    be scored."""
    row = {"row": index, "error": None, "warnings": [], "chunks": []}
    text = answer_text(answer) if isinstance(answer, str) else ""
    if not isinstance(question, str) or not question.strip():
        row["error"] = "empty or missing question: pass a non-empty string"
    elif not isinstance(answer, str) or not answer.strip():
        row["error"] = "empty or missing answer: pass a non-empty string"
    elif not text:
        row["error"] = nothing_stated("answer", answer)
    elif isinstance(contexts, str) or not contexts:
        row["error"] = "contexts must be a non-empty list of chunk strings in retrieval rank order"
    elif not all(isinstance(chunk, str) for chunk in contexts):
        row["error"] = "every chunk in contexts must be a string"
    return row, text


def score_contexts(
    judge, questions, answers, contexts, soft=False, ragas_compat=False, settings=None, batch_size=None, cache=True, progress=None
):
    """One result dict per row: score, per-chunk probabilities, error and warnings. `settings`: verdict settings
    ({task: Verdict}, e.g. from `localjudge.calibrate`) instead of the judge's shipped ones."""
    check_columns(chunk_lists=True, question=questions, answer=answers, contexts=contexts)
    settings = resolve_settings(settings)
    label = settings_label(judge, settings)
    rows, items = [], []
    for index, (question, answer, chunks) in enumerate(zip(questions, answers, contexts)):
        row, answer = _read_row(index, question, answer, chunks)
        row["verdict_settings"] = label
        rows.append(row)
        if row["error"]:
            continue
        quarter = source_budget(judge) // 4
        question = fit_source(judge, clean(question), row, "question", quarter)
        answer = fit_source(judge, answer, row, "answer", quarter)
        for given in chunks:
            # a chunk as a source is read (`text.read_source`): a web page's or a PDF's reads as its plain text
            chunk = fit_source(judge, read_source(clean(given)), row, f"chunk {len(row['chunks'])}", 2 * quarter)
            entry = {"context": chunk, "p_useful": maths.NAN}
            row["chunks"].append(entry)
            # an empty chunk cannot have helped: verdict 0 without asking the judge
            if chunk.strip():
                items.append((entry, index, {"question": question, "answer": answer, "context": chunk}))
            else:
                entry["p_useful"] = 0.0
                what = "is empty" if not given.strip() else "holds no text but its markup"
                row["warnings"].append(f"chunk {len(row['chunks']) - 1} {what}: counted as not useful")
    # each chunk is judged against the other chunks of its row too (the relative signals)
    probabilities = verdict_probabilities(
        judge,
        "utilization",
        [fields for _, _, fields in items],
        groups=[index for _, index, _ in items],
        settings=settings,
        batch_size=batch_size,
        cache=cache,
        progress=progress,
    )
    for (entry, _, _), probability in zip(items, probabilities):
        entry["p_useful"] = probability
    failures = take_failures(judge)
    for row in rows:
        unjudged = sum(math.isnan(chunk["p_useful"]) for chunk in row["chunks"])
        if unjudged and failures:  # the judge failed them (a served judge's server): the row is not scored
            row["error"] = f"the judge returned no verdict for {unjudged} chunks ({failures})"
        elif unjudged:
            row["warnings"].append(f"the judge returned no verdict for {unjudged} chunks: counted as not useful")
    epsilon = maths.RAGAS_EPSILON if ragas_compat else 0.0
    for row in rows:
        if row["error"]:
            row["score"] = maths.NAN
            continue
        p_useful = [chunk["p_useful"] for chunk in row["chunks"]]
        verdicts = p_useful if soft else [float(maths.is_yes(p)) for p in p_useful]
        row["score"] = maths.average_precision(verdicts, epsilon)
    return rows


def utilization_output(rows, return_details=False, confidence_level=None):
    """The metric's result dict: dataset mean over scored rows (with its confidence interval when a
    `confidence_level` is given), per-row scores and chunk probabilities."""
    output, failed = dataset_result("context_utilization", rows, confidence_level)
    output.update(verdicts=[[chunk["p_useful"] for chunk in row["chunks"]] for row in rows], num_failed=failed)
    if return_details:
        output["details"] = [
            {"useful": [maths.is_yes(chunk["p_useful"]) for chunk in row["chunks"]], "error": row["error"], "warnings": row["warnings"]}
            for row in rows
        ]
        output["prompt_version"] = PROMPT_VERSION
        output["verdict_settings"] = rows[0]["verdict_settings"] if rows else None
    return output
