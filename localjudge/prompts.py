"""Prompts and per-judge verdict settings, as data.

Every template's text is part of the result-cache key (the cache hashes the exact rendered prompt), and
`PROMPT_VERSION` is reported with results, so a wording change never reuses an old verdict.

Verdict prompts put the shared text (the evidence, the summary, the question) first and the varying item
last, so the engine runs the shared part once per batch. Untrusted text always has the judge's special tokens
stripped; in yes/no prompts it is also quoted in tags (`text.quote`). Likelihood templates carry no
instruction for the text to override.
"""

from typing import NamedTuple

PROMPT_VERSION = "2026-11-23.1"

# Probability verdicts: the judge answers yes/no; P(yes) is read from the next-token logits. The judge's own
# default system prompt is kept: a custom "strict evaluator" one measured worse on the dev set.
VERDICT_PROMPTS = {
    # Is a summary claim supported by the source? (Mastra/deepeval alignment)
    "alignment": "{document}\n\n{claim}\n\nIs the claim supported by the document? Answer yes or no.",
    # Does the summary answer a question about the source? (Ragas QA, Mastra coverage)
    "coverage": "{summary}\n\n{question}\n\nUsing only the summary, is the answer to the question yes? Answer yes or no.",
    # Was a retrieved chunk useful in arriving at the answer? (Ragas context utilization)
    "utilization": (
        "{question}\n\n{answer}\n\n{context}\n\n"
        "Was this context useful in arriving at the given answer to the question? Answer yes or no."
    ),
}

# Sentence units become closed questions whose answer in the source is yes.
SENTENCE_QUESTION = "Does the text state that: {sentence}"

# Likelihood verdicts: the raw value is a weighted sum of likelihood gains, each the gain in mean per-token
# log-probability of an item when the evidence is shown: log P(item | evidence) - log P(item | baseline).
# A chunk is useful when it makes the question more predictable (it is about the question's entities, which
# finds the bridge paragraphs of multi-hop questions) and the answer more predictable given the question.
LIKELIHOOD_PROMPTS = {
    # the whole source, then the claim as a summary of it: P(claim | source) against P(claim | no source)
    "alignment": [
        {
            "evidence": "Article:\n{document}\n\nA summary of this article:",
            "baseline": "A summary of a news article:",
            "item": " {claim}",
            "weight": 1.0,
        }
    ],
    "coverage": [{"evidence": "{summary}\n\nIn detail: ", "baseline": "In detail: ", "item": "{fact}", "weight": 1.0}],
    "utilization": [
        {"evidence": "{context}\n\nQuestion: ", "baseline": "Question: ", "item": "{question}", "weight": 1.0},
        {
            "evidence": "{context}\n\nQuestion: {question}\nAnswer: ",
            "baseline": "Question: {question}\nAnswer: ",
            "item": "{answer}",
            "weight": 0.5,
        },
    ],
}

# Generated units (the reference algorithms' path), for judges that follow instructions.
GENERATION_PROMPTS = {
    "keyphrases": (
        "{text}\n\nList the key phrases of the text above: people, organisations, locations, dates, "
        'amounts and percentages. Reply with JSON only: {{"keyphrases": ["...", "..."]}}'
    ),
    "questions": (
        "{text}\n\nKey phrases: {keyphrases}\n\nWrite closed questions about the text above, based on the key "
        "phrases, whose answer according to the text is always yes. Reply with JSON only: "
        '{{"questions": ["...", "..."]}}'
    ),
    "claims": (
        "{summary}\n\nBreak the summary above into short, self-contained factual claims. "
        'Reply with JSON only: {{"claims": ["...", "..."]}}'
    ),
}



class Verdict(NamedTuple):
    """How a judge gives one task's verdicts.

    A raw value x becomes the verdict probability sigmoid(scale * (x - offset)), so the decision threshold 0.5
    sits at x = offset, where it separated the dev set's labels best (docs/benchmarks.md). For "probability",
    x = logit(P(yes)) of the task's yes/no prompt. For "likelihood", x = Σ over the task's likelihood terms of
    weight × Σ coefficient × signal, the signals (`verdicts.likelihood_signals`) read from the per-token
    log-probabilities of the item with the evidence and with the baseline.
    """

    method: str
    scale: float = 1.0
    offset: float = 0.0
    signals: dict = {"gain_mean": 1.0}


# Per judge and task. Judges not listed here answer yes/no prompts, uncalibrated.
JUDGE_SETTINGS = {
    "qwen2.5-coder-0.5b": {
        # mean log P(claim token | source) + 10 % quantile of the per-token gain over the baseline: both signals
        # have a standard deviation of 1.03 over the dev set's claims, so this is their standardised sum
        "alignment": Verdict("likelihood", 1.0, -1.8, {"cond_mean": 1.0, "gain_q10": 1.0}),
        # the mean gain. Its 10 % quantile, or a threshold nearer the dev set's median gain, agreed better with
        # SummEval relevance in-sample, but text appended to a summary then flips verdicts (tests/test_injection.py)
        "coverage": Verdict("likelihood", 2.0, 1.0),
        "utilization": Verdict("likelihood", 2.0, 0.9),
    },
    # measured on 100 dev-set summaries only (docs/benchmarks.md): the 0.5B judge's alignment signal and threshold
    # agree as well here; coverage and utilization reuse the 0.5B judge's likelihood settings, not calibrated
    "qwen2.5-coder-1.5b": {
        "alignment": Verdict("likelihood", 1.0, -1.8, {"cond_mean": 1.0, "gain_q10": 1.0}),
        "coverage": Verdict("likelihood", 2.0, 1.0),
        "utilization": Verdict("likelihood", 2.0, 0.9),
    },
    "smollm2-135m": {
        "alignment": Verdict("likelihood", 2.0, 2.5),
        "coverage": Verdict("likelihood", 2.0, 0.9),
        "utilization": Verdict("likelihood", 2.0, 1.7),
    },
}
DEFAULT_SETTINGS = {task: Verdict("probability") for task in ("alignment", "coverage", "utilization")}

# The one-paragraph reason of the Mastra-style score, filled from verdicts (no generation needed).
REASON = {
    "summary": "The score is {score:.2f} because {alignment_part} and {coverage_part}.",
    "aligned": "every claim of the summary ({total}) is supported by the source",
    "misaligned": "{unsupported} of {total} claims are not supported by the source ({claims})",
    "covered": "the summary answers every question about the source ({total})",
    "uncovered": "the summary leaves {uncovered} of {total} questions about the source unanswered ({questions})",
}
