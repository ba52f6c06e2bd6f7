"""The default judge's default verdict of claims, its shipped adapter (`localjudge.prompts.TUNED_ALIGNMENT`), on three
kinds of source (a news article, a chat dialogue, meeting minutes), in fp32 and bf16, through the product's own path
(`score_summaries(..., final="min")` with the shipped settings: each summary sentence is a claim, judged against its
top windows of the source). Per kind, a faithful summary of two or three sentences, every claim of it supported by the
source, must score alignment 1; the same summary with exactly one swap (a name; a number; and who said or decided
something, or for the news article a date) must score below 1. A swapped summary can also score below 1 because a
faithful claim of it is rejected, so the changed claim itself is also checked: its P(yes) must be below 0.5. The news
summary is also laid out as a language model might write it (a lead-in, a numbered list, bold), in English and in
Chinese (a full-width colon, "一、" and "・"): its claims must be its items' sentences, at alignment 1, and one swapped
number in an item must still bring it below 1; written on one line, or with pictographs for bullets, the English
list has the same claims. Written as terse notes (items shorter than a sentence), each item is a claim: at alignment 1,
and one swapped number brings that item's claim under 0.5.

All rows go through the judge in one batched pass per dtype (one coverage question per row: only alignment is
checked). A case the shipped adapter (run 20) gets wrong is an expected failure whose reason gives the measured P(yes)
in both dtypes (issue 58 item 6: these are the checks the default verdict must pass; run 16's adapter missed nine, run
20's five); not strict, since another CPU may round a case across the threshold (the closest, the dialogue's swapped
speaker, sits at 0.60-0.63): an adapter that gets them right shows as XPASS. Run with `-s` to print every claim's
P(yes).

The texts are made up for these tests (people, places and figures invented).
"""

import re

import pytest

from localjudge import DEFAULT_JUDGE, learned, load_judge, score_summaries
from localjudge.prompts import JUDGE_SETTINGS, TUNED_ALIGNMENT
from localjudge.text import claim_sentences

pytestmark = pytest.mark.skipif(not learned.default_adapter_path(DEFAULT_JUDGE).is_file(), reason="no adapter shipped")

NEWS = (
    "The council of Esterwick approved on Tuesday a plan to turn the disused Fenmore rail depot into 180 affordable "
    "homes. The project, led by the housing cooperative Brightwater Homes, is expected to cost 42 million pounds. "
    "The council will contribute 6 million pounds, and the rest will come from a national housing fund. "
    "Construction will begin in March 2027, and the first residents should move in two years later. Council leader "
    "Imogen Tarrant said the vote ended a decade of arguments over the site. Local residents had campaigned against an "
    "earlier proposal for a logistics warehouse on the same land. The new plan also includes a small park and a cycle "
    "path linking the depot to Esterwick's town centre. Brightwater Homes has built similar schemes in two nearby "
    "towns, Holloway Cross and Saltmere. Opposition councillor Rafael Okonjo voted against the plan, saying its budget "
    "left too little money for road repairs. It passed by 27 votes to 9."
)

DIALOGUE = "\n".join(
    [
        "Priya: Are we still on for the climbing gym on Saturday?",
        "Tomasz: Yes, but can we go at 10 instead of 9? My bus doesn't run early at weekends.",
        "Priya: Fine by me. Helena, are you coming?",
        "Helena: I'd love to, but my shoulder still hurts. I'll come and watch though.",
        "Tomasz: Shall I book the day passes? They're 14 euros each online.",
        "Priya: Please do, just two then. I'll pay you back.",
        "Helena: I can bring the car and pick you both up at 9:30.",
        "Tomasz: Perfect, I'm at the corner of Lindgren Street.",
        "Priya: And I'll bring snacks for after. See you Saturday!",
    ]
)

MEETING = "\n".join(
    [
        "Minutes of the Orchard Lane Primary School parents' committee, 12 February.",
        "Chair: Gwen Adeyemi. Present: Luis Fernández, Hana Kobayashi, Derek Walsh.",
        "Gwen: The spring fair will be held on Saturday 16 May in the school hall.",
        "Luis: Last year's fair raised 2,300 pounds; I'd like us to aim for 3,000 this time.",
        "Hana: We need someone to run the book stall. I can do it if Derek handles the raffle.",
        "Derek: Agreed, I'll take the raffle and ask local shops for prizes.",
        "Gwen: Decision: the money raised goes to new playground equipment.",
        "Luis: I'll get three quotes for the equipment by the end of March.",
        "Hana: Should we charge an entry fee?",
        "Gwen: No, entry stays free. Decision taken.",
        "Next meeting: 11 March at 7 pm.",
    ]
)

