"""Fitted verdicts: the pieces exactly (no model), `localjudge.calibrate` on made-up rows with the small judge."""

import json
import math
import re
import sys
from pathlib import Path

import evaluate
import pytest

import localjudge
from localjudge import calibration, score_contexts, score_summaries
from localjudge.cli import main as cli_main
from localjudge.maths import is_yes
from localjudge.prompts import Verdict
from localjudge.settings import (
    SETTINGS_FORMAT, load_settings, resolve_settings, save_settings, settings_fingerprint, settings_label,
)
from localjudge.text import claim_sentences, closest_sentence, source_windows, split_sentences
from localjudge.verdicts import (
    METHODS, add_relative_signals, expand, field_spans, item_verdict, judge_items, token_signals,
)

from helpers import ScriptedJudge

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from calibrate_example import PAIRS, RAG, summary_rows  # noqa: E402  (the README's calibration example)


# ------------------------------------------------------------------ pieces, exactly
def test_sentences_of_scripts_without_spaces_after_full_stops():
    assert split_sentences("哈尔洛湾将修建游泳池。费用为320万欧元。预计2027年开放。") == [
        "哈尔洛湾将修建游泳池。", "费用为320万欧元。", "预计2027年开放。"
    ]
    assert split_sentences("Dr. Lee paid $3.2 million for it. The pool opens in June.") == [
        "Dr. Lee paid $3.2 million for it.", "The pool opens in June."
    ]


# written for this test: a German date, a German century, a Polish date (its month in lower case), a Turkish
# century; then sentences that end in a number, in cased and in lower-cased text, which still end there
DAYS_AND_ORDINALS = [
    ["Der Stadtrat von Harlow tagte am 4. November im Rathaus.", "Frau Dunn legte den Plan vor."],
    ["Das alte Schwimmbad von Harlow wurde im 19. Jahrhundert am Fluss gebaut.", "Es schließt für den Umbau bis 15. Mai."],
    ["Rada miasta Harlow zebrała się 4. listopada w ratuszu.", "Pani Dunn przedstawiła plan."],
    ["Havuz, şehrin eski surlarına 14. yüzyılda bir kuleyle birlikte eklendi."],
    ["The council approved the plan by 7 votes to 2.", "Then the pool's cost was set."],
    ["the council approved the plan by 7 votes to 2.", "the pool's cost was set later."],
]


@pytest.mark.parametrize("sentences", DAYS_AND_ORDINALS, ids=["de-date", "de-century", "pl-date", "tr-century", "en", "en-lower"])
def test_a_days_or_an_ordinals_full_stop_ends_no_sentence_and_a_numbers_last_one_still_does(sentences):
    assert split_sentences(" ".join(sentences)) == sentences


def test_a_lines_short_opening_goes_with_its_line_and_a_colon_with_what_follows():
    # a chat turn that opens with a short sentence keeps its speaker, a list item its marker, a name on a line of
    # its own the turn it introduces (and not the turn before it); a short line alone still joins the sentence before it
    chat = "Ivo: can you water my plants on Friday?\nNoor: Sure. I will water them on Friday and Saturday.\nIvo: thanks"
    assert split_sentences(chat) == [
        "Ivo: can you water my plants on Friday?", "Noor: Sure. I will water them on Friday and Saturday. Ivo: thanks"
    ]
    assert split_sentences("1. The council approved the pool.\n2. It will cost 3.2 million euros.") == [
        "1. The council approved the pool.", "2. It will cost 3.2 million euros."
    ]
    assert split_sentences("Ivo:\nCan you water my plants on Friday?\nNoor:\nSure, I can do that.") == [
        "Ivo: Can you water my plants on Friday?", "Noor: Sure, I can do that."
    ]
    # a summary's lead-in line after its first paragraph opens the list, the last line's goes with the line before
    listed = "The council approved the pool.\n\nKey points:\n- It opens in June 2027.\n- It costs 3.2 million euros."
    assert claim_sentences(listed) == [
        "The council approved the pool.", "Key points: It opens in June 2027.", "It costs 3.2 million euros."
    ]
    assert split_sentences("The council approved the pool.\nKey points:") == ["The council approved the pool. Key points:"]


