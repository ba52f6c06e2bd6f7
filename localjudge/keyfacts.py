"""Which source sentences the coverage questions ask about ("key facts", without a reference summary), and how many.

* `question_count`: how many by default, by the kind of source (`source_kind`): a dialogue (most of its lines are
  turns that open with a speaker's name and a colon, "Anna: …", "#Person1#: …", "李雷：…") gets
  `SENTENCE_QUESTIONS["dialogue"]`, any other text `SENTENCE_QUESTIONS["prose"]`;
* `lead_sentences`: the first sentences (the default: a news text puts its key facts first);
* `central_sentences`: the most central sentences by continuous LexRank (Erkan & Radev 2004): the sentences most
  similar to the rest of the text, by TF-IDF cosine of their word tokens, ranked by PageRank over that weighted
  similarity graph. Meant for text whose key content is not at its start (chats, review sets).

Written here rather than taken from `sumy`: its `LexRankSummarizer` is the thresholded form (an edge where the
cosine exceeds 0.1), which on a short chat joins nearly every pair through shared function words and returns the
lead sentences (tests/test_coverage_board.py's chat, sumy 0.13), and its tokenizers need NLTK data downloaded at run
time. The TF-IDF vectors are over the project's word tokens (any script), idf log(N / df + 1): the weighting the
coverage board measured (docs/benchmarks.md).

The two pickers return sentence indices in source order, so the questions keep the text's order.
"""

import math
import re
from collections import Counter

import numpy as np

from .baselines import word_tokens

DAMPING = 0.85
# questions asked by default, per kind of source. On the coverage board (docs/benchmarks.md, 24 documents a set) the
# first 10 sentences of a chat agree with its raters' relevance by +0.11 ± 0.03 per document more than the first 3
# (a chat's key content is spread over its turns), while news agrees less with more (SummEval −0.09 ± 0.09)
SENTENCE_QUESTIONS = {"prose": 3, "dialogue": 10}
# a turn: a line that opens with a speaker's name of at most four words, optionally in marks ("#Person1#"), and a
# colon (ASCII or full-width); a time such as "10:30" opens with a digit and is not one
SPEAKER_TURN = re.compile(r"^\s*(\W?[^\W\d_][\w.'’#-]*(?:\s[\w.'’#-]+){0,3})\s*[:：]\s*\S")
# a dialogue: at least this share of its non-empty lines are turns, of at least two speakers
DIALOGUE_TURN_SHARE = 0.6


def turn_speakers(text: str) -> list:
    """The speaker of each of the text's turns (`SPEAKER_TURN`), as written, in the order of the turns."""
    return [match.group(1) for line in text.splitlines() if (match := SPEAKER_TURN.match(line))]


def source_kind(text: str) -> str:
    """"dialogue" when at least `DIALOGUE_TURN_SHARE` of the text's non-empty lines are turns (`SPEAKER_TURN`) and
    two or more speakers take them, else "prose"."""
    lines = [line for line in text.splitlines() if line.strip()]
    speakers = [speaker.casefold() for speaker in turn_speakers(text)]
    dialogue = len(set(speakers)) >= 2 and len(speakers) >= DIALOGUE_TURN_SHARE * len(lines)
    return "dialogue" if dialogue else "prose"


def question_count(text: str) -> int:
    """How many source sentences the coverage questions ask about by default (`SENTENCE_QUESTIONS`)."""
    return SENTENCE_QUESTIONS[source_kind(text)]


def lead_sentences(sentences, count: int = 3):
    return list(range(min(count, len(sentences))))


def _tfidf(sentences):
    counts = [Counter(word_tokens(sentence)) for sentence in sentences]
    frequency = Counter(word for count in counts for word in count)
    vocabulary = {word: index for index, word in enumerate(sorted(frequency))}
    vectors = np.zeros((len(sentences), len(vocabulary)))
    for row, count in enumerate(counts):
        for word, times in count.items():
            vectors[row, vocabulary[word]] = times * math.log(len(sentences) / frequency[word] + 1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def centrality(sentences, iterations: int = 100):
    """The LexRank score of each sentence (they sum to 1); a text of one sentence gives [1.0]."""
    if not sentences:
        return []
    vectors = _tfidf(sentences)
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, 0.0)
    totals = similarity.sum(axis=1, keepdims=True)
    # a sentence sharing no word with the rest spreads its weight evenly
    transition = np.divide(similarity, totals, out=np.full_like(similarity, 1 / len(sentences)), where=totals > 0)
    scores = np.full(len(sentences), 1 / len(sentences))
    for _ in range(iterations):
        updated = (1 - DAMPING) / len(sentences) + DAMPING * transition.T @ scores
        if np.abs(updated - scores).sum() < 1e-9:
            break
        scores = updated
    return (scores / scores.sum()).tolist()


def central_sentences(sentences, count: int = 3):
    """The indices of the `count` most central sentences, in source order; a tie goes to the earlier sentence."""
    scores = centrality(sentences)
    ranked = sorted(range(len(sentences)), key=lambda index: (-round(scores[index], 12), index))
    return sorted(ranked[:count])