# kind → (source, faithful summary, {swap: the faithful summary with that one swap})
CASES = {
    "news": (
        NEWS,
        "On Tuesday, Esterwick's council approved turning the old Fenmore rail depot into 180 affordable homes, a "
        "42-million-pound project led by Brightwater Homes. Work is due to start in March 2027, and the plan also adds "
        "a park and a cycle path into the town centre. Councillor Rafael Okonjo opposed it over the road repair budget, "
        "but it passed by 27 votes to 9.",
        {
            "name": "On Tuesday, Esterwick's council approved turning the old Fenmore rail depot into 180 affordable "
            "homes, a 42-million-pound project led by Brightwater Homes. Work is due to start in March 2027, and the plan "
            "also adds a park and a cycle path into the town centre. Councillor Imogen Tarrant opposed it over the road "
            "repair budget, but it passed by 27 votes to 9.",
            "number": "On Tuesday, Esterwick's council approved turning the old Fenmore rail depot into 280 affordable "
            "homes, a 42-million-pound project led by Brightwater Homes. Work is due to start in March 2027, and the "
            "plan also adds a park and a cycle path into the town centre. Councillor Rafael Okonjo opposed it over the "
            "road repair budget, but it passed by 27 votes to 9.",
            "date": "On Tuesday, Esterwick's council approved turning the old Fenmore rail depot into 180 affordable "
            "homes, a 42-million-pound project led by Brightwater Homes. Work is due to start in September 2027, and "
            "the plan also adds a park and a cycle path into the town centre. Councillor Rafael Okonjo opposed it over "
            "the road repair budget, but it passed by 27 votes to 9.",
        },
    ),
    "dialogue": (
        DIALOGUE,
        "Priya, Tomasz and Helena are meeting at the climbing gym on Saturday at 10, later than planned because "
        "Tomasz's bus does not run early at weekends. Helena will not climb because of her sore shoulder, but she will "
        "drive the others there, picking them up at 9:30. Tomasz is booking two day passes online at 14 euros each.",
        {
            "name": "Priya, Tomasz and Helena are meeting at the climbing gym on Saturday at 10, later than planned "
            "because Tomasz's bus does not run early at weekends. Marta will not climb because of her sore shoulder, "
            "but she will drive the others there, picking them up at 9:30. Tomasz is booking two day passes online at "
            "14 euros each.",
            "number": "Priya, Tomasz and Helena are meeting at the climbing gym on Saturday at 10, later than planned "
            "because Tomasz's bus does not run early at weekends. Helena will not climb because of her sore shoulder, "
            "but she will drive the others there, picking them up at 9:30. Tomasz is booking two day passes online at "
            "24 euros each.",
            "speaker": "Priya, Tomasz and Helena are meeting at the climbing gym on Saturday at 10, later than planned "
            "because Tomasz's bus does not run early at weekends. Helena will not climb because of her sore shoulder, "
            "but she will drive the others there, picking them up at 9:30. Priya is booking two day passes online at "
            "14 euros each.",
        },
    ),
    "meeting": (
        MEETING,
        "At its 12 February meeting, the Orchard Lane Primary parents' committee set the spring fair for 16 May and "
        "agreed that the money raised will pay for new playground equipment. Luis Fernández hopes to raise 3,000 pounds "
        "and will collect three quotes for the equipment by the end of March. Hana Kobayashi will run the book stall, "
        "Derek Walsh the raffle, and Gwen Adeyemi decided that entry will remain free.",
        {
            "name": "At its 12 February meeting, the Orchard Lane Primary parents' committee set the spring fair for 16 "
            "May and agreed that the money raised will pay for new playground equipment. Oscar Lindqvist hopes to raise "
            "3,000 pounds and will collect three quotes for the equipment by the end of March. Hana Kobayashi will run "
            "the book stall, Derek Walsh the raffle, and Gwen Adeyemi decided that entry will remain free.",
            "number": "At its 12 February meeting, the Orchard Lane Primary parents' committee set the spring fair for "
            "16 May and agreed that the money raised will pay for new playground equipment. Luis Fernández hopes to "
            "raise 5,000 pounds and will collect three quotes for the equipment by the end of March. Hana Kobayashi "
            "will run the book stall, Derek Walsh the raffle, and Gwen Adeyemi decided that entry will remain free.",
            "speaker": "At its 12 February meeting, the Orchard Lane Primary parents' committee set the spring fair for "
            "16 May and agreed that the money raised will pay for new playground equipment. Luis Fernández hopes to "
            "raise 3,000 pounds and will collect three quotes for the equipment by the end of March. Hana Kobayashi "
            "will run the book stall, Derek Walsh the raffle, and Luis Fernández decided that entry will remain free.",
        },
    ),
}