# written for this test: an abbreviation of the text's own language before a word in lower case (German "v. Chr.",
# "bzw.", Spanish "EE. UU.", Russian and Bulgarian "г.") or before a German noun ("Mio. Euro"), which English rules
# end a sentence at; an acronym that ends a sentence before a capital (Italian "all'UE. I lavori"), which still
# ends it; a short abbreviation or initials of a language whose abbreviations English rules do not know, before a
# capital or a number (Vietnamese "TP.", Indonesian "Jl.", Greek and Hindi initials, the Thai era "ค. ศ."); and in
# English a short word alone, a sentence, which stays with the one before it as a short piece
OWN_ABBREVIATIONS = [
    ["Der Tempel von Harlow wurde um 280 v. Chr. gebaut und stand am alten Hafen.", "Heute ist nur sein Sockel erhalten."],
    ["Die Karten kosten zwölf Euro bzw. acht Euro für Kinder unter zwölf Jahren.", "Der Verkauf beginnt im Mai."],
    ["Das Schwimmbad von Harlow kostet 3,2 Mio. Euro und wird im Juni eröffnet.", "Der Bau beginnt im Frühjahr."],
    ["El gobierno de EE. UU. financia la mitad de la nueva piscina de Harlow.", "Las obras empiezan en junio."],
    ["Бассейн в Харлоу построили в 1984 г. на берегу реки рядом со старым рынком.", "Его закроют на ремонт весной."],
    ["Басейнът в Харлоу е построен през 1984 г. на брега на реката до стария пазар.", "Ще бъде затворен за ремонт през пролетта."],
    ["Il comune di Harlow ha chiesto i fondi all'UE.", "I lavori inizieranno a giugno del prossimo anno."],
    ["Chính sách mới sẽ có hiệu lực vào năm sau.", "TP. Hồ Chí Minh sẽ áp dụng chính sách này trước tiên."],
    ["Pemerintah kota mengumumkan kebijakan baru.", "Jl. Sudirman akan ditutup selama dua minggu."],
    ["Ο όγκος των πωλήσεων είναι μεγαλύτερος στις Η. Π. Α. από ότι στη Γαλλία.", "Αυτό είναι γνωστό εδώ και χρόνια."],
    ["हार्लो का नया तरणताल यू. एस. के एक ठेकेदार ने बनाया।", "यह अगले साल जून के महीने में खुलेगा।"],
    ["สระว่ายน้ำเก่าสร้างขึ้นในปี ค. ศ. 1984 ริมแม่น้ำ"],
    ["Noor: Can you water my plants on Friday? Yes.", "I will come by on Friday and on Saturday."],
]


@pytest.mark.parametrize("sentences", OWN_ABBREVIATIONS, ids=[
    "de-era", "de-bzw", "de-noun", "es", "ru", "bg", "it-acronym", "vi", "id", "el", "hi", "th", "en-yes"])
def test_an_abbreviation_of_the_texts_own_language_ends_no_sentence(sentences):
    assert split_sentences(" ".join(sentences)) == sentences


def test_a_list_in_running_text_numbers_its_items_not_the_sentences_before_them():
    # the numbers of a list written on one line go with their items, after a sentence or a lead-in's colon; the
    # claims drop them; a lone number after a sentence (a player's rating) and a time stay where they are
    listed = "Top stories this week. 1. The mayor resigned after the vote. 2. The bridge reopened after repairs."
    assert split_sentences(listed) == [
        "Top stories this week.", "1. The mayor resigned after the vote.", "2. The bridge reopened after repairs."
    ]
    assert claim_sentences("The article makes three points: 1. The mayor resigned after the vote. 2. The bridge "
                           "reopened after repairs. 3. Taxes rise by 2 percent next year.") == [
        "The article makes three points: The mayor resigned after the vote.", "The bridge reopened after repairs.",
        "Taxes rise by 2 percent next year.",
    ]
    assert split_sentences("Green - His long kick led to the late winner. 6. Cahill - He dealt with the threat well.") == [
        "Green - His long kick led to the late winner. 6.", "Cahill - He dealt with the threat well."
    ]
    assert split_sentences("Noor said: let's meet at 12:30. It will take us three or four hours.") == [
        "Noor said: let's meet at 12:30.", "It will take us three or four hours."
    ]


