"""Window preselection (issue 58): with a verdict's `top_windows` K, a claim is judged only against the K windows of
its source that BM25 ranks first for it (`text.top_windows`, `verdicts.preselect`), in any language, best first until
one supports it (`verdicts.judged_best_first`): its decision is the best window's, and the window it names (the
reason's evidence) is still its index in the whole source."""

import re

import pytest
from helpers import ScriptedJudge

from localjudge import DEFAULT_JUDGE, learned, load_judge, score_summaries
from localjudge.prompts import TUNED_ALIGNMENT, Verdict
from localjudge.summarization import source_units
from localjudge.text import lexical_terms, top_windows
from localjudge.verdicts import judge_items, preselect

WINDOWS = [
    "The Orvel ferry leaves Tamsin harbour at seven every morning.",
    "Tickets for the ferry cost twelve crowns and are sold on board.",
    "The harbour master, Edda Voss, plans a second quay by 2028.",
    "Gulls nest on the old lighthouse north of the quay.",
]
EVERY = [0, 1, 2, 3]


def test_the_window_bm25_ranks_first_is_kept_and_the_kept_ones_come_best_first():
    claim = "Edda Voss wants a second quay."
    assert top_windows([claim], WINDOWS, 1) == [[2]]
    kept = top_windows([claim], WINDOWS, 2)[0]
    assert kept[0] == 2 and len(kept) == 2
    assert top_windows([claim, "A ferry ticket costs twelve crowns."], WINDOWS, 1) == [[2], [1]]
    # window 3 names the quay too: second; a count that covers every window ranks them all
    assert top_windows([claim], WINDOWS, 9)[0][:2] == [2, 3] and sorted(top_windows([claim], WINDOWS, 9)[0]) == EVERY


def test_every_window_is_kept_in_window_order_when_the_count_is_zero():
    assert top_windows(["Edda Voss", "ferry"], WINDOWS, 0) == [EVERY, EVERY]
    assert top_windows(["Edda Voss"], WINDOWS[:1], 2) == [[0]]


@pytest.mark.parametrize("count", [4, 9])
def test_every_window_is_kept_best_first_when_the_count_covers_them_all(count):
    ranked = top_windows(["Edda Voss", "ferry"], WINDOWS, count)
    assert [sorted(kept) for kept in ranked] == [EVERY, EVERY] and ranked[0][0] == 2


@pytest.mark.parametrize("claim", ["Zyx qwv.", "", "   "])
def test_a_claim_sharing_no_term_with_any_window_keeps_every_window(claim):
    # nothing to rank by: nothing is left out
    assert top_windows([claim], WINDOWS, 1) == [EVERY]


def test_terms_are_words_and_character_pairs_where_a_script_has_no_spaces():
    assert lexical_terms("The CAFÉ's ＡＢＣ 2028") == ["the", "café", "s", "abc", "2028"]
    assert lexical_terms("青石镇 library") == ["青石", "石镇", "library"]
    assert lexical_terms("駅前のパン屋") == ["駅前", "前の", "のパ", "パン", "ン屋"]


# project-written sentences, one fact each
CHINESE = [
    "青石镇图书馆上个月完成了扩建，由林晓梅馆长负责。",
    "新增的儿童阅览室可以容纳四十人。",
    "图书馆每周一闭馆，周末开放到晚上九点。",
]
JAPANESE = [
    "駅前の新しいパン屋は朝六時に開店する。",
    "店主の佐藤さんは十年間パリで修業した。",
    "人気の商品はクロワッサンとメロンパンだ。",
]


@pytest.mark.parametrize("windows, claim, expected", [
    (CHINESE, "儿童阅览室能容纳四十人。", 1),
    (CHINESE, "图书馆周一不开放。", 2),
    (JAPANESE, "佐藤さんはパリで修業した。", 1),
    (JAPANESE, "メロンパンが人気だ。", 2),
])
def test_chinese_and_japanese_claims_find_their_window(windows, claim, expected):
    assert top_windows([claim], windows, 1) == [[expected]]


def test_preselect_cuts_each_list_to_its_claims_windows_and_says_which_it_kept():
    items = [{"document": WINDOWS, "claim": "Edda Voss wants a second quay."}, {"document": ["one window"], "claim": "x"},
             {"summary": "s", "question": "q"}]
    cut, kept = preselect(items, 1)
    assert cut[0] == {"document": [WINDOWS[2]], "claim": items[0]["claim"]} and kept[0] == [2]
    assert cut[1:] == items[1:] and kept[1:] == [None, None]  # nothing to leave out
    assert preselect(items, 0) == (items, [None, None, None])


