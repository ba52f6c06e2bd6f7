"""Lexical-overlap baselines: what word overlap alone achieves on the judge's tasks, with no model.

An LLM judge is only worth its cost where it agrees with human labels better than these do:

* faithfulness: the share of the summary's word n-grams that occur in the source (`ngram_precision`);
* coverage: the share of the content words of the source's first three sentences that the summary
  contains (`lead_coverage`; news articles put the key facts first);
* context utilization: the share of the question's and answer's content words that a chunk contains
  (`chunk_overlap`), with chunk verdicts "overlap ≥ the row's median overlap" fed to the same average
  precision as the judge's verdicts (`overlap_average_precision`).

Tokens are lower-cased word characters (`\\w+`). Texts with nothing to measure give NaN, as a failed judge row does.
"""

import math
import re
import statistics

from .maths import NAN, average_precision
from .text import source_sentences

_WORD = re.compile(r"\w+")
# Function words that any two English texts share; they would make every overlap look high. The baselines are
# the English news benchmarks' yardstick; no verdict uses this list.
STOPWORDS = frozenset(
    "a an and are as at be been but by for from had has have he her his in is it its of on or she that the "
    "their they this to was were which will with".split()
)

LEAD_SENTENCES = 3


def word_tokens(text: str):
    return _WORD.findall(text.lower())


def content_words(text: str) -> set:
    return {token for token in word_tokens(text) if token not in STOPWORDS}


def ngrams(tokens, n: int):
    return [tuple(tokens[start : start + n]) for start in range(len(tokens) - n + 1)]


def ngram_precision(summary: str, source: str, n: int = 1) -> float:
    """Share of the summary's n-grams (every occurrence, stopwords included) that occur anywhere in the source."""
    summary_ngrams = ngrams(word_tokens(summary), n)
    if not summary_ngrams:
        return NAN
    source_ngrams = set(ngrams(word_tokens(source), n))
    return sum(gram in source_ngrams for gram in summary_ngrams) / len(summary_ngrams)


def found_share(wanted: set, text: str) -> float:
    """Share of the distinct `wanted` words that occur in `text`; nothing wanted → NaN."""
    if not wanted:
        return NAN
    return len(wanted & set(word_tokens(text))) / len(wanted)


def lead_coverage(summary: str, source: str, lead: int = LEAD_SENTENCES) -> float:
    """Share of the distinct content words of the source's first `lead` sentences found in the summary."""
    lead_text = " ".join(source_sentences(source)[:lead])
    return found_share(content_words(lead_text), summary)


def chunk_overlap(question: str, answer: str, chunk: str) -> float:
    """Share of the distinct content words of question + answer found in the chunk."""
    return found_share(content_words(f"{question} {answer}"), chunk)


def median_verdicts(overlaps):
    """Verdict 1.0 for the chunks whose overlap is at least the median overlap of their row, else 0.0."""
    median = statistics.median(overlaps)
    return [float(overlap >= median) for overlap in overlaps]


def overlap_average_precision(overlaps) -> float:
    """Average precision of the row's ranking under `median_verdicts`.

    A row with no chunk, or with an unmeasurable one, gets NaN: its median, and so every verdict, is undefined.
    """
    if not overlaps or any(math.isnan(overlap) for overlap in overlaps):
        return NAN
    return average_precision(median_verdicts(overlaps))