# written for this test: the README's faithful summary as a language model might lay it out, in English (a numbered
# list, markdown, pictographs as bullets, a quote in italics, a heading underlined and a rule, citations with the
# sources they number, links) and in Chinese (a
# lead-in that ends in a full-width colon, list markers that no space follows)
ENGLISH_ITEMS = ["Harlow Bay will build a 3.2 million euro public pool.", "It should open in June 2027."]
CHINESE_ITEMS = ["哈尔洛湾将修建一座耗资320万欧元的公共游泳池。", "泳池预计于2027年6月开放。"]
LAID_OUT_SUMMARIES = {
    "numbered": ("Here is a short summary of the article:\n\n1. Harlow Bay will build a 3.2 million euro public pool.\n"
                 "2. It should open in **June 2027**.", ENGLISH_ITEMS),
    "markdown": ("## Key points\n- Harlow Bay will build a 3.2 million euro public pool.\n- It should open in June 2027.",
                 ENGLISH_ITEMS),
    "lettered": ("* (a) Harlow Bay will build a 3.2 million euro public pool.\n* (b) It should open in __June 2027__.",
                 ENGLISH_ITEMS),
    "pictographs": ("Key takeaways:\n✅ Harlow Bay will build a 3.2 million euro public pool.\n👉🏽 It should open in June "
                    "2027.", ENGLISH_ITEMS),
    "quoted-italics": ("> *Harlow Bay will build a 3.2 million euro public pool.*\n> It should open in _June 2027_.",
                       ENGLISH_ITEMS),
    "setext-rule": ("Summary\n=======\nHarlow Bay will build a 3.2 million euro public pool.\n\n---\nIt should open in "
                    "June 2027.", ENGLISH_ITEMS),
    "cited": ("Harlow Bay will build a 3.2 million euro public pool [1].\nIt should open in June 2027 [1, 2].\n\n"
              "**Sources**\n- [1] Harlow Bay council\n- [2] https://example.org/pool", ENGLISH_ITEMS),
    "linked": ("[Harlow Bay](https://example.org/hb) will build a 3.2 million euro public pool "
               "([source](https://example.org/pool)).\nIt should open in June 2027[^1].\n[^1]: https://example.org",
               ENGLISH_ITEMS),
    "html": ("<p>Harlow Bay will build a <b>3.2 million euro</b> public pool.</p><p>It should open in June 2027.<br/></p>",
             ENGLISH_ITEMS),
    "html-list": ('<ul>\n  <li>Harlow Bay will build a 3.2 million euro public pool.</li>\n  <li class="last">It should '
                  'open in <span style="color: red">June 2027</span>.</li>\n</ul>', ENGLISH_ITEMS),
    "fenced": ("```text\nHarlow Bay will build a 3.2 million euro public pool.\nIt should open in June 2027.\n```",
               ENGLISH_ITEMS),
    "inline-pictographs": ("Harlow Bay will build a 3.2 million euro public pool 🏊.\nIt should open in June 2027. 🎉🙌🏽 "
                           "#HarlowBay #pool", ENGLISH_ITEMS),
    "reasoning": ("<think>\nThe user wants a summary. I should keep the cost and the date.\n</think>\n\nHarlow Bay will "
                  "build a 3.2 million euro public pool.\nIt should open in June 2027.", ENGLISH_ITEMS),
    "reasoning-off": ("<think>\n\n</think>\n\nHarlow Bay will build a 3.2 million euro public pool. It should open in "
                      "June 2027.", ENGLISH_ITEMS),
    "zh-enumerated": ("以下是文章的摘要：\n一、哈尔洛湾将修建一座耗资320万欧元的公共游泳池。\n二、泳池预计于2027年6月开放。", CHINESE_ITEMS),
    "zh-bullets": ("摘要：\n・哈尔洛湾将修建一座耗资320万欧元的公共游泳池。\n・泳池预计于2027年6月开放。", CHINESE_ITEMS),
    "zh-parenthesised": ("以下是文章的摘要：\n（1）哈尔洛湾将修建一座耗资320万欧元的公共游泳池。\n②泳池预计于2027年6月开放。",
                         CHINESE_ITEMS),
}


@pytest.mark.parametrize("summary, items", LAID_OUT_SUMMARIES.values(), ids=LAID_OUT_SUMMARIES)
def test_a_summarys_lead_in_list_markers_headings_and_bold_are_no_claims_of_their_own(summary, items):
    claims = claim_sentences(summary)
    assert claims[1:] == items[1:] and claims[0].endswith(items[0])
    marks = ("*", "_", "#", "- ", "1.", "(a)", "✅", "👉", "🏽", ">", "=", "---", "[", "http", "Sources", "<", "`", "🏊", "🎉", "think", "一、",
             "・", "（1）", "②")
    assert not any(mark in claim for claim in claims for mark in marks)


@pytest.mark.parametrize("title", [
    "## Summary of the Harlow Bay council decision", "# Harlow Bay Approves New Public Pool", "**Harlow Bay Approves New Pool**",
    "Summary of the council's decision\n===", "### Key Points",
])
def test_a_summarys_title_and_headings_are_no_claims(title):
    # a title states nothing the judge could find in the source; nor does a section's heading, which used to end the
    # sentence before it ("… public pool. When"); a summary that is a title alone is judged as it stands
    laid_out = f"{title}\n\n{ENGLISH_ITEMS[0]}\n\n## When\n- {ENGLISH_ITEMS[1]}\n- Entry will be free for children under twelve."
    assert claim_sentences(laid_out) == [*ENGLISH_ITEMS, "Entry will be free for children under twelve."]
    assert claim_sentences("# Harlow Bay will build a public pool") == ["Harlow Bay will build a public pool"]
    html = (f"<h2>Summary of the Harlow Bay council decision</h2><p>{ENGLISH_ITEMS[0]}</p><h3>When</h3>"
            f"<ul><li>{ENGLISH_ITEMS[1]}</li></ul>")
    assert claim_sentences(html) == ENGLISH_ITEMS
    # bold around a sentence, or a list item in bold, is a claim still
    assert claim_sentences(f"**{ENGLISH_ITEMS[0]}**\n- **It should open in June 2027**") == [
        ENGLISH_ITEMS[0], "It should open in June 2027"]


@pytest.mark.parametrize("heading", ["When", "Budget approved", "Next steps"])
def test_a_heading_typed_plainly_in_a_summary_goes_with_the_claim_after_it(heading):
    # a short line after a blank line ended the claim before it ("… public pool. When"); it may be a terse note's
    # line as well as a heading, so it is kept, on the claim it introduces, as a source's typed heading is
    for gap in ("\n\n", "\n"):
        summary = f"{ENGLISH_ITEMS[0]}\n\n{heading}{gap}{ENGLISH_ITEMS[1]}"
        assert claim_sentences(summary) == [ENGLISH_ITEMS[0], f"{heading}: {ENGLISH_ITEMS[1]}"]
    assert claim_sentences(f"{ENGLISH_ITEMS[0]}\n\n{heading}\n- {ENGLISH_ITEMS[1]}\n- Entry is free.") == [
        ENGLISH_ITEMS[0], f"{heading}: {ENGLISH_ITEMS[1]}", "Entry is free."]