class WindowJudge(ScriptedJudge):
    """P(yes) 0.9 for a claim judged against a window holding its evidence phrase (`evidence`), else 0.1."""

    def __init__(self, evidence):
        super().__init__()
        self.evidence = evidence

    def yes_probability(self, prompts, batch_size=None, cache=True, progress=None):
        self.calls.append(("yes_probability", list(prompts)))
        answers = []
        for prompt in prompts:
            document = re.search(r"<document>\n(.*?)\n</document>", prompt, re.DOTALL)
            found = document and self.evidence.get(self.item_of(prompt), "\0") in document.group(1)
            answers.append(0.9 if found else 0.1)
        return answers


SUPPORTED = "Edda Voss, the harbour master, plans a second quay."
UNSUPPORTED = "The ferry to Tamsin is free for children."


def alignment_rounds(judge):
    """The prompts of each of the scripted judge's calls that judged claims against windows."""
    return [prompts for operation, prompts in judge.calls if operation == "yes_probability" and "<document>" in prompts[0]]


@pytest.mark.parametrize("count", [0, 1, 2, 4])
def test_the_metric_judges_only_the_kept_windows_and_names_the_supporting_one(count):
    judge = WindowJudge({SUPPORTED: "second quay"})
    # one sentence a window (the scripted judge counts words)
    settings = {"alignment": Verdict("probability", window_tokens=12, top_windows=count)}
    row = score_summaries(judge, [f"{SUPPORTED} {UNSUPPORTED}"], [[" ".join(WINDOWS)]], settings=settings)[0]
    assert len(row["windows"]) == 4
    rounds = alignment_rounds(judge)
    if count:
        # best first: the supported claim stops at the window BM25 ranks first, the other meets all it keeps
        assert [len(prompts) for prompts in rounds] == [2] + [1] * (count - 1)
        assert all(UNSUPPORTED in prompt for prompts in rounds[1:] for prompt in prompts)
    else:
        assert [len(prompts) for prompts in rounds] == [8]  # every window, at once
    supported, unsupported = row["claims"]
    assert supported["supported"] and supported["evidence"] == WINDOWS[2]
    assert not unsupported["supported"]


def test_windows_judged_best_first_decide_as_every_window_does_and_stop_at_the_first_that_supports():
    # the supported claim's evidence in the window BM25 ranks second: judged against two windows, not four
    claim = "The harbour master plans a new quay."
    judge = WindowJudge({claim: "Gulls"})  # window 3, which BM25 ranks second for it (the quay)
    items = [{"document": WINDOWS, "claim": claim}, {"document": WINDOWS, "claim": UNSUPPORTED}]
    every = judge_items(judge, "alignment", items, settings={"alignment": Verdict("probability", top_windows=0)})
    best_first = judge_items(judge, "alignment", items, settings={"alignment": Verdict("probability", top_windows=4)})
    assert [p >= 0.5 for p, _ in best_first] == [p >= 0.5 for p, _ in every] == [True, False]
    assert best_first[0][1] == every[0][1] == 3  # the index of the supporting window in the whole source
    judged = [prompt for prompts in alignment_rounds(judge)[1:] for prompt in prompts]
    assert sum(claim in prompt for prompt in judged) == 2 and sum(UNSUPPORTED in prompt for prompt in judged) == 4


@pytest.mark.skipif(not learned.default_adapter_path(DEFAULT_JUDGE).is_file(), reason="no adapter shipped")
def test_the_tuned_judge_with_pruned_windows_still_names_the_supporting_window():
    judge = load_judge(DEFAULT_JUDGE)
    paragraphs = [
        "The Orvel ferry leaves Tamsin harbour at seven every morning and returns at noon. It carries up to forty "
        "cars and two hundred passengers. In winter the crossing takes an hour longer because of the ice. " * 2,
        "Tickets for the ferry cost twelve crowns for adults and six for children, and are sold on board. Season "
        "passes are sold at the harbour office, which opens at half past six. " * 2,
        "Gulls nest on the old lighthouse north of the harbour. The lighthouse has not been used since 1974 and now "
        "houses a small museum about the island's shipwrecks. " * 2,
        "The harbour master, Edda Voss, plans to build a second quay by 2028, paid for by the regional fishing fund. "
        "The new quay will let two ferries dock at the same time.",
    ]
    units = source_units(judge, "\n".join(paragraphs), {"alignment": TUNED_ALIGNMENT})
    assert len(units["windows"]) > TUNED_ALIGNMENT.top_windows + 1
    claim = "Edda Voss plans a second quay by 2028."
    [(probability, window)] = judge_items(judge, "alignment", [{"document": units["documents"], "claim": claim}],
                                          settings={"alignment": TUNED_ALIGNMENT})
    assert probability >= 0.5
    # the index is the window's in the whole source (one of its last), not its place among the two kept (0 or 1)
    assert window >= TUNED_ALIGNMENT.top_windows and "Edda Voss" in units["documents"][window]
