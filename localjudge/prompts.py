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

# The verification prompt that the tuned judge (`learned.tuning`) answers yes or no. A claim that answers a question
# is judged with its question (`learned.statement`): a few-word answer means nothing alone.
VERIFICATION_PROMPT = "{document}\n\n{statement}\n\nIs everything in the statement supported by the document? Answer yes or no."
VERIFICATION_PROMPTS = {"alignment": VERIFICATION_PROMPT, "coverage": VERIFICATION_PROMPT}
# which of a task's item fields the verification prompt reads as its document and as its statement: a summary claim
# against a window of the source; a coverage fact against the summary alone (Ragas' semantics: the judge answers
# from the summary)
VERIFICATION_FIELDS = {"alignment": ("document", "claim"), "coverage": ("summary", "fact")}

# The tuned judge (`learned.tuning`) answers that prompt over windows of this many tokens, the size it was trained
# on (scripts/train_judge.py)
TUNED_WINDOW_TOKENS = 160
# ... each claim against only this many of them, those a lexical ranking (BM25) puts first for it (`Verdict.top_windows`):
# a 2,000-character source is 7-8 windows; with 2 the tuned verdict runs at 0.94x the likelihood verdict's rows/s in
# fp32, 0.82-0.87x in bf16 (every window: 0.33x), and no unit of the verdict board loses more than 0.006 hard BAcc
# (issue 58, docs/benchmarks.md)
TUNED_TOP_WINDOWS = 2

# Sentence units become closed questions whose answer in the source is yes.
SENTENCE_QUESTION = "Does the text state that: {sentence}"