def test_marks_around_no_word_are_part_of_a_claim():
    # a censored word or an emoticon is what the summary says, not bold or italics
    kept = ["Lauda called Rosberg and Hamilton 'egocentric b*******'.", "The nurse called them 'n*****' in a note.",
            "Kristi was glad her friend remembered (*^0^*) and Leah asked for a favour (;_;)."]
    assert claim_sentences("\n".join(kept)) == kept
    assert claim_sentences("It was **not** a *small* fire, said the f***ing chef.") == [
        "It was not a small fire, said the f***ing chef."
    ]


# written for this test: the README's faithful summary as a chat model's reply, with its courtesies before and after
# it, in the five languages of the project's plain texts
GERMAN_ITEMS = ["Harlow Bay baut ein öffentliches Schwimmbad für 3,2 Millionen Euro.", "Es soll im Juni 2027 öffnen."]
FRENCH_ITEMS = ["Harlow Bay construira une piscine publique de 3,2 millions d'euros.", "Elle doit ouvrir en juin 2027."]
SPANISH_ITEMS = ["Harlow Bay construirá una piscina pública de 3,2 millones de euros.", "Abrirá en junio de 2027."]
# (opening, the items, what joins them, closing)
REPLIES = {
    "en-certainly": ("Certainly! Here is a brief summary of the text:\n\n", ENGLISH_ITEMS, " ",
                     "\n\nLet me know if you'd like a longer summary or more details!"),
    "en-sure-list": ("Sure! Here’s a concise summary of the article:\n- ", ENGLISH_ITEMS, "\n- ",
                     "\n\nI hope this helps! Would you like me to expand on any part?"),
    "en-announced": ("Below is a two-sentence summary. ", ENGLISH_ITEMS, " ", " I hope this summary helps."),
    "en-one-line": ("Here is a summary of the article, as of 12:30: ", ENGLISH_ITEMS, " ",
                    " If you need anything else, just let me know."),
    "de": ("Gerne! Hier ist eine Zusammenfassung des Artikels:\n", GERMAN_ITEMS, " ",
           "\nIch hoffe, das hilft! Wenn du weitere Fragen hast, sag Bescheid."),
    "fr": ("Bien sûr ! Voici un résumé de l'article :\n", FRENCH_ITEMS, " ", " N'hésitez pas à me demander plus de détails."),
    "es": ("¡Claro! Aquí tienes un resumen:\n1. ", SPANISH_ITEMS, "\n2. ", "\n\nEspero que esto te sea útil."),
    "zh": ("好的，以下是文章的摘要：\n", CHINESE_ITEMS, "", "\n希望这对您有帮助！如果您需要更多细节，请告诉我。"),
    "it": ("Certo! Ecco un riassunto dell'articolo:\n", ["Harlow Bay costruirà una piscina pubblica da 3,2 milioni di euro.",
           "Dovrebbe aprire a giugno 2027."], " ", "\n\nSpero che questo riassunto ti sia utile!"),
    "pt": ("Claro! Aqui está um resumo do artigo:\n", ["Harlow Bay vai construir uma piscina pública de 3,2 milhões de euros.",
           "Deve abrir em junho de 2027."], " ", "\n\nEspero que este resumo seja útil!"),
    # a note on the summary itself after it
    "en-note": ("", ENGLISH_ITEMS, " ", "\n\nNote: This summary is based only on the provided article."),
    "en-note-in-brackets": ("", ENGLISH_ITEMS, "\n", " (Please note that the summary above was written from the text alone.)"),
    "de-note": ("", GERMAN_ITEMS, " ", "\n\nHinweis: Diese Zusammenfassung basiert ausschließlich auf dem Artikel."),
    "es-note": ("", SPANISH_ITEMS, " ", "\nNota: este resumen se basa únicamente en el texto proporcionado."),
    "zh-note": ("", CHINESE_ITEMS, "", "\n注：本摘要仅基于所提供的文章。"),
}


@pytest.mark.parametrize("opening, items, joiner, closing", REPLIES.values(), ids=REPLIES)
def test_what_a_chat_model_says_to_its_user_around_a_summary_is_no_claim(opening, items, joiner, closing):
    assert claim_sentences(opening + joiner.join(items) + closing) == items


@pytest.mark.parametrize("title", ["Meeting Summary\n", "📌 Summary", "Summary of the Harlow Bay council meeting\n",
                                   "📝 Harlow Bay Council: Meeting Recap\n", "TL;DR", "Zusammenfassung"])
def test_a_title_that_names_the_summary_is_no_claim(title):
    # a chat model heads its summary with a title: alone, it was a claim that no source states ("Harlow Bay Council:
    # Meeting Recap", P 0.39, alignment 0.67 for a faithful summary), or it ran into the first one ("Meeting Summary
    # Harlow Bay will build …")
    assert claim_sentences(f"{title}\n" + " ".join(ENGLISH_ITEMS)) == ENGLISH_ITEMS
    # a label with its value, a lead-in and a sentence without its stop stay what they were
    assert claim_sentences("Overview: Harlow Bay will build a pool\nIt should open in June 2027.") == [
        "Overview: Harlow Bay will build a pool", "It should open in June 2027."]
    assert claim_sentences("Key points:\n- Harlow Bay will build a pool.\n- It should open in June 2027.") == [
        "Key points: Harlow Bay will build a pool.", "It should open in June 2027."]
    assert claim_sentences("The council summarised its plan for a pool\nIt should open in June 2027.") == [
        "The council summarised its plan for a pool", "It should open in June 2027."]