# the news summary as a language model might lay it out: a lead-in, a numbered list, bold; and the same with one number
# swapped in its last item
LISTED_NEWS = (
    "Here is a summary of the article:\n\n"
    "1. On Tuesday, Esterwick's council approved turning the old Fenmore rail depot into **180 affordable homes**, a "
    "42-million-pound project led by Brightwater Homes.\n"
    "2. Work is due to start in March 2027, and the plan also adds a park and a cycle path into the town centre.\n"
    "3. Councillor Rafael Okonjo opposed it over the road repair budget, but it passed by 27 votes to 9."
)
LISTED = {"faithful": LISTED_NEWS, "number": LISTED_NEWS.replace("27 votes to 9", "29 votes to 7")}

# the same article in Chinese, and its summary laid out with a lead-in that ends in a full-width colon and the
# markers a Chinese list takes ("一、", "・"), which no space follows; and the same with one number swapped
NEWS_ZH = (
    "埃斯特威克市议会周二批准了一项计划，将废弃的芬莫尔铁路仓库改建为180套经济适用房。"
    "该项目由住房合作社布莱特沃特住房公司牵头，预计耗资4200万英镑。市议会将出资600万英镑，其余资金来自国家住房基金。"
    "工程将于2027年3月开工，首批居民预计两年后入住。市议会领导人伊莫金·塔兰特表示，这次投票结束了围绕该地块长达十年的争论。"
    "新计划还包括一个小公园和一条连接仓库与埃斯特威克市中心的自行车道。"
    "反对派议员拉斐尔·奥孔乔投了反对票，他说预算留给道路维修的钱太少。该计划以27票对9票获得通过。"
)
LISTED_NEWS_ZH = (
    "以下是文章的摘要：\n\n"
    "一、埃斯特威克市议会周二批准将芬莫尔旧铁路仓库改建为180套经济适用房，项目耗资4200万英镑，由布莱特沃特住房公司牵头。\n"
    "二、工程定于2027年3月开工，计划还包括一个公园和一条通往市中心的自行车道。\n"
    "・议员拉斐尔·奥孔乔因道路维修预算问题投了反对票，但计划以27票对9票获得通过。"
)
LISTED_ZH = {"faithful": LISTED_NEWS_ZH, "number": LISTED_NEWS_ZH.replace("27票对9票", "29票对7票")}

# the news summary as terse notes, items shorter than a sentence ("Cost: £42 million"), and the same with one number
# swapped: each item is a claim of its own (until 2026-12-04 the short items ran together into one claim, "Council
# pays £6 million Starts March 2027 Passed 27 to 9", which the judge rejected at P(yes) 0.19: alignment 0.5)
NOTE_ITEMS = ["Esterwick council approves 180 affordable homes at the old Fenmore depot", "Cost: £42 million",
              "Council pays £6 million", "Starts March 2027", "Passed 27 to 9"]
NOTES_NEWS = "Key points:\n" + "\n".join(f"- {item}" for item in NOTE_ITEMS)
NOTES = {"faithful": NOTES_NEWS, "number": NOTES_NEWS.replace("£42 million", "£52 million")}

