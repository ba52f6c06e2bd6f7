"""Exact tests of the lexical-overlap baselines that benchmarks/agreement.py sets beside the judge."""

import math

import pytest

from localjudge import baselines

PARK_SOURCE = "The Millbrook council approved the new park on Monday."
BRIDGE_SOURCE = (
    "Ravenford opened a bridge on Monday. The mayor Ana Oduya cut the ribbon. "
    "Traffic will start in June. Tolls are not planned."
)


def test_word_tokens_are_lowercased_word_characters():
    assert baselines.word_tokens("The Millbrook council's vote, 7-2!") == ["the", "millbrook", "council", "s", "vote", "7", "2"]


def test_content_words_drop_stopwords_and_repeats():
    assert baselines.content_words("The park and the Park of Millbrook") == {"park", "millbrook"}
    assert len(baselines.STOPWORDS) <= 40


def test_unigram_precision_counts_summary_words_found_in_source():
    # the, council, approved, park, on are in the source; a, friday are not
    assert baselines.ngram_precision("The council approved a park on Friday.", PARK_SOURCE, 1) == 5 / 7


def test_bigram_precision_counts_summary_bigrams_found_in_source():
    # of 6 bigrams only "council approved" and "park on" occur in the source
    assert baselines.ngram_precision("The council approved a park on Friday.", PARK_SOURCE, 2) == 2 / 6


def test_ngram_precision_counts_every_occurrence():
    assert baselines.ngram_precision("park zoo park", PARK_SOURCE, 1) == 2 / 3


def test_ngram_precision_without_ngrams_is_nan():
    assert math.isnan(baselines.ngram_precision("?!", PARK_SOURCE, 1))
    assert math.isnan(baselines.ngram_precision("Parks.", PARK_SOURCE, 2))


def test_lead_coverage_counts_content_words_of_the_first_three_sentences():
    # lead-3 content words: ravenford opened bridge monday mayor ana oduya cut ribbon traffic start june (12);
    # the summary has 5 of them; "tolls" and "planned" come from the fourth sentence and do not count
    summary = "Mayor Oduya opened the Ravenford bridge; tolls are planned."
    assert baselines.lead_coverage(summary, BRIDGE_SOURCE) == 5 / 12


def test_lead_coverage_of_a_source_without_content_words_is_nan():
    assert math.isnan(baselines.lead_coverage("The bridge opened.", "It was, and it is."))


def test_chunk_overlap_counts_question_and_answer_content_words_in_the_chunk():
    # question + answer content words: river flows through dunmere kell; the chunk has dunmere, river, kell
    overlap = baselines.chunk_overlap("Which river flows through Dunmere?", "The Kell", "Dunmere\nDunmere is a town on the river Kell.")
    assert overlap == 3 / 5


@pytest.mark.parametrize(
    "overlaps, verdicts",
    [
        ([0.2, 0.6, 0.4], [0.0, 1.0, 1.0]),
        ([0.1, 0.3, 0.5, 0.7], [0.0, 0.0, 1.0, 1.0]),
        ([0.5, 0.5, 0.5], [1.0, 1.0, 1.0]),
    ],
)
def test_median_verdicts_mark_chunks_at_or_above_the_row_median(overlaps, verdicts):
    assert baselines.median_verdicts(overlaps) == verdicts


def test_overlap_average_precision_uses_the_median_verdicts():
    # verdicts [0, 1, 1]: precision@2 = 1/2, precision@3 = 2/3, averaged over the 2 useful ranks
    assert baselines.overlap_average_precision([0.2, 0.6, 0.4]) == pytest.approx(7 / 12)
    assert baselines.overlap_average_precision([0.6, 0.4, 0.2]) == 1.0


def test_overlap_average_precision_of_an_unmeasurable_row_is_nan():
    assert math.isnan(baselines.overlap_average_precision([0.5, math.nan]))
    assert math.isnan(baselines.overlap_average_precision([]))