@pytest.mark.parametrize("greeting, closing", [("Hi team,", "Best regards,\nMaeve Dunn\nHead of Communications"),
                                               ("Dear Ms Berg,", "Thanks,\nMaeve"), ("Hallo zusammen,", "Viele Grüße\nMaeve")])
def test_a_recap_sent_as_a_letter_is_judged_by_what_it_says(greeting, closing):
    # a summary written as an e-mail to the team: its greeting ran into the first claim and its closing, the sender's
    # name and role were claims of their own ("Best regards," P 0.25, "Head of Events" 0.28: a faithful recap's
    # alignment 0.6)
    assert claim_sentences(f"{greeting}\n\n" + "\n".join(ENGLISH_ITEMS) + f"\n\n{closing}") == ENGLISH_ITEMS
    # a greeting or a thanks that opens a sentence, and a text that is nothing else, are kept
    for kept in (["Hi there! Harlow Bay will build a 3.2 million euro public pool."],
                 ["Thanks to a grant, Harlow Bay will build a pool."], ["Best regards,"]):
        assert claim_sentences("\n".join(kept)) == kept


def test_a_summarys_own_wishes_offers_and_lead_ins_are_claims():
    # the courtesies are a reply's opening and closing words to its reader; the same words stating what a source
    # says, or a lead-in that does not announce the summary, stay claims
    kept = ["The council approved three projects: a pool by the school and a new library.",
            "Feel free to bring your dog, reviewers say.", "If you want a quiet room, ask for the top floor.",
            "I hope this pool opens soon, Maeve Dunn said.", "Note that entry is free for children under twelve."]
    assert claim_sentences("\n".join(kept)) == kept
    assert claim_sentences("哈尔洛湾将修建一座泳池。希望这座泳池早日开放。") == ["哈尔洛湾将修建一座泳池。", "希望这座泳池早日开放。"]
    assert claim_sentences("Here is the key point: " + ENGLISH_ITEMS[0]) == ENGLISH_ITEMS[:1]
    assert claim_sentences("Here is Harlow Bay's plan. " + ENGLISH_ITEMS[0]) == ["Here is Harlow Bay's plan.", ENGLISH_ITEMS[0]]
    # a text that is nothing but courtesies is judged as what it says (an NLI hypothesis, a summary that failed)
    for alone in ("I hope this helps!", "Sure! Here is the summary:", "¿Te gustaría venir a la piscina el sábado?"):
        assert claim_sentences(alone) == [alone]

def test_a_summary_laid_out_as_a_table_is_judged_row_by_row():
    # the header row and the rule state nothing; a row reads as its first cell and what the others say
    table = ("| Item | Cost | Opens |\n| :--- | ---: | :-: |\n| Harlow Bay's public pool | 3.2 million euros | June 2027 |\n"
             "| The Elm Road school | nothing | |")
    assert claim_sentences(table) == ["Harlow Bay's public pool: 3.2 million euros, June 2027.", "The Elm Road school: nothing."]
    # a bar in running text and a comparison are text, and so are a name in hashes and a degree sign
    assert claim_sentences("#Person1# asks #Person2# the way to the pool.\nIt is 20 °C in Harlow Bay today.") == [
        "#Person1# asks #Person2# the way to the pool.", "It is 20 °C in Harlow Bay today."
    ]
    assert claim_sentences("The score was 3 | 2 after the break.\nThe test holds for a<b and c>d in every case.") == [
        "The score was 3 | 2 after the break.", "The test holds for a<b and c>d in every case."
    ]


def test_a_short_list_item_or_table_row_is_a_claim_of_its_own():
    # an item shorter than a sentence states its own facts: it ran into its neighbours, "Pool approved by council
    # Cost €3.2m Opens June 2027", one claim the judge rejected for any of them
    assert claim_sentences("* Pool approved by council\n* Cost €3.2m\n\n* Opens June 2027") == [
        "Pool approved by council", "Cost €3.2m", "Opens June 2027"]
    assert claim_sentences("| Item | Detail |\n|---|---|\n| Cost | €3.2m |\n| Opens | June 2027 |") == [
        "Cost: €3.2m.", "Opens: June 2027."]
    # a lead-in and a nested list's lead-in still go with the item after them (a heading is none); a line too short
    # for a sentence above the list (its title) with the first item; a short sentence of an item with the item
    assert claim_sentences("Key facts:\n- Cost €3.2m\n- Costs:\n  - pool: €3.2m\n  - car park: €0.4m") == [
        "Key facts: Cost €3.2m", "Costs: pool: €3.2m", "car park: €0.4m"]
    assert claim_sentences("## When\n- Opens June 2027\n- Closes 2040") == ["Opens June 2027", "Closes 2040"]
    assert claim_sentences("Harlow Bay pool\n- Cost €3.2m\n- Opens June 2027") == [
        "Harlow Bay pool Cost €3.2m", "Opens June 2027"]
    assert claim_sentences("- The council approved the pool. It costs €3.2m.\n- Opens 2027") == [
        "The council approved the pool. It costs €3.2m.", "Opens 2027"]
    # lines of prose, not a list, still join when too short for a sentence, and so do an item's wrapped line and a
    # quote's lines
    assert claim_sentences("Pool approved.\nCost €3.2m.") == ["Pool approved. Cost €3.2m."]
    assert claim_sentences("- The council voted to build a pool next to\n  the school.\n- It opens in June 2027.") == [
        "The council voted to build a pool next to the school.", "It opens in June 2027."]
    assert claim_sentences("> The council voted to build a pool next to\n> the school.") == [
        "The council voted to build a pool next to the school."]