# (kind, variant, source, summary) for every row; "faithful" or the swap
ROWS = [
    (kind, variant, source, summary)
    for kind, (source, faithful, swapped) in CASES.items()
    for variant, summary in [("faithful", faithful), *swapped.items()]
] + [("news as a list", variant, NEWS, summary) for variant, summary in LISTED.items()] + [
    ("news as notes", variant, NEWS, summary) for variant, summary in NOTES.items()
] + [
    ("Chinese news as a list", variant, NEWS_ZH, summary) for variant, summary in LISTED_ZH.items()
]
SWAPS = [(kind, swap) for kind, (_, _, swapped) in CASES.items() for swap in swapped]

# (check, kind, variant) → the measured P(yes) (claims in summary order), for the checks the shipped adapter fails in
# both dtypes: "aligned" (faithful summary at alignment 1), "below" (swapped summary below 1), "claim" (changed claim
# below 0.5)
KNOWN_MISSES = {
    ("aligned", "dialogue", "faithful"): "claims 1 and 2 (who meets when and why; Helena drives, does not climb) "
    "rejected: P(yes) 0.198, 0.139, 0.641 in fp32, 0.179, 0.123, 0.611 in bf16 (alignment 0.33)",
    ("aligned", "meeting", "faithful"): "claim 3 (who runs the stalls, who decided on free entry) rejected: P(yes) "
    "0.750, 0.588, 0.239 in fp32, 0.725, 0.542, 0.216 in bf16 (alignment 0.67)",
    ("below", "news", "name"): "Imogen Tarrant for Rafael Okonjo accepted at P(yes) 0.842 in fp32, 0.825 in bf16, above "
    "the faithful claim's 0.779 / 0.751 (alignment 1)",
    ("claim", "news", "name"): "Imogen Tarrant for Rafael Okonjo: P(yes) 0.842 in fp32, 0.825 in bf16 (faithful 0.779 "
    "/ 0.751)",
    ("claim", "dialogue", "speaker"): "Priya for Tomasz booking the passes: P(yes) 0.628 in fp32, 0.604 in bf16 "
    "(faithful 0.641 / 0.611)",
}


@pytest.fixture(scope="module", params=["float32", "bfloat16"])
def scored(request):
    """(dtype, {(kind, variant): the row of `score_summaries`}): all rows in one batched call."""
    judge = load_judge(DEFAULT_JUDGE, dtype=request.param)
    rows = score_summaries(
        judge,
        [summary for *_, summary in ROWS],
        [[source] for _, _, source, _ in ROWS],
        final="min",
        max_questions=1,
    )
    assert JUDGE_SETTINGS[DEFAULT_JUDGE]["alignment"] == TUNED_ALIGNMENT and "+adapter:" in rows[0]["verdict_settings"]
    by_case = {(kind, variant): row for (kind, variant, *_), row in zip(ROWS, rows)}
    print(f"\n{request.param}: alignment, P(yes) per claim")
    for (kind, variant), row in by_case.items():
        print(f"  {kind:9} {variant:9} {row['alignment_score']:.2f}  {claim_p_yes(row)}")
    return request.param, by_case


def claim_p_yes(row):
    return [round(claim["p_yes"], 3) for claim in row["claims"]]


def expect_known_miss(request, check, kind, variant):
    miss = KNOWN_MISSES.get((check, kind, variant))
    if miss:
        request.applymarker(pytest.mark.xfail(strict=False, reason=miss))


@pytest.mark.parametrize("kind", list(CASES))
def test_a_faithful_summary_of_each_kind_is_judged_fully_aligned(scored, kind, request):
    expect_known_miss(request, "aligned", kind, "faithful")
    row = scored[1][kind, "faithful"]
    assert row["error"] is None and row["alignment_score"] == 1, claim_p_yes(row)


@pytest.mark.parametrize("kind, swap", SWAPS)
def test_a_summary_with_one_swap_is_judged_below_full_alignment(scored, kind, swap, request):
    expect_known_miss(request, "below", kind, swap)
    row = scored[1][kind, swap]
    assert row["error"] is None and row["alignment_score"] < 1, claim_p_yes(row)


@pytest.mark.parametrize("kind, swap", SWAPS)
def test_the_changed_claim_of_a_swapped_summary_is_judged_unsupported(scored, kind, swap, request):
    expect_known_miss(request, "claim", kind, swap)
    faithful, swapped = (scored[1][kind, variant]["claims"] for variant in ("faithful", swap))
    changed = [b for a, b in zip(faithful, swapped, strict=True) if a["claim"] != b["claim"]]
    assert len(changed) == 1 and changed[0]["p_yes"] < 0.5, claim_p_yes(scored[1][kind, swap])