# Likelihood verdicts: the item's tokens are scored after the evidence and after a baseline without it, in one
# sequence per item (`verdicts.likelihood_signals`); each field of the item gets its own signals. A chunk is
# useful when it makes the answer more predictable given the question, not when it merely shares the question's
# entities (the hard distractors of multi-hop retrieval do that too).
LIKELIHOOD_PROMPTS = {
    # a window of the source, then the claim as a summary of it
    "alignment": {"evidence": "Article:\n{document}\n\nA summary of this article:", "baseline": "A summary of a news article:", "item": " {claim}"},
    "coverage": {"evidence": "{summary}\n\nIn detail: ", "baseline": "In detail: ", "item": "{fact}"},
    "utilization": {"evidence": "{context}\n\nQuestion: ", "baseline": "Question: ", "item": "{question}\nAnswer: {answer}"},
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
    sits at x = offset. For "probability", x = logit(P(yes)) of the task's yes/no prompt. For "likelihood",
    x = Σ coefficient × signal over `signals` (`verdicts.TOKEN_SIGNALS` of each field, e.g. "claim_gain_mean"):
    with scale 1 this is a logistic model, fitted out-of-fold on labelled rows (`localjudge.calibrate`), whose
    probabilities are calibrated (0.5 means 0.5). `window_tokens`: the source is judged in overlapping windows of
    whole sentences of at most this many tokens, and a claim's verdict is its best window's. For "tuned", x =
    logit(P(yes)) of the task's `VERIFICATION_PROMPTS` prompt answered by the judge with the LoRA adapter `adapter`
    applied (a judge's name for its shipped adapter, or an adapter file's path; `localjudge.learned.tuning`), less
    the threshold fitted for the adapter on its validation rows (`offset` in its card): at offset 0 the verdict is
    the adapter's own decision. `top_windows`: a claim is judged only against the windows of its source that a
    lexical ranking (BM25) puts first for it, this many (`text.top_windows`; 0: every window), best first until one
    supports it: its verdict that window's, else the best of those (`verdicts.item_verdict`; the decision is the one
    the best window gives, and a claim its first window supports costs one judgement).
    """

    method: str
    scale: float = 1.0
    offset: float = 0.0
    signals: dict = {}
    window_tokens: int = 1024
    adapter: str = ""
    top_windows: int = 0


# the verdicts measured before the fitted ones (docs/benchmarks.md): one threshold on one or two signals
ALIGNMENT_Q10 = Verdict("likelihood", 1.0, -1.8, {"claim_cond_mean": 1.0, "claim_gain_q10": 1.0})
COVERAGE_GAIN = Verdict("likelihood", 2.0, 1.0, {"fact_gain_mean": 1.0})
UTILIZATION_GAIN = Verdict("likelihood", 2.0, 0.9, {"question_gain_mean": 1.0, "answer_gain_mean": 0.5})

# A logistic model fitted on all 240 RAG rows of the pooled dev set (news and plain, each half the weight), out of
# fold: chunk ROC-AUC 0.852 news / 0.952 plain (docs/benchmarks.md, `benchmarks/verdict_fit.py`). The relative
# signals compare a chunk with the best chunk of its row: a distractor about the question's entity raises the
# question's likelihood as much as the useful chunk, but not the answer's.
UTILIZATION_FIT = Verdict(
    "likelihood",
    1.0,
    1.6799,
    {
        "question_cond_mean": -0.3299, "question_gain_mean": 0.3715, "question_gain_q10": -0.1592,
        "question_gain_min": 0.0598, "question_kept_share": -1.4294, "question_explained": -2.3508,
        "question_log_tokens": 1.3614, "answer_cond_mean": 0.2312, "answer_gain_mean": 0.6768,
        "answer_gain_q10": -0.1343, "answer_gain_min": -0.1905, "answer_kept_share": 0.7143,
        "answer_explained": 0.3004, "answer_log_tokens": -0.3569, "rel_question_gain_mean": 1.5917,
        "rel_question_gain_q10": 0.2541, "rel_question_kept_share": 0.7628, "rel_question_explained": 0.5416,
        "rel_answer_gain_mean": 0.0101, "rel_answer_gain_q10": -0.2093, "rel_answer_kept_share": 0.2856,
        "rel_answer_explained": 1.4148,
    },
)

# A judge fine-tuned for grounding: its shipped adapter applied (`learned.tuning`), its yes/no margin at or above
# the threshold in the adapter's card per window, each claim against its top windows, the best window per claim. One
# adapter per embedded judge it was trained for. The default judge's (run 20, trained on summaries of news, chats
# and meetings too) is that judge's default verdict of claims: over the verdict board's units never trained on it
# leads every other candidate, and decides the five news dev sets at 0.749 (lowest 0.667), where the likelihood
# verdict it replaced reads 0.692 / 0.500 in-sample (issue 58's rule, docs/benchmarks.md). The 1.5B judge's (run 18)
# ranks and decides the unseen units better (held-out, 60 rows a unit: 0.76 / lowest 0.58, soft AUC 0.86) but
# calls 8 % of FRANK XSum supported (0.455): opt-in for that judge (`settings={"alignment": TUNED_ALIGNMENTS[judge]}`),
# at about three times the time (docs/benchmarks.md, docs/tuning.md)
def tuned_alignment(adapter: str) -> Verdict:
    """The tuned verdict of summary claims with the adapter `adapter` (a judge's name for its shipped one)."""
    return Verdict("tuned", window_tokens=TUNED_WINDOW_TOKENS, adapter=adapter, top_windows=TUNED_TOP_WINDOWS)


TUNED_ALIGNMENTS = {judge: tuned_alignment(judge) for judge in ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")}
TUNED_ALIGNMENT = TUNED_ALIGNMENTS["qwen2.5-coder-0.5b"]
# The same adapter checking a key fact of the source against the summary alone (`VERIFICATION_FIELDS`): opt-in
# (`settings={"coverage": TUNED_COVERAGES[judge]}`), measured on the coverage board (docs/benchmarks.md)
TUNED_COVERAGES = {judge: Verdict("tuned", window_tokens=TUNED_WINDOW_TOKENS, adapter=judge) for judge in TUNED_ALIGNMENTS}

# Per judge and task. Judges not listed here answer yes/no prompts, uncalibrated.
JUDGE_SETTINGS = {
    "qwen2.5-coder-0.5b": {
        "alignment": TUNED_ALIGNMENT,
        # the mean gain. Its 10 % quantile, or a threshold nearer the dev set's median gain, agreed better with
        # SummEval relevance in-sample, but text appended to a summary then flips verdicts (tests/test_injection.py)
        "coverage": COVERAGE_GAIN,
        "utilization": UTILIZATION_FIT,
    },
    # measured on 100 dev-set summaries only (docs/benchmarks.md): the 0.5B judge's earlier alignment signal and
    # threshold agree as well here; coverage and utilization reuse the 0.5B judge's likelihood settings
    "qwen2.5-coder-1.5b": {"alignment": ALIGNMENT_Q10, "coverage": COVERAGE_GAIN, "utilization": UTILIZATION_GAIN},
    "smollm2-135m": {
        "alignment": Verdict("likelihood", 2.0, 2.5, {"claim_gain_mean": 1.0}),
        "coverage": Verdict("likelihood", 2.0, 0.9, {"fact_gain_mean": 1.0}),
        "utilization": Verdict("likelihood", 2.0, 1.7, {"question_gain_mean": 1.0, "answer_gain_mean": 0.5}),
    },
}
# A judge that cannot give a learned verdict (a served one whose server does not apply the adapter) gives these; the
# default judge's claims then get the likelihood verdict that was its default before the tuned one (issue 58)
STATELESS_SETTINGS = {name: dict(tasks) for name, tasks in JUDGE_SETTINGS.items()}
STATELESS_SETTINGS["qwen2.5-coder-0.5b"]["alignment"] = ALIGNMENT_Q10
# a yes/no judge reads a claim against a few sentences at a time: a small judge checks those far better than
# a whole article (docs/benchmarks.md)
DEFAULT_SETTINGS = {
    "alignment": Verdict("probability", window_tokens=160),
    "coverage": Verdict("probability"),
    "utilization": Verdict("probability"),
}

# The one-paragraph reason of the Mastra-style score, filled from verdicts (no generation needed).
REASON = {
    "summary": "The score is {score:.2f} because {alignment_part} and {coverage_part}.",
    "aligned": "every claim of the summary ({total}) is supported by the source",
    "misaligned": "{unsupported} of {total} claims are not supported by the source ({claims})",
    # an unsupported claim, with the source sentence nearest to it in the window that supported it best
    "claim": '"{claim}", closest in the source: "{evidence}"',
    "covered": "the summary answers every question about the source ({total})",
    "uncovered": "the summary leaves {uncovered} of {total} questions about the source unanswered ({questions})",
}