@pytest.mark.parametrize("marker", ["-", "*", "1.", "•"])
def test_a_short_item_above_items_indented_under_it_labels_the_first_of_them(marker):
    # a chat model's nested list: an item too short for a sentence above the items indented under it ("- **Costs**")
    # was a claim of its own, "Costs", which the judge reads against the source as it can (0.2 to 0.8); it introduces
    # the first item under it, as a heading does
    summary = f"{marker} **Costs**\n    - Pool: €3.2m\n    - Car park: €0.4m\n{marker} Opening\n\tJune 2027\n{marker} When\n\t- June 2027"
    # (a line indented without a marker is the item's own wrapped line)
    assert claim_sentences(summary) == ["Costs: Pool: €3.2m", "Car park: €0.4m", "Opening June 2027", "When: June 2027"]
    # a short item above an item at its own depth is a claim of its own still, and so is a sentence above a nested list
    assert claim_sentences("- Gym\n- Pool\n  - heated") == ["Gym", "Pool: heated"]
    assert claim_sentences("- The council approved the pool.\n  - It costs €3.2m.") == [
        "The council approved the pool.", "It costs €3.2m."]


def test_an_outlines_lettered_items_are_items_of_their_own():
    # "a." and "b." indented under a numbered item were read as words, and ran its items into one claim: "Budget a.
    # 40,000 euros for Q3 b. Up from 32,000"
    outline = "1. Budget\n   a. 40,000 euros for Q3\n   b. Up from 32,000\n2. Hiring\n   a. Advert by Friday"
    assert claim_sentences(outline) == ["Budget: 40,000 euros for Q3", "Up from 32,000", "Hiring: Advert by Friday"]
    # a letter and a stop that open a line unindented are a word or initials ("b." for born)
    for sentence in ("e. e. cummings wrote his poems in lower case.", "b. 1954 in Harlow Bay, the son of a baker."):
        assert claim_sentences(sentence) == [sentence]


@pytest.mark.parametrize("markers", [("- [ ]", "- [x]"), ("* [X]", "[ ]"), ("i.", "ii."), ("(i)", "(ii)"),
                                     ("iv)", "v)"), ("1/", "2/")])
def test_a_task_lists_boxes_roman_numerals_and_a_threads_numbers_are_list_markers(markers):
    # an action item's box ("- [ ] Ben sends …") was read as words of the claim, and the judge called a faithful item
    # unsupported (P 0.83 -> 0.42); "ii." and a thread's "2/" opened the claim too
    first, second = markers
    summary = f"{first} The council voted to build a pool.\n{second} It opens in June 2027."
    assert claim_sentences(summary) == ["The council voted to build a pool.", "It opens in June 2027."]
    # a share, a street number and a round-the-clock service keep their numbers; an "i." before a lower-case word is
    # a word
    for sentence in ("3/4 of the council voted for the pool.", "24/7 lifeguards watch the pool.",
                     "i. e. the pool opens in June 2027."):
        assert claim_sentences(sentence) == [sentence]


@pytest.mark.parametrize("cited", ["[Document 2]", "[doc1]", "[Context 3, 4]", "(Source 1)", "(source: Document 2, p. 3)",
                                   "【4†source】", "([1])", "[1][2]"])
def test_a_rag_answers_citations_of_its_documents_are_no_part_of_its_claims(cited):
    # a RAG answer cites the retrieved documents by name and number: read as words of the claim, which no document
    # states; a parenthesis that names a source as a word stays
    assert claim_sentences(f"It should open in June 2027 {cited}.") == [ENGLISH_ITEMS[1]]
    kept = "The Seine (source of much of Paris's water) is long."
    assert claim_sentences(kept) == [kept]


def test_a_short_claim_above_its_sources_is_no_heading_of_them():
    # a short summary or a terse note's last line above its sources was taken for their heading and dropped
    assert claim_sentences("Opens June 2027.[1]\n\n[1] Harlow Bay council") == ["Opens June 2027."]
    assert claim_sentences("Opens June 2027\nCost €3.2m\n[1] Harlow Bay council") == ["Opens June 2027 Cost €3.2m"]
    # the heading above them goes: a lead-in, or a short line standing apart
    for heading in ("Sources:", "**References**", "References"):
        assert claim_sentences(f"{ENGLISH_ITEMS[0]}\n\n{heading}\n[1] Harlow Bay council") == ENGLISH_ITEMS[:1]


def test_short_lines_that_open_with_an_emoji_are_items():
    # a chat model's list with an emoji for each item: too short for sentences, the items ran into one claim
    assert claim_sentences("✅ Pool approved by the council\n💶 Cost: €3.2 million\n📅 Opening: June 2027") == [
        "Pool approved by the council", "Cost: €3.2 million", "Opening: June 2027"]