def test_a_summary_laid_out_as_a_list_is_judged_by_what_its_items_say(scored):
    # its list markers and bold are no part of a claim, and its lead-in, which announces the summary, is none either
    # (`text.claim_sentences`)
    listed, plain = scored[1]["news as a list", "faithful"], scored[1]["news", "faithful"]
    assert [claim["claim"] for claim in listed["claims"]] == [claim["claim"] for claim in plain["claims"]]
    # the same list written on one line ("… of the article: 1. On Tuesday, … 2. Work is …"), or with pictographs for
    # bullets and italics for bold ("✅ On Tuesday, … into _180 affordable homes_"), has the same claims
    pictographs = re.sub(r"^\d\. ", "✅ ", LISTED_NEWS, flags=re.MULTILINE).replace("**", "_")
    for layout in (" ".join(LISTED_NEWS.split()), pictographs):
        assert claim_sentences(layout) == [claim["claim"] for claim in listed["claims"]]
    assert listed["error"] is None and listed["alignment_score"] == 1, claim_p_yes(listed)
    swapped = scored[1]["news as a list", "number"]
    assert swapped["alignment_score"] < 1 and swapped["claims"][-1]["p_yes"] < 0.5, claim_p_yes(swapped)



def test_a_summary_written_as_terse_notes_is_judged_item_by_item(scored):
    # each item states its own facts, however short: a claim of its own; the lead-in goes with the first
    notes, swapped = scored[1]["news as notes", "faithful"], scored[1]["news as notes", "number"]
    assert [claim["claim"] for claim in notes["claims"]] == [f"Key points: {NOTE_ITEMS[0]}", *NOTE_ITEMS[1:]]
    assert notes["error"] is None and notes["alignment_score"] == 1, claim_p_yes(notes)
    assert swapped["alignment_score"] < 1 and swapped["claims"][1]["p_yes"] < 0.5, claim_p_yes(swapped)
    assert [claim["p_yes"] for claim in swapped["claims"][2:]] == [claim["p_yes"] for claim in notes["claims"][2:]]


def test_a_chinese_summary_laid_out_as_a_list_is_judged_by_what_its_items_say(scored):
    # its lead-in, which announces the summary and ends in a full-width colon, and "一、" and "・" are no part of a claim
    listed = scored[1]["Chinese news as a list", "faithful"]
    claims = [claim["claim"] for claim in listed["claims"]]
    assert len(claims) == 3 and claims[0].startswith("埃斯特威克") and claims[2].startswith("议员"), claims
    assert listed["error"] is None and listed["alignment_score"] == 1, claim_p_yes(listed)
    swapped = scored[1]["Chinese news as a list", "number"]
    assert swapped["alignment_score"] < 1 and swapped["claims"][-1]["p_yes"] < 0.5, claim_p_yes(swapped)


@pytest.mark.parametrize("opening, closing", [
    ("Certainly! Here is a brief summary of the text:\n\n", "\n\nLet me know if you'd like more details!"),
    ("Sure! Here's a concise summary of the article:\n", " I hope this helps!"),
    ("Below is a three-sentence summary.\n\n", "\n\nWould you like me to expand on any part?"),
])
def test_a_summary_written_as_a_chat_reply_is_judged_by_what_it_says(scored, opening, closing):
    # what a chat model says to its user around the summary is no claim: it was one, which the judge rejected (P(yes)
    # 0.015 to 0.218 on the README's source, 2026-12-01), or it was joined to the first or last claim and took its
    # P(yes) under 0.5 ("Certainly! Here is … of the text: Harlow Bay will build …", 0.445); the faithful summary and
    # its twin with one number swapped read as their plain text, whose claims the judge decides
    _, faithful, swapped = CASES["news"]
    for variant, summary in [("faithful", faithful), ("number", swapped["number"])]:
        claims = claim_sentences(opening + summary + closing)
        assert claims == [claim["claim"] for claim in scored[1]["news", variant]["claims"]]
    assert scored[1]["news", "faithful"]["alignment_score"] == 1 and scored[1]["news", "number"]["alignment_score"] < 1