def test_a_short_item_that_ends_a_list_takes_on_neither_the_next_lead_in_nor_the_next_paragraph():
    # "Opens 2028" ran into the lead-in of the list after it, "Opens 2028 Facilities: Gym", and a lead-in joined by
    # its first item took the second item on too, "Facilities: Gym Pool": claims of two facts the judge decides as one
    assert claim_sentences("Costs:\n- £6m to build\n- Opens 2028\nFacilities:\n- Gym\n- Pool\n\nVote 27 to 9.") == [
        "Costs: £6m to build", "Opens 2028", "Facilities: Gym", "Pool", "Vote 27 to 9."]
    assert claim_sentences("- Opens 2028\n\nThe council voted for it on Tuesday.") == [
        "Opens 2028", "The council voted for it on Tuesday."]


def test_asterisks_that_wrap_no_words_and_a_year_that_opens_a_line_are_text():
    assert claim_sentences("He said the plan was s *** and walked out of the hall.\n2019. The pool closed that year.") == [
        "He said the plan was s *** and walked out of the hall.", "2019. The pool closed that year."
    ]


def test_windows_cover_every_sentence_within_the_size_and_overlap():
    sentences = [f"word{i} " * (3 + i % 4) for i in range(30)]
    count = lambda text: len(text.split())  # noqa: E731
    windows = source_windows(sentences, count, 20)
    assert windows[0][0] == 0 and windows[-1][1] == len(sentences)
    for (first, end), (next_first, next_end) in zip(windows, windows[1:]):
        assert next_first < end  # consecutive windows overlap
        assert first < next_first  # and move on
    for first, end in windows:
        assert sum(count(s) for s in sentences[first:end]) <= 20
    assert source_windows(sentences[:3], count, 1000) == [(0, 3)]
    assert source_windows(["one two three four five six"], count, 2) == [(0, 1)]  # a long sentence stands alone


def test_closest_sentence_by_character_trigrams():
    sentences = ["The pool opens in June.", "Der Preis beträgt 3,2 Millionen Euro."]
    assert closest_sentence("Es kostet 3,2 Millionen Euro.", sentences) == sentences[1]


def test_field_spans_and_token_signals():
    text, spans = field_spans("{question}\nAnswer: {answer}", {"question": "Why?", "answer": "Rain."})
    assert text == "Why?\nAnswer: Rain."
    assert spans == {"question": (0, 4), "answer": (13, 18)}
    signals = token_signals([-1.0, -2.0], [-3.0, -1.0])
    assert signals["gain_mean"] == pytest.approx(0.5)
    assert signals["gain_min"] == -1.0 and signals["kept_share"] == 0.5
    assert signals["explained"] == pytest.approx(1.0 / 4.0)  # (2 - 1) of 4 nats of surprisal
    assert signals["log_tokens"] == pytest.approx(math.log(2))
    assert all(math.isnan(v) for v in token_signals([], []).values())


def test_relative_signals_and_best_window():
    signals = add_relative_signals([{"g": 1.0}, {"g": 3.0}, {"g": 2.0}], ["a", "a", "b"])
    assert [s["rel_g"] for s in signals] == [-2.0, 0.0, 0.0]
    flat, owners = expand([{"document": ["w0", "w1"], "claim": "c"}, {"document": ["w0"], "claim": "d"}])
    assert owners == [0, 0, 1] and flat[1] == {"document": "w1", "claim": "c"}
    assert item_verdict([0.2, 0.7]) == (0.7, 1)
    assert math.isnan(item_verdict([math.nan])[0]) and math.isnan(item_verdict([])[0])
    assert item_verdict([math.nan, 0.3]) == (0.3, 1)


def test_windows_judged_best_first_give_the_first_that_supports_the_claim():
    # a later window can raise the probability but not the verdict: the first supporting one is the claim's
    assert item_verdict([0.2, 0.6, 0.9], ranked=True) == (0.6, 1)
    assert item_verdict([0.5, 0.9], ranked=True) == (0.5, 0)  # 0.5 supports (`maths.is_yes`)
    assert item_verdict([0.2, math.nan, 0.4], ranked=True) == (0.4, 2)  # none supports: the best, as unranked
    for probabilities in ([0.2, 0.6, 0.9], [0.1, 0.3], [0.7, 0.2], [math.nan, 0.8]):
        assert is_yes(item_verdict(probabilities, ranked=True)[0]) == is_yes(item_verdict(probabilities)[0])


def test_settings_files_round_trip(tmp_path):
    settings = {"alignment": Verdict("likelihood", 1.0, -0.5, {"claim_gain_mean": 2.0}, 512)}
    path = tmp_path / "settings.json"
    save_settings(path, settings, "made-up", {"rows": 20})
    assert load_settings(path) == settings == resolve_settings(str(path))
    assert settings_label(None, settings) == f"fitted:{settings_fingerprint(settings)}"
    (tmp_path / "other.json").write_text(json.dumps({"alignment": 1}))
    with pytest.raises(ValueError, match="not a localjudge settings file"):
        load_settings(tmp_path / "other.json")


def test_a_settings_file_of_the_grounding_head_era_loads_and_its_head_verdict_is_refused_by_method(tmp_path):
    # files written while the head shipped (removed: issue 30, item 5) hold its field in every verdict
    likelihood = Verdict("likelihood", 1.0, -0.5, {"claim_gain_mean": 2.0}, 512)
    head = {**likelihood._asdict(), "method": "head", "head": "qwen2.5-coder-0.5b"}
    path = tmp_path / "old.json"
    old = {"alignment": {**likelihood._asdict(), "head": ""}, "utilization": head}
    path.write_text(json.dumps({"format": SETTINGS_FORMAT, "settings": old}))
    settings = load_settings(path)
    assert settings["alignment"] == likelihood
    item = {"question": "Q", "answer": "A", "context": "C"}
    refused = f"method 'head' for utilization: a Verdict's method is one of {METHODS}"
    with pytest.raises(ValueError, match=re.escape(refused)):
        judge_items(ScriptedJudge(), "utilization", [item], settings=settings)


@pytest.mark.parametrize(
    "task, rows, message",
    [
        ("summarization_score", [{"summary": "s", "contexts": ["c"], "label": 1}] * 5, "at least 20"),
        ("summarization_score", [{"summary": "s", "contexts": ["c"], "label": 1}] * 25, "labelled 0"),
        ("summarization_score", [{"summary": "s", "contexts": ["c"], "label": "yes"}] * 25, "Row 0: label"),
        ("summarization_score", [{"summary": "s", "label": 1}] * 25, "Row 0 has no contexts"),
        ("context_utilization", [{"question": "q", "answer": "a", "contexts": ["c"], "useful": [1, 0]}] * 25, "Row 0: `useful`"),
        ("translation", [], "task must be one of"),
    ],
)
def test_calibrate_refuses_clearly(task, rows, message):
    with pytest.raises(ValueError, match=message):
        localjudge.calibrate(task, rows, judge="no-such-judge-is-loaded-before-the-checks")


# ------------------------------------------------------------------ the small judge
def test_calibrate_summaries_fits_saves_and_scores(smol_judge, tmp_path, capsys):
    path = tmp_path / "mine.json"
    report = localjudge.calibrate("summarization_score", summary_rows(), judge=smol_judge, path=path, progress=False)
    assert "kept: " in capsys.readouterr().out
    assert set(report["before"]) == set(report["after"]) == {"roc_auc", "balanced_accuracy"}
    assert all(0.0 <= value <= 1.0 for value in report["after"].values())
    setting = report["settings"]["alignment"]
    assert report["signals"] in report["candidates"] and report["after"] == report["candidates"][report["signals"]]
    assert report["candidates"]["the shipped settings"] == report["before"]
    assert report["after"]["balanced_accuracy"] == max(c["balanced_accuracy"] for c in report["candidates"].values())
    assert setting.method == "likelihood" and set(setting.signals) <= set(calibration.feature_names("alignment"))
    assert load_settings(path) == report["settings"]
    summaries = [f for _, f, _ in PAIRS[:2]]
    sources = [[s] for s, _, _ in PAIRS[:2]]
    fitted = score_summaries(smol_judge, summaries, sources, settings=str(path), progress=False)
    shipped = score_summaries(smol_judge, summaries, sources, progress=False)
    assert fitted[0]["verdict_settings"] == f"fitted:{settings_fingerprint(report['settings'])}"
    assert shipped[0]["verdict_settings"].startswith("shipped:smollm2-135m")
    for row in fitted:
        assert 0.0 <= row["alignment_score"] <= 1.0


def test_calibrate_chunks_and_the_cli_reads_the_file(smol_judge, tmp_path):
    rows = [{"question": q, "answer": a, "contexts": c, "useful": u} for q, a, c, u in RAG] * 10
    path = tmp_path / "chunks.json"
    report = localjudge.calibrate("context_utilization", rows, judge=smol_judge, path=path, progress=False)
    assert set(report["after"]) == {"roc_auc", "accuracy"}
    (row,) = score_contexts(smol_judge, [RAG[0][0]], [RAG[0][1]], [RAG[0][2]], settings=load_settings(path), progress=False)
    assert len(row["chunks"]) == 3 and 0.0 <= row["score"] <= 1.0
    # the evaluate module takes the file too, as its card says
    module = evaluate.load(str(Path(__file__).resolve().parent.parent / "context_utilization"))
    result = module.compute(question=[RAG[0][0]], answer=[RAG[0][1]], contexts=[RAG[0][2]], judge=smol_judge,
                            settings=str(path), return_details=True, progress=False)
    assert result["verdict_settings"] == f"fitted:{settings_fingerprint(report['settings'])}" == row["verdict_settings"]
    assert result["context_utilization"] == pytest.approx(row["score"])
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps({"question": RAG[0][0], "answer": RAG[0][1], "contexts": RAG[0][2]}) + "\n")
    out = tmp_path / "scored.jsonl"
    arguments = ["score", "context_utilization", str(data), "-o", str(out), "--judge", "smollm2-135m"]
    assert cli_main(arguments + ["--settings", str(path)]) == 0
    assert out.exists()
    assert cli_main(arguments + ["--settings", str(tmp_path / "missing.json")]) != 0
