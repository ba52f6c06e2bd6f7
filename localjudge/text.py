"""Text handling before anything reaches the judge: sentence units, source windows, parsing of generated lists,
quoting.

Untrusted text (summaries, answers, chunks) is quoted inside tags; any copy of the closing tag inside the
text is broken up, so the text cannot end its own quotation and speak as the prompt.
"""

import html.parser
import itertools
import json
import re
import unicodedata
from collections import Counter

import regex
import sentencex

# sentencex's rules for English also end sentences at the full stops of Chinese, Japanese, Hindi, Arabic and
# other scripts, and keep English abbreviations whole, which texts in other languages hold too ("M. Dupont", "St.
# Louis", "Inc."); the rules of a text's own language only add its abbreviations (`_own_abbreviations_kept`)
SEGMENTER_LANGUAGE = "en"
_MIN_SENTENCE_CHARS = 20
_CONTROL = {"Cc", "Cf", "Cs", "Co", "Cn"}
# sentencex's English rules end a sentence at every number's full stop, and many languages write a day or an
# ordinal with one: "am 4. November", "4. listopada", "im 19. Jahrhundert", "14. yüzyıl". The stop after a number of
# one or two digits ends no sentence when the next word is a German month, when the number follows a German article
# or contracted preposition, or when the next word is lower case after a sentence that began with a capital (in
# lower-cased text, "he was 88. best died…", it does end one); "He scored 4. Then…" still ends there.
_NUMBER_STOP = re.compile(r"(?:^|\s)(\S+\s+)?\d{1,2}\.$")
_GERMAN_MONTHS = frozenset(
    "Januar Jänner Februar Feber März April Mai Juni Juli August September Oktober November Dezember".split()
)
_GERMAN_BEFORE_ORDINAL = frozenset("am im vom zum zur beim der die das den dem des".split())
# languages that open every noun in a capital: after a stop that their rules read as an abbreviation's, a capital
# ends no sentence either ("1,5 Mio. Kunden", "bzw. Autor")
_CAPITALISED_NOUNS = frozenset({"de"})
# scripts that do not put spaces between words (Chinese, Japanese, Thai, Lao, Myanmar, Khmer) and Korean, whose
# words carry their particles: their text is compared in overlapping character pairs, not in words
_CHARACTER_PAIRS = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"  # Thai, Lao, Myanmar, Khmer
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"  # kana, CJK ideographs, half-width kana
    "\uac00-\ud7af"  # Hangul syllables
)
# a summary's layout (an LLM's summary is often a list, or markdown): a line's list marker ("-", "2.", "(3)", "b)",
# "b." in lower case and indented, an outline's item under a numbered one: "b. 1954" (born) and "e. e. cummings"
# opening a line are a word and initials, and a capital and a stop open a name, "A. Berg said …";
# lower-case roman numerals, "ii.", "(iv)", and "i." before a capital; a task list's box, "- [ ]", "- [x]", which
# says whether an action item is done, not what it is; a thread's post number, "1/", before a capital ("24/7" and
# "64/72 Coronation Ave" are text);
# bullets, quote marks and Chinese and Japanese markers, which need no space after them: "•", ">", "・", "二、", "3、",
# "（4）", "⑤"; pictographs used as bullets, `_without_marker`: "✅", "🔹", "👉") or heading marks, a rule ("---",
# "===" under a heading), and bold or italics around words; numbers of three digits at most, so that a line opening
# with a year keeps it, and asterisks that wrap no words are text ("s *** free": a word censored in the source)
_ROMAN_ITEM = r"(?:ii|iii|iv|vi|vii|viii|ix|xi|xii)"
_LIST_MARKER = re.compile(
    r"^\s*(?:(?:#{1,6}|[-*–—+]|\(?\d{1,3}[.)]|\(?[a-z]\)|(?<=\s)[a-z]\.|\[[ xX]\]"
    rf"|\(?{_ROMAN_ITEM}[.)]|\(i\)|i\.(?=\s+[A-Z])|\d{{1,2}}/(?=\s+[A-Z]))\s+"
    r"|(?:[•‣◦·・●○▪■►▶✓✔→>]|[一二三四五六七八九十]{1,3}、|\d{1,3}、|（\d{1,3}）|[①-⑳])\s*)+"
)
# a quoted line's mark, which the list markers hold too: the lines of a quote are one text, not a list's items
_QUOTE_MARK = re.compile(r"^\s*>")
_RULE_LINE = re.compile(r"^\s*([-=*_])(?:\s*\1){2,}\s*$")
# a heading: markdown's "## …", or a line underlined with "===" or "---" (setext)
_HEADING = re.compile(r"^\s*#{1,6}\s+\S")
_SETEXT_UNDERLINE = re.compile(r"^\s*(?:={3,}|-{3,})\s*$")
# a paper's or a report's own summary, which its authors put after the title, the authors and their affiliations:
# its heading ("Abstract", "ABSTRACT", "Zusammenfassung", "摘要", "Executive summary") alone on a line, or opening
# the summary's first line with a colon, a full stop or a dash ("Abstract—We study …", "Abstract. We study …")
_ABSTRACT_NAMES = (
    r"abstract|executive\s+summary|summary|zusammenfassung|kurzfassung|résumé|resumen|resumo|riassunto"
    r"|sommario|samenvatting|sammanfattning|sammendrag|streszczenie|abstrakt|tiivistelmä|özet|аннотация|реферат"
    r"|анотація|резюме|περίληψη|摘要|要旨|概要|抄録|초록|요약|الملخص|ملخص|सारांश"
)
_ABSTRACT_HEADING = re.compile(rf"^\s*(?i:{_ABSTRACT_NAMES})\s*[:：.]?\s*$")
ABSTRACT_OPENING = re.compile(rf"^\s*(?i:{_ABSTRACT_NAMES})\s*(?:[:：.—–]|\s-\s)\s*(?=\S)")
# a section's numbered heading alone on a line in a PDF's text ("1 Introduction", "2.1 Related Work", "IV. RESULTS"):
# a number and words that open in a capital, with no stop and no other number ("10 May 2017" is a date), too short for
# a sentence
_NUMBERED_HEADING = regex.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.)\s+\p{Lu}[^.!?:;,\d]*$")
# a line's number, as a list's item or a section's heading opens with it: items of one list are numbered alike ("1.",
# "2."), a section and its first subsection are not ("2 Method", "2.1 Data")
_LINE_NUMBER = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.)\s")
# what an encyclopedia's or a site's page shows around its text, which a copy of the page brings along: its tagline
# ("From Wikipedia, the free encyclopedia", in the languages it is most read in), its links to skip the navigation
# ("Jump to navigation", "Skip to main content"), its note of a redirect, alone on a line; a press release's note to
# editors above its headline ("FOR IMMEDIATE RELEASE", "Press release", "Embargoed until 00:01 GMT, 4 March") and its
# end mark ("###", "-30-", "ENDS"); a news site's marks between an article's paragraphs, where an advert or a
# button stood ("Advertisement", "Story continues below advertisement", "Continue reading", and the word for an
# advert in German, French, Spanish, Italian and Dutch); a mailed newsletter's links to itself ("View this email in
# your browser", "Unsubscribe | Update preferences"); and the link to edit a section after its heading
# ("History[edit]"); a meeting tool's note atop its transcript that a machine wrote it ("This editable transcript was
# computer generated and might contain errors. …", Google Meet's)
_PAGE_CHROME = re.compile(
    r"^\s*(?:from wikipedia, the free encyclopedia|aus wikipedia, der freien enzyklopädie|de wikipedia, la "
    r"enciclopedia libre|wikipédia, l['’]encyclopédie libre|da wikipedia, l['’]enciclopedia libera|维基百科，自由的百科全书"
    r"|jump to (?:navigation|search|content|main content)|skip to (?:main )?content|navigation menu"
    r"|\((?:redirected from|weitergeleitet von|redirigé depuis|redirigido desde) [^)]{1,80}\)"
    r"|for immediate release|(?:press|news|media) release|pressemitteilung|communiqué de presse|nota de prensa"
    r"|embargoed(?: until| till| to)?\b[^.!?]{0,60}|#(?:\s*#){2}|-\s*30\s*-|(?:[-–—]\s*)?(?-i:ENDS)\s*[-–—]?"
    r"|advertisement(?:\s*[-–—:]\s*scroll to continue(?: with content)?)?|story continues(?: below(?: advertisement)?)?"
    r"|continue reading(?: below| the main story)?|scroll to continue with content|ad feedback|sponsored content"
    r"|anzeige|werbung|publicité|publicidad|pubblicità|advertentie"
    r"|(?:having trouble viewing this e-?mail\?\s*)?view (?:this e-?mail |this newsletter |it )?(?:in (?:your |a )?(?:web )?browser|online)"
    # a site's "Manage subscription" alone is a link of its menu, read with the menu
    r"|(?:unsubscribe|update (?:your )?preferences)(?:\s*[|·•]\s*(?:unsubscribe|update (?:your )?preferences"
    r"|manage (?:your )?(?:preferences|subscription)|forward to a friend))*"
    r"|(?:manage (?:your )?(?:preferences|subscription)|forward to a friend)\s*[|·•]\s*unsubscribe"
    r"|this (?:editable )?transcript was (?:computer|automatically|auto|machine)[- ]?generated\b.*)\s*$",
    re.IGNORECASE,
)
# a page's or a document's table of contents, which a copy of it brings along (Wikipedia's box after an article's
# lead, a report's list of its sections): its heading alone on a line ("Contents", "[hide]" beside it, in the
# languages of `_PAGE_CHROME`'s tagline and Dutch, Portuguese and Russian) above its numbered entries ("1 History",
# "1.1 Early history", "2 Methods ..... 5"), and what the box shows among them ("hide", "(Top)", "Toggle History
# subsection"); the entries are no sentences and no key facts, and joined they would read as one
_CONTENTS_HEADING = re.compile(
    r"^\s*(?:contents|table of contents|inhalt|inhaltsverzeichnis|sommaire|table des matières|contenidos?|índice"
    r"|indice|contenuti|inhoud|inhoudsopgave|conteúdo|sumário|содержание|目次|目录|目錄)"
    r"\s*(?:\[\s*(?:hide|show|verbergen|anzeigen|masquer|afficher|ocultar|mostrar|nascondi|mostra)\s*\])?\s*$",
    re.IGNORECASE,
)
_CONTENTS_ENTRY = re.compile(r"^\s*\d{1,2}(?:\.\d{1,2})*\.?\s*[^\W\d_][^.!?]{0,80}$")
_CONTENTS_CHROME = re.compile(
    r"^\s*(?:hide|show|\(top\)|move to sidebar|toggle (?:the )?table of contents|toggle .{1,80} subsection)\s*$",
    re.IGNORECASE,
)
# at least this many numbered entries under the heading make a table of contents (a "Contents" line above one
# numbered line is a heading above a section)
_CONTENTS_ENTRIES = 2


def _contents_lines(lines) -> set:
    """The indices of the lines of a table of contents (`_CONTENTS_HEADING` above at least `_CONTENTS_ENTRIES`
    numbered entries, `_CONTENTS_ENTRY`, with blank lines and the box's own words among them, `_CONTENTS_CHROME`)."""
    found = set()
    for index, line in enumerate(lines):
        if not _CONTENTS_HEADING.match(line):
            continue
        block, entries = [index], 0
        for later in range(index + 1, len(lines)):
            if _CONTENTS_ENTRY.match(lines[later]):
                entries += 1
            elif lines[later].strip() and not _CONTENTS_CHROME.match(lines[later]):
                break
            block.append(later)
        if entries >= _CONTENTS_ENTRIES:
            found.update(block)
    return found


# what a web reader that turns a page into text for a language model (Jina Reader) puts above the page's text: its
# title, its address, when it was published, a warning and "Markdown Content:" ("Title: …" above "URL Source: …");
# the title is the page's headline, the rest is no text of it
_READER_FIELD = re.compile(r"^\s*(?:URL Source|Published Time|Warning|Number of Pages|Markdown Content)\s*:")
_READER_TITLE = re.compile(r"^\s*Title\s*:\s*")
_READER_CONTENT = re.compile(r"^\s*Markdown Content\s*:\s*")


def _without_reader_header(lines) -> list:
    """`lines` without a web reader's header at their top (`_READER_FIELD`: "URL Source: …" under "Title: …"), its
    title read as the page's headline and the text after "Markdown Content:" on its line kept; any other lines as
    they are."""
    written = [index for index, line in enumerate(lines) if line.strip()]
    if len(written) < 2 or not _READER_TITLE.match(lines[written[0]]) or not _READER_FIELD.match(lines[written[1]]):
        return lines
    title, end = written[0], written[0] + 1
    while end < len(lines) and (not lines[end].strip() or _READER_FIELD.match(lines[end])):
        end += 1
    opening = [_READER_CONTENT.sub("", line) for line in lines[title + 1:end] if _READER_CONTENT.match(line)]
    return [*lines[:title], _READER_TITLE.sub("", lines[title], count=1), "",
            *(line for line in opening if line.strip()), *lines[end:]]


_EDIT_LINK = re.compile(
    r"(?<!\s)\s*\[(?:edit|edit source|bearbeiten(?:\s*\|\s*quelltext bearbeiten)?|modifier(?:\s*\|\s*modifier le code)?"
    r"|editar(?:\s*\|\s*editar código)?|modifica(?:\s*\|\s*modifica wikitesto)?|编辑)\]\s*$",
    re.IGNORECASE,
)
# a heading in MediaWiki's markup ("== History ==", "=== Early years ==="), as a wiki's source and the text of a
# Wikipedia page fetched through its API (the `wikipedia` package's `page.content`, LangChain's WikipediaLoader) hold
# them; read as markdown's heading of its level
_WIKI_HEADING = re.compile(r"^\s*(={1,6})[ \t]*([^=\s](?:[^=]*[^=\s])?)[ \t]*\1\s*$")
# a title in bold: a line that is bold alone and ends in no full stop or colon ("**Key Points**")
_BOLD_TITLE = re.compile(r"^\s*(\*\*|__)(?=\S)(?:(?!\1).)+?(?<=[^\s.!?:。！？：])\1\s*$")
_SENTENCE_STOPS = (".", "!", "?", "。", "！", "？", "…")
# more of a summary's layout: a code fence ("```", "```text") and a table's rule ("|---|:---:|"); its header row (the
# row above the rule) names its columns and states nothing, and each of its other rows reads as the row's first cell
# and what the others say ("| Opening | June 2027 |": "Opening: June 2027."); HTML, read as the markdown of what it
# shows (`_PageText`)
_FENCE_LINE = re.compile(r"^\s*(?:```|~~~)[\w+-]*\s*$")
_TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_TABLE_RULE = re.compile(r"^\s*(?:\|\s*)?(?::?-+:?\s*\|\s*)+(?::?-+:?\s*)?$")
_HTML_ATTRIBUTES = r"""(?:\s+[\w-]+\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'<>]+))*\s*/?>"""
# a text holds HTML when one of these tags is in it (`_PageText` reads it): a page's own, a block's or an inline one's
_HTML_TAG = re.compile(
    r"<!doctype\s+html|</?(?:html|head|body|article|main|section|p|br|li|ul|ol|div|h[1-6]|hr|blockquote|pre|summary"
    rf"|details|tr|td|th|table|b|strong|i|em|u|span|mark|small|code|a|img|script|style){_HTML_ATTRIBUTES}",
    re.IGNORECASE,
)
# an HTML comment, in HTML or in markdown (a converter's mark where a PDF had a figure, "<!-- image -->", or a page
# break, "<!-- PageBreak -->"), which nothing shows: it goes with the line it fills and one blank line after that one,
# or with the blanks before it on a line of words (a run of blanks is tried from its first blank only: tried from
# each, a run of 100,000 took minutes)
_HTML_COMMENT = re.compile(r"^[ \t]*<!--.*?-->[ \t]*\n(?:[ \t]*\n)?|(?<![ \t])[ \t]*<!--.*?-->", re.DOTALL | re.MULTILINE)
# what of an HTML page is not its text: scripts, styles, the head (its title repeats the page's heading), and the
# page's own parts around the text (navigation, a footer, a side bar, forms), and a figure's caption, which a news
# page puts between its headline and its lead and which states what a photo shows, not the article's facts
_HTML_UNREAD = frozenset(
    "head script style noscript template svg canvas iframe object nav footer aside form button select figcaption".split()
)
# and the page's furniture in any element, by the name its author gave it (a word of its id or class, its ARIA role):
# a cookie banner, a newsletter box, share buttons, breadcrumbs, adverts, related links, comments, a pop-up, a menu,
# the site's header ("banner") and footer ("contentinfo")
_HTML_FURNITURE = frozenset(
    "cookie cookies consent gdpr newsletter subscribe signup share sharing social breadcrumb breadcrumbs skip advert"
    " advertisement ad ads sponsor sponsored promo related comments popup modal sidebar menu paywall".split()
)
_HTML_FURNITURE_ROLES = frozenset("navigation banner contentinfo complementary search dialog alertdialog".split())
# where a page marks its text as such (`<main>`, else `<article>`), only that is read: what stands around it is the
# site's (its name, its menus, a cookie banner)
_HTML_MAIN_TEXT = ("main", "article")
# unless that would leave less than this share of the words the page shows
_HTML_KEPT_SHARE = 0.1
# a block's tags end a line; a heading's start a markdown heading, a list item's a markdown list item
_HTML_BLOCKS = frozenset(
    "p br div ul ol dl dt dd hr blockquote pre summary details table thead tbody tfoot caption figure figcaption"
    " article section main header address".split()
)
_HTML_LINE_SHARE = 0.5
_HTML_HEADINGS = frozenset(f"h{level}" for level in range(1, 7))
_HTML_VOID = frozenset("br hr img meta link input area base col embed param source track wbr".split())
# pictographs inside a line ("… next to the school 🏊.", "June 2027 🎉", with their joiners, variation selectors and
# skin tones) and the hashtags that end one ("… in June 2027. #HarlowBay #pool"), which decorate and state nothing;
# a name written in hashes ("#Person1#") is a name
_PICTOGRAPHS = r"[\p{Extended_Pictographic}\p{Emoji_Modifier}\N{VARIATION SELECTOR-16}\N{ZERO WIDTH JOINER}]"
_INLINE_PICTOGRAPHS = regex.compile(rf"(?<!\s)\s*{_PICTOGRAPHS}+")
_CLOSING_HASHTAGS = re.compile(r"(?<!\s)(?:\s+#[^\W\d_]\w*)+\s*$")
# a reasoning model's thoughts before its reply ("<think>…</think>", empty where its thinking is off), no part of it
_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.IGNORECASE | re.DOTALL)
# a pictograph, and what goes with it in one emoji: a variation selector or a joiner (also after a bullet "✔"), and
# after it a skin tone
_PICTOGRAPH, _IN_EMOJI, _AFTER_PICTOGRAPH = "So", ("Mn", "Me", "Cf"), "Sk"
# a line that opens with an emoji or a dingbat is a list's item as a line that opens with "-" is ("✅ Pool approved",
# "📅 Opening: June 2027", each item its own emoji); a symbol of text ("© 2026 …", "° C") is none
_EMOJI_BULLET = re.compile(r"^\s*[\u2190-\u21ff\u2300-\u23ff\u25a0-\u27bf\u2900-\u297f\u2b00-\u2bff\U0001F000-\U0001FAFF]")
# in a text of a language other than English (sentencex's English rules know English abbreviations, not its), a
# piece that is one word of at most three letters and its stop ends no sentence: it is an abbreviation or an initial
# ("TP. Hồ Chí Minh", "Jl. Sudirman", "ค. ศ. 1787"), and goes on into the piece after it (in English such a piece is
# mostly a sentence: "Yes.", "Okay.")
_ABBREVIATION_PIECE = re.compile(r"^[^\s\d.]{1,3}\.$")
# so does a list's number in running text, where the next or the one before it numbers a piece of the line too, or
# a lead-in's colon comes before it ("… this week. 1. The mayor resigned. 2. The bridge …", "three points: 1. …"):
# sentencex leaves it at the end of the sentence before; a lone number there is that sentence's ("… in a hurry. 7.",
# a player's rating), and a time is no lead-in ("at 12:30.")
_NUMBER_PIECE = re.compile(r"^(\d{1,3})\.$")
_AFTER_LEAD_IN = r"(?<=[^\d\s][:：])\s*"
_LEAD_IN_NUMBER = re.compile(rf"{_AFTER_LEAD_IN}(\d{{1,3}}\.)$")
_LEAD_IN_MARKER = re.compile(rf"{_AFTER_LEAD_IN}\d{{1,3}}\.\s+")
# a lead-in ("Key points:", "以下是摘要：") goes with what it introduces
_COLONS = (":", "：")
# bold or italic marks open and close a run of words: no letter, digit or mark of a spaced script touches them
# outside (Chinese and Japanese put none around a word), nor a brace or a backslash (LaTeX's "}_{x}")
_MARK_OPENS = rf"(?<!(?![{_CHARACTER_PAIRS}])[\w*_}}\\])"
_MARK_CLOSES = rf"(?!(?![{_CHARACTER_PAIRS}])[\w*_])"
_EMPHASIS = re.compile(rf"{_MARK_OPENS}(\*\*|__)(?=[^\s*_])(.+?)(?<=[^\s*_])\1{_MARK_CLOSES}")
# what cites a source rather than states a fact: a citation's number ("[1]", "[2, 3]", a footnote's "[^1]", in
# brackets too, "([1])"), a retrieved document's name and number as a RAG answer cites it ("[Document 2]", "[doc1]",
# "(Source 1)", "(source: Document 2)", a chat app's "【4†source】"), a link alone in brackets ("([source](https://…))",
# "(https://…)"), a link's address ("[the council](https://…)"), and a line that lists a source ("[1] Harlow Bay
# council", "Sources: [1] …"); a lead-in left with nothing to introduce ("Sources:" above such lines) introduces no
# claim
_ADDRESS = r"(?:https?://|www\.)[^)\s]*"
_CITED_NUMBERS = r"\[\^?\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]"
_CITED_DOCUMENT = r"(?i:sources?|docs?|documents?|contexts?|passages?|chunks?|refs?|references?)"
# Wikipedia's inline notes after a word: its maintenance tags ("[citation needed]", "[who?]", "[dubious – discuss]",
# "[dead link]", "[update]"), which say what the article lacks, not what it states, and its lettered and named notes
# ("[a]", "[note 1]", "[nb 2]"; a letter only after a stop, a closing mark or another note and before no letter:
# "x[i]" is code, and '"[t]here was' a quotation's edit)
_WIKIPEDIA_NOTE = (
    r"\[(?:[a-z][a-z' -]{0,30} needed|(?:who|when|where|which|why|how|whom|by whom|according to whom|original research"
    r"|unreliable source|dubious|clarify|improper synthesis)\?|dubious\s*[–-]\s*discuss|failed verification"
    r"|(?:permanent )?dead link|vague|specify|self-published source|not in (?:citation|source) given"
    r"|update|(?:note|nb|n)\s?\d{1,3})\]|(?<=[.,;:)\]\"”’])\[[a-z]\](?![^\W\d_])"
)
_CITATION = re.compile(
    rf"(?<!\s)\s*(?:{_CITED_NUMBERS}|\[\^[\w-]{{1,20}}\]|{_WIKIPEDIA_NOTE}|\(\s*(?:{_CITED_NUMBERS}\s*)+\)|\(\s*\[[^\]]*\]\({_ADDRESS}\)\s*\)"
    rf"|\[{_CITED_DOCUMENT}\s*#?\d{{1,3}}(?:\s*[,–-]\s*(?:{_CITED_DOCUMENT}\s*)?#?\d{{1,3}})*\]"
    rf"|\({_CITED_DOCUMENT}\s*(?::\s*[^()\n]{{1,60}}|#?\d{{1,3}}(?:\s*[,–-]\s*#?\d{{1,3}})*)\)|【[^】\n]{{1,60}}】)"
)
_LINK = re.compile(rf"\[([^\[\]]+)\]\((?:{_ADDRESS}|(?:\.{{0,2}}/|#|mailto:)[^)\s]*)\)")
# an image: "![alt](https://…/pool.png)", "![](figures/pool.png "The pool")"
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_ADDRESS_ALONE = re.compile(rf"(?<!\s)\s*\(\s*{_ADDRESS}\s*\)")
_SOURCE_LINE = re.compile(r"^\s*(?:[^\W\d_][\w ]{0,30}:\s*)?\[(?:\^?\d{1,3}|\^[\w-]{1,20})\]")
# a word inside bold or italic marks: two letters of any script in a row
_WORD = re.compile(r"[^\W\d_]{2}")
_ITALICS = re.compile(rf"{_MARK_OPENS}\*(?=[^\s*])(.+?)(?<=[^\s*])\*{_MARK_CLOSES}|{_MARK_OPENS}_(?=[^\s_])(.+?)(?<=[^\s_])_{_MARK_CLOSES}")

# what a chat model says to its user around a summary or an answer, which states nothing of the source: an opening
# acknowledgement ("Sure!", "¡Claro!", "好的，"), a sentence that announces what follows ("Here is a summary of the
# article:", "Voici un résumé :", "以下是文章的摘要："; without a colon only when it names a summary: "Below is a
# one-sentence summary."), and closing offers and wishes ("Let me know if …", "I hope this helps!", "N'hésitez pas
# …", "希望这对您有帮助。"): in English, German, French, Spanish, Italian, Portuguese, Chinese and Japanese
_APOSTROPHE = "['’]"
_REPLY_ACKNOWLEDGEMENT = re.compile(
    r"^\s*¡?(?:sure(?: thing)?|certainly|of course|absolutely|okay|ok|alright|all right|gerne|natürlich|klar"
    rf"|bien sûr|d{_APOSTROPHE}accord|certainement|claro|por supuesto|desde luego|certo|certamente|com certeza"
    r"|好的|当然|没问题|もちろん|承知しました)\s*[!！.,，。、]+\s*",
    re.IGNORECASE,
)
_REPLY_ANNOUNCEMENT = re.compile(
    rf"^\s*(?:here(?:{_APOSTROPHE}s| is| are)|below (?:is|are)|the following (?:is|are)|hier (?:ist|sind|kommt)"
    r"|im folgenden|nachfolgend|voici|voilà|ci-dessous|aquí (?:tienes|tiene|está|están|va)|a continuación|ecco"
    r"|aqui (?:está|estão)|segue|以下是|下面是|以下为|以下は|こちらは)",
    re.IGNORECASE,
)
_SUMMARY_NOUN = re.compile(
    r"summary|summari[sz]ed|overview|recap|key points|main points|takeaways|zusammenfassung|überblick|résumé"
    r"|resumen|riassunto|resumo|摘要|总结|概要|要約|要点",
    re.IGNORECASE,
)
_REPLY_CLOSINGS = (
    r"(?:please |just )?let me know|feel free to (?:ask|reach out|let me know|request)|is there anything"
    r"|(?:i )?hope (?:this|that|it|the summary|my summary) (?:summary )?(?:helps|is helpful|was helpful|is useful"
    r"|was useful|gives you|answers your|clarifies|meets your)|would you like|do you want me|shall i"
    rf"|i{_APOSTROPHE}d be happy|i would be happy|happy to help|don{_APOSTROPHE}t hesitate to (?:ask|reach|let me)"
    rf"|if you (?:need|want|would like|{_APOSTROPHE}d like|have)\b.*\b(?:let me know|feel free|i can|i{_APOSTROPHE}d be"
    rf"|i would be|just ask|don{_APOSTROPHE}t hesitate)|i can (?:also )?(?:provide|expand|elaborate|help|give|go into)"
    # a note on the summary itself ("Note: This summary is based only on the provided article.")
    r"|\(?(?:please )?note(?::| that)\s*(?:this|the|my|the above) summary|(?:this|the above|my) summary (?:is|was) "
    r"(?:based|written|generated|limited|drawn)",
    r"lass(?:t)? mich wissen|lassen sie mich wissen|ich hoffe, (?:das|dies|die zusammenfassung) (?:hilft|ist hilfreich"
    r"|war hilfreich)|wenn (?:du|sie) (?:weitere|noch) (?:fragen|informationen)|möchtest du|möchten sie"
    r"|sag(?:en sie)? bescheid|(?:hinweis|anmerkung):\s*diese zusammenfassung|diese zusammenfassung (?:basiert|beruht)",
    rf"n{_APOSTROPHE}hésite[zs]? pas|j{_APOSTROPHE}espère que (?:cela|ce résumé|ça) (?:vous|t|te|répond|aide)"
    rf"|si vous (?:avez besoin|souhaitez|voulez)\b.*\b(?:n{_APOSTROPHE}hésitez|dites-moi|je peux|faites-moi)"
    r"|souhaitez-vous|voulez-vous que|dites-moi si|(?:remarque|note)\s*:\s*ce résumé|ce résumé (?:est basé|se base|repose)",
    r"espero que (?:esto|este resumen) (?:te|le|sea|les)|espero que (?:te|le) (?:sea|ayude|sirva)"
    r"|si (?:necesitas|necesita|deseas|desea|quieres)\b.*\b(?:avísame|dímelo|no dudes|házmelo|puedo|dime)"
    r"|no dudes|no dude|¿(?:quieres|desea|deseas|te gustaría)|avísame|nota:\s*este resumen|este resumen (?:se basa|está basado)",
    r"spero che (?:questo|questa|il) (?:riassunto |sintesi )?(?:ti|le|sia|possa)|spero che ti (?:sia|aiuti)|fammi sapere"
    r"|se hai bisogno\b.*\b(?:fammi sapere|chiedi|posso)|nota:\s*questo riassunto|questo riassunto (?:si basa|è basato)",
    r"espero que (?:isso|isto|este resumo|esta síntese) (?:ajude|seja|te|lhe|possa)|me avise|se precisar\b.*\b(?:me avise|posso|é só)"
    r"|nota:\s*este resumo|este resumo (?:se baseia|é baseado|foi baseado)",
    r"希望(?:这|以上|此|本)[^。！？]{0,8}(?:帮助|有用|帮到)|如果(?:您|你)(?:需要|想|有)[^。！？]*(?:告诉我|随时|问我)"
    r"|如需[^。！？]*(?:告诉我|随时)|请(?:告诉|让)我|还有什么(?:需要|可以)|注[：:]\s*(?:本|此|以上)?摘要|(?:本|此|以上)摘要(?:仅)?基于",
    r"お役に立て|ご不明な点",
)
_REPLY_CLOSING = re.compile(rf"^\s*(?:{'|'.join(_REPLY_CLOSINGS)})", re.IGNORECASE)


# what a mail client puts above a message and between the messages of a thread: its header lines (who sent it to
# whom, when, its subject, as Outlook, Gmail and Apple Mail write them in English, German, French, Spanish, Italian,
# Portuguese, Dutch, Chinese and Japanese), and what minutes put above a meeting's record (when and where it met, who
# attended, who sent apologies, who chaired it and took the minutes, in the same European languages): none of them
# is a key fact where they stand together, and the line that opens a quoted or forwarded message
_MAIL_FIELDS = (
    "from sent to cc bcc date subject reply-to von an gesendet datum betreff de à envoyé objet para enviado asunto "
    "fecha da a inviato oggetto data assunto van aan verzonden onderwerp 发件人 收件人 抄送 发送时间 主题 日期 差出人 宛先 送信日時 件名"
).split() + ["enviado el"]
_RECORD_FIELDS = (
    "time location venue place room duration attendees attendance present absent apologies regrets guests invitees "
    "chair chairperson facilitator secretary minutes recorder scribe distribution zeit uhrzeit ort raum dauer "
    "teilnehmer teilnehmende anwesend abwesend entschuldigt gäste leitung sitzungsleitung vorsitz protokoll "
    "protokollführer protokollführerin protokollführung verteiler heure lieu salle durée présents présentes absents "
    "absentes excusés excusées invités président présidente secrétaire rédacteur rédactrice diffusion hora lugar sala "
    "duración asistentes participantes presentes ausentes excusados invitados presidente presidenta secretario "
    "secretaria acta ora orario luogo durata partecipanti presenti assenti giustificati invitati segretario "
    "segretaria verbalizzante local duração convidados secretário secretária tijd locatie plaats ruimte duur aanwezig "
    "afwezig afgemeld gasten voorzitter notulist notulen participants agenda tagesordnung pauta"
).split() + ["in attendance", "also present", "members present", "apologies for absence",
             "chaired by", "minutes taken by", "minute taker", "note taker", "notes taken by", "rédigé par",
             "redactado por", "redatto da", "redigido por", "ordre du jour", "orden del día", "ordine del giorno"]
# who attended, written alone on its line without a colon above the names, as a meeting tool heads its transcript
# (Google Meet: "Launch sync - Transcript", "Attendees", "Ana Silva, Ben Okafor", "Transcript")
_ATTENDANCE_FIELDS = "attendees participants teilnehmer teilnehmende participantes partecipanti deelnemers".split()
_HEADER_FIELD = re.compile(
    rf"^((?:{'|'.join(_MAIL_FIELDS + _RECORD_FIELDS)})(?=\s*[:：])|(?:{'|'.join(_ATTENDANCE_FIELDS)})(?=\s*$))\s*[:：]?",
    re.IGNORECASE,
)
# field names that open lines elsewhere too, so that a run of them alone is no header: a person's name (a chat
# between An and Van has turns "An: …", "Van: …"), a speaker's role (a hearing's record has the Chair's and the
# Secretary's turns) and an event's when, where, who and programme (an invitation's "Date:", "Time:", "Location:",
# "Guests:" and "Agenda:" are its key facts); a header has one field beside them that is nowhere else ("Subject",
# "Attendees"), and then its agenda lists what the record goes on to say was decided
_HEADER_FIELDS_ALSO_ELSEWHERE = frozenset(
    "to an a da de data van aan para date datum fecha chair chairperson facilitator secretary recorder scribe leitung "
    "président présidente secrétaire presidente presidenta secretario secretaria segretario segretaria secretário "
    "secretária voorzitter notulist time location venue place room duration guests invitees distribution zeit "
    "uhrzeit ort raum dauer gäste verteiler heure lieu salle durée invités diffusion hora lugar sala duración "
    "invitados ora orario luogo durata invitati local duração convidados tijd locatie plaats ruimte duur gasten "
    "agenda tagesordnung pauta".split() + ["ordre du jour", "orden del día", "ordine del giorno"]
)
MAIL_SEPARATOR = re.compile(
    r"^(?:-{2,}\s*(?:original message|forwarded message|ursprüngliche nachricht|weitergeleitete nachricht"
    r"|message d'origine|message transféré|mensaje original|mensaje reenviado|messaggio originale"
    r"|messaggio inoltrato|mensagem original|mensagem encaminhada|oorspronkelijk bericht|doorgestuurd bericht)"
    r"\s*-{2,}|begin forwarded message:"
    # the line above a reply's quote, as Gmail, Apple Mail, Outlook and Thunderbird write it: the day and time it was
    # sent and who wrote it ("On Tue, Mar 3, 2026 at 10:31 AM Tom Beck <tom@…> wrote:", "Am 03.03.2026 um 10:31
    # schrieb Tom Beck <tom@…>:"); a sentence that quotes a letter ("On 3 March the mayor wrote:") gives no time
    r"|(?:on|am|le|el|il|em|op)\s.{0,100}\d{1,2}:\d{2}.{0,160}\s(?:wrote|schrieb\s.{1,160}|a\s+écrit|escribió"
    r"|ha\s+scritto|escreveu|schreef\s.{1,160})\s*:)\s*$",
    re.IGNORECASE,
)
# a dialogue's turn: a line that opens with a speaker's name of at most four words, optionally in marks
# ("#Person1#") or in brackets (a diarised transcript's "[SPEAKER_00]"), and a colon (ASCII or full-width); a time
# such as "10:30" opens with a digit and is not one
_SPEAKER_WORDS = r"[^\W\d_][\w.'’#-]*(?:\s[\w.'’#-]+){0,3}"
SPEAKER_TURN = re.compile(rf"^\s*(\[{_SPEAKER_WORDS}\]|\W?{_SPEAKER_WORDS})\s*[:：]\s*\S")
# a dialogue: at least this share of its non-empty lines are turns, of at least two speakers
DIALOGUE_TURN_SHARE = 0.6
# what chat apps and meeting tools add around a conversation's turns when they export it, which states nothing
# the speakers said (`transcript_read`): a subtitle file's header, notes and cue timings (WebVTT, SRT: "00:01:02.500
# --> 00:01:05.000 align:start"), its cues' voice ("<v Anna Berg>…</v>") and other tags; a message's date and time
# before its turn ("[02/12/2026, 10:31:05] Anna: …", "02/12/2026, 10:31 - Anna: …", "[10:31] Anna: …"), Zoom's
# sender ("10:31:05 From Anna to Everyone: …"), a time after the speaker's name ("Anna (10:31): …"), and a line of a
# name and a time alone above what was said (Teams, Otter, Slack, Discord: "Anna Berg   0:03", "Anna  10:31 AM",
# "Anna — Today at 10:31", "[Anna Berg] 10:31:05")
_TIME = r"\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?(?:\s?[AaPp]\.?[Mm]\.?)?"
_STAMP = rf"(?:\d{{1,4}}[./-]\d{{1,2}}[./-]\d{{1,4}},?\s+)?(?:(?:today|yesterday) at\s+)?{_TIME}"
# a cue's times, also as Teams' transcript writes them, without leading zeros ("0:0:4.520 --> 0:0:7.100")
_CUE_TIME = r"\d{1,2}:\d{1,2}(?::\d{1,2})?(?:[.,]\d{1,3})?"
_CUE_TIMING = re.compile(rf"^\s*{_CUE_TIME}\s*-->\s*{_CUE_TIME}(?:\s.*)?$")
# a transcript as Whisper prints it: each segment's timing in brackets before its words ("[00:00.000 --> 00:04.500]
# The council …"), on most of its lines
_SEGMENT_TIMING = re.compile(rf"^\s*\[\s*{_CUE_TIME}\s*-->\s*{_CUE_TIME}\s*\]\s*")
_SUBTITLE_HEADER = re.compile(r"^\s*(?:WEBVTT|NOTE|STYLE|REGION)(?:\s|$)")
_CUE_VOICE = re.compile(r"<v(?:\.[\w.-]+)*\s+([^>]+)>")
_CUE_TAG = re.compile(r"</?(?:v|c|i|b|u|ruby|rt|lang|font)\b[^>]*>|<\d{1,2}(?::\d{2}){1,2}[.,]\d{3}>|\{\\[^}]*\}")
# a caption's note of what is heard but not said ("[Music]", "[Applause]", "[laughter]", "♪"): no one's words
_CUE_SOUND = re.compile(r"\[[^\]\n]{1,40}\](?!\s*[:：])|[♪♫]+")
# rolling captions show each line again in the next cues: in a file of them, most lines repeat one just before
_ROLLED_SHARE = 1 / 3
_MESSAGE_STAMP = re.compile(rf"^\s*(?:[\[(]\s*)?{_STAMP}\s*(?:[\])]\s*)?(?:[-–—|]\s*)?", re.IGNORECASE)
_ZOOM_SENDER = re.compile(r"^From\s+(.+?)(?:\s+to\s+[^:]+?)?\s*:(?=\s*\S)")
_STAMP_AFTER_NAME = re.compile(rf"^(\s*[^\W\d_][^:：\[\]()]{{0,60}}?)\s*[\[(]\s*{_STAMP}\s*[\])]\s*(?=[:：])", re.IGNORECASE)
_SPEAKER_NAME = r"[^\W\d_][\w.'’-]*(?:\s[\w.'’-]+){0,3}"
_SPEAKER_HEADER = re.compile(
    rf"^\s*(?:\[({_SPEAKER_NAME})\]|({_SPEAKER_NAME}))(?:\s*[-–—|,]\s*|\s+|(?<=\])|(?=[\[(]))(?:[\[(]\s*)?{_STAMP}\s*(?:[\])]\s*)?$",
    re.IGNORECASE,
)
# a header that was a name, a time and a colon ("Anna Berg (00:00:03):"), once its time is gone; a name and a colon
# alone without a time is a lead-in, or a form's field ("Author(s):")
_NAME_ALONE = re.compile(rf"^\s*({_SPEAKER_NAME})\s*[:：]\s*$")
_STAMP_ALONE = re.compile(rf"^\s*(?:[\[(]\s*)?{_STAMP}\s*(?:[\])]\s*)?$", re.IGNORECASE)
# a generated dialogue's count of its turns, alone on a line above one ("Turn 1" above "Client: …"), says nothing
_TURN_NUMBER_ALONE = re.compile(r"^\s*[\[(]?\s*turn\s*#?\s*\d{1,4}\s*[\])]?\s*[:.]?\s*$", re.IGNORECASE)
# a video's transcript as its player shows it and copies it (YouTube's "Show transcript"): a time elapsed alone on a line
# ("0:03", "1:02:07") above each caption's words, the times rising a few seconds at a time; a timetable's "10:30" and
# "11:00" lines, half an hour apart, are no such times (read as minutes and seconds they rise by more than
# `_CAPTION_STEP_SECONDS` on average)
_ELAPSED_ALONE = re.compile(r"^\s*\[?(?:(\d{1,2}):)?(\d{1,2}):(\d{2})\]?\s*$")
_CAPTION_STEP_SECONDS = 10
# what a chat app shows under a message, copied with it (Slack, Discord, Teams): its reactions, each an emoji or an
# emoji's code and how many gave it (":+1:" above "2", "👍 3 🎉 1"), how many replied in its thread ("2 replies",
# "View thread") and the mark of an edited message ("(edited)"); none of it is said
_REACTION = rf"(?::[\w+-]{{1,40}}:|{_PICTOGRAPHS}+)"
_CHAT_FURNITURE = regex.compile(
    rf"^\s*(?:{_REACTION}(?:\s*\d{{1,5}})?(?:\s+{_REACTION}(?:\s*\d{{1,5}})?)*|\d{{1,5}}\s+repl(?:y|ies)|view thread)\s*$",
    regex.IGNORECASE,
)
_REACTION_COUNT = re.compile(r"^\s*\d{1,5}\s*$")
# (tried once after each run of blanks, as `_INLINE_PICTOGRAPHS` is: a run of 100,000 blanks is read in one pass)
_EDITED = re.compile(r"(?<!\s)\s*+\((?:edited|bearbeitet|modifié|editado|modificato|bewerkt)\)\s*$", re.IGNORECASE)


def turn_speakers(text: str) -> list:
    """The speaker of each of the text's turns (`SPEAKER_TURN`), as written, in the order of the turns."""
    return [match.group(1) for line in text.splitlines() if (match := SPEAKER_TURN.match(line))]


def is_dialogue(text: str) -> bool:
    """Whether at least `DIALOGUE_TURN_SHARE` of the text's non-empty lines are turns (`SPEAKER_TURN`) and two or
    more speakers take them; an e-mail's or a meeting record's header lines ("From: …", "Attendees: …",
    `header_lines`) are no turns, and count neither for nor against them (a meeting tool's transcript opens with one)."""
    lines = [line for line in text.splitlines() if line.strip()]
    headers = header_lines(lines)
    speakers = [speaker.casefold() for speaker in turn_speakers("\n".join(
        line for index, line in enumerate(lines) if index not in headers))]
    return len(set(speakers)) >= 2 and len(speakers) >= DIALOGUE_TURN_SHARE * (len(lines) - len(headers))


def header_lines(lines) -> set:
    """The indices of the lines (or sentences) that are an e-mail's header lines ("From: …", "Sent: …", "Subject:
    …") or a meeting record's ("Date: …", "Attendees: …", "Apologies: …", "Agenda: …", `_HEADER_FIELD`): a run of
    lines that open with a field's name, one of them a field found nowhere else ("Subject", "Attendees",
    `_HEADER_FIELDS_ALSO_ELSEWHERE`), two or more of them, or one right after the line that opens a quoted message
    (`MAIL_SEPARATOR`) or at the text's top, a field that opens no other line of it (a transcript's "Subject: …"
    turns are no header). A field written alone ("Attendees:") holds the short lines under it (`_field_value`: the
    names, one a line). At the text's top the header takes its title and date lines above it (`_record_title`:
    "Weekly planning meeting" names the meeting; what the record states comes after the header)."""
    opened_by = Counter(found.group(1).casefold() for line in lines if (found := _HEADER_FIELD.match(line)))
    # where the run stands: at the text's "top" (nothing but its title above it), "quoted" (right after the line that
    # opens a quoted message) or None
    headers, run, where = set(), [], "top"
    above = _record_title(lines)
    index = above[-1] + 1 if above else 0
    while index <= len(lines):
        line = lines[index] if index < len(lines) else ""
        found = _HEADER_FIELD.match(line)
        if found:
            value = _field_value(lines, index)
            run.append((index, found.group(1).casefold()))
            run += [(later, None) for later in value]
            index += 1 + len(value)
            continue
        names = [name for _, name in run if name]
        if names and any(name not in _HEADER_FIELDS_ALSO_ELSEWHERE for name in names) and (
                len(names) >= 2 or where == "quoted"
                or (where == "top" and all(name in _RECORD_FIELDS and opened_by[name] == 1 for name in names))):
            headers.update(line_index for line_index, _ in run)
            headers.update(above if where == "top" else ())
        if run or line.strip():
            where = "quoted" if MAIL_SEPARATOR.match(line) else None
        run, index = [], index + 1
    return headers


# a field written alone on its line ("Attendees:") holds the lines under it up to a blank line, the next field or a
# line that is a sentence or opens a section (ends in a stop or a colon): at most `_SIGNATURE_LINES` short names
def _field_value(lines, index) -> list:
    """The indices of the lines under the field at `index` that hold its value where it is written alone
    ("Attendees:"); [] where its own line holds it or `index` is no field's line."""
    field = _HEADER_FIELD.match(lines[index])
    if not field or lines[index][field.end():].strip():
        return []
    value = []
    for later in range(index + 1, min(index + 1 + _SIGNATURE_LINES, len(lines))):
        line = lines[later].strip()
        if (not line or _HEADER_FIELD.match(line) or line.endswith((*_SENTENCE_STOPS, *_COLONS))
                or _width(line) >= _SIGNATURE_CHARS):
            break
        value.append(later)
    return value


def _record_title(lines) -> list:
    """The indices of a record's title and date lines above the header at its top: its first line, short and ending
    in no stop ("Weekly planning meeting", "Board meeting, 3 March 2026"), and the lines of a page's furniture under
    it (`is_web_furniture`: a date, "March 3, 2026"), when a field's line follows them; [] when none does."""
    written = [index for index, line in enumerate(lines) if line.strip()]
    if not written or _HEADER_FIELD.match(lines[written[0]]):
        return []
    title = " ".join(lines[written[0]].split())
    if _width(title) >= _SIGNATURE_CHARS or title.endswith((*_SENTENCE_STOPS, *_COLONS)) or SPEAKER_TURN.match(title):
        return []
    above = [written[0]]
    for index in written[1:]:
        if _HEADER_FIELD.match(lines[index]):
            return above
        if not is_web_furniture(" ".join(lines[index].split())):
            return []
        above.append(index)
    return []


# what closes a letter or an e-mail above the sender's name, alone on its line ("Best regards,", "Mit freundlichen
# Grüßen", in the same European languages as its header), and the signature under it: the sender's name, role,
# company and numbers, at most `_SIGNATURE_LINES` lines of fewer than `_SIGNATURE_CHARS` characters each
_LETTER_CLOSING = re.compile(
    r"^\s*(?:(?:best|kind|warm|warmest|kindest|many) regards|regards|best wishes|all the best|best|sincerely"
    r"|yours (?:sincerely|faithfully|truly)|sincerely yours|respectfully|thanks(?: again)?|thank you|many thanks|cheers"
    r"|cordially|take care|mit freundlichen gr(?:ü|ue|u)(?:ß|ss)en|(?:freundliche|viele|beste|liebe|herzliche) gr(?:ü|ue)(?:ß|ss)e"
    r"|gru(?:ß|ss)|mfg|lg|cordialement|bien cordialement|bien à vous|(?:meilleures |sincères )?salutations|amicalement"
    r"|(?:un )?saludos?(?: cordiales)?|atentamente|cordialmente|un abrazo|(?:cordiali|distinti) saluti|saluti"
    r"|un saluto|atenciosamente|cumprimentos|abraços|saudações|met vriendelijke groet(?:en)?|vriendelijke groeten"
    r"|hartelijke groet(?:en)?|groeten|mvg)\s*[,.!]?\s*$",
    re.IGNORECASE,
)
_SIGNATURE_LINES = 8
_SIGNATURE_CHARS = 80


# what opens a letter or an e-mail, alone on its line above the text ("Hi team,", "Dear Ms Berg,", "Hallo zusammen,",
# "Bonjour Marie,", "Hola a todos:", in the same European languages as its closing): a greeting and a few names, and
# the mark that closes it, or at most two words after it without one ("Hi team"); a chat's turn ("Cara: hey") or a
# title ("Hey Man Nice Shot", "Hey Gorgeous (season 3)") is no greeting
_GREETINGS = (
    r"(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings|hallo|hi zusammen|liebe[rs]?|sehr geehrte[rs]?"
    r"|guten (?:morgen|tag)|moin|bonjour|bonsoir|cher|chère|chers|chères|salut|hola|estimad[oa]s?|querid[oa]s?"
    r"|buenos días|buenas tardes|ciao|gentile|gentili|car[oa]|cari|care|buongiorno|olá|oi|prezad[oa]s?|beste|geachte"
    r"|hoi|goedemorgen)\b"
)
_LETTER_GREETING = re.compile(rf"^\s*{_GREETINGS}(?:[^.!?:：\n]{{0,40}}[,!:–—-]|(?:\s+[^\W\d_]+){{0,2}})\s*$", re.IGNORECASE)
# the same greeting opening a sentence that goes on to say something ("Hi all, the server is down again.", "Dear
# team, the launch moves to 17 March.", "Hi, Josie! Are you free on Saturday?"): the greeting, at most four words
# of names (or, after a comma, capitalised ones), and the mark that closes it, a colon too outside a chat's turn,
# where a name and a colon open the next turn ("Hey Martin: what's up?")
_GREETED = rf"{_GREETINGS}(?:,\s*(?-i:[^\W\d_a-z][\w.'’-]*(?:\s+[^\W\d_a-z][\w.'’-]*){{0,2}})|(?:\s+[^\W\d_][\w.'’-]*){{0,4}})\s*"
GREETING_OPENING = re.compile(rf"^\s*{_GREETED}[,!:–—]\s*(?=\S)", re.IGNORECASE)
GREETING_OPENING_A_TURN = re.compile(rf"^\s*{_GREETED}[,!–—]\s*(?=\S)", re.IGNORECASE)
# a greeting opens a message or comes under its first line, the mail's subject or the letter's title
_GREETING_REACH = 2


def letter_lines(lines, headers=None) -> set:
    """The indices of the lines (or sentences) that make a text a letter and state none of its facts: its closing and
    signature (`signature_lines`) and its greeting, a line that is a greeting alone (`_LETTER_GREETING`: "Hi Tom,")
    among the first `_GREETING_REACH` lines of the text or of a message of it, after its header ("From: …",
    `header_lines`, or `headers` where the caller has read them) or the line that opens a quoted message
    (`MAIL_SEPARATOR`): under a subject or a title at most."""
    headers = header_lines(lines) if headers is None else headers
    found, written = signature_lines(lines, headers), 0
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if index in headers or MAIL_SEPARATOR.match(line):
            written = 0
            continue
        if written < _GREETING_REACH and _LETTER_GREETING.match(line):
            found.add(index)
        written += 1
    return found


def signature_lines(lines, headers) -> set:
    """The indices of the lines (or sentences) of a letter's closing and its signature (`_LETTER_CLOSING`): a line
    that is a closing alone and the few short lines after it, up to the text's end or to a quoted message's header
    (`headers`, the lines' `header_lines`; `MAIL_SEPARATOR`); none of them is a key fact."""
    written = [index for index, line in enumerate(lines) if line.strip()]
    found = set()
    for position, index in enumerate(written):
        if not _LETTER_CLOSING.match(lines[index]):
            continue
        after = []
        for later in written[position + 1:]:
            if later in headers or MAIL_SEPARATOR.match(lines[later]):
                break
            after.append(later)
        if len(after) <= _SIGNATURE_LINES and all(_width(lines[later].strip()) < _SIGNATURE_CHARS for later in after):
            found.update([index, *after])
    return found


# what a web page puts around an article's text, which a pasted article brings along before its lead and which no
# summary states: its byline (a name or names in capitals after "By", "Von", "Par", "Por", "Di", "Door", "Av", and
# what follows them on the line, a news agency or a date), a line of when it was published or updated (words of
# dates, times and time zones alone, "2 hours ago"), a photo's credit and caption ("Image caption, …"), an agency's
# credits ("Reporting by …; Editing by …") and the page's own words ("Share", "Save", "4 min read"). No word of a
# name is "By": were it one, a line of "By By By …" would be read in exponentially many ways before it was found to
# be no byline
_CAPITALISED_WORD = r"(?!(?i:by)\b)[^\W\d_a-z][\w.'’-]*"
_NAMES = (rf"{_CAPITALISED_WORD}(?:(?:\s+|\s*[&|/·]\s*|\s*,\s*(?=\S+\s)|\s+(?:and|und|et|y|e|en|og)\s+)"
          rf"{_CAPITALISED_WORD}){{0,7}}")
_DATE_WORDS = (
    r"updated|published|posted|last|modified|on|at|am|pm|a\.m\.|p\.m\.|share|min|read|reading|time"
    r"|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august"
    r"|september|october|november|december|gmt|utc|bst|cet|cest|est|edt|cst|cdt|mst|mdt|pst|pdt|et|pt|ist|jst|aest"
)
# the same in German, French, Spanish, Italian, Portuguese and Dutch ("Stand: 03.03.2026 10:31 Uhr", "Publié le
# 03/03/2026 à 10h31, mis à jour à 12h05", "Publicado el 3 de marzo de 2026 a las 10:31"): short words of any text
# among them ("le", "de", "op"), so a line of them is a date only with a number in it
_DATE_WORDS_ELSEWHERE = (
    r"stand|aktualisiert|veröffentlicht|um|uhr|mez|mesz|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag"
    r"|januar|jänner|februar|märz|mai|juni|juli|oktober|dezember"
    r"|publié|mis à jour|modifié|le|à|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|janvier|février|mars|avril"
    r"|juin|juillet|août|septembre|octobre|novembre|décembre"
    r"|publicado|actualizado|el|de|a las|lunes|martes|miércoles|jueves|viernes|sábado|domingo|enero|febrero|marzo"
    r"|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre|hrs"
    r"|pubblicato|aggiornato|il|alle|lunedì|martedì|mercoledì|giovedì|venerdì|sabato|domenica|gennaio|febbraio"
    r"|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre"
    r"|atualizado|em|às|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|dezembro"
    r"|gepubliceerd|bijgewerkt|op|om|januari|februari|maart|mei|augustus"
)


def _date_token(words: str) -> str:
    """A token of a line of when a page was published, of the words `words`. A number is read whole ("12:30",
    "2026-12-01"): were "12" also "1" and "2", a line of many numbers (a calendar's days, "1 2 3 … 31") would be read
    in exponentially many ways before it was found to be no date. A time written "10h31", a Chinese or Japanese date
    and time ("2026年3月3日 10时31分") and what a Chinese page puts beside them, its source and its editors ("来源：新华社
    编辑：李明"), are tokens too."""
    return (rf"(?:\d+\s+(?i:sec|second|min|minute|hr|hour|day|week|month|year)s?\.?\s+(?i:ago)\b"
            rf"|(?i:{words})\b\.?|\d{{1,2}}h\d{{2}}\b|\d{{1,4}}\s*[年月日時时分秒]"
            rf"|\d[\d:./-]*(?![\d:./-])(?i:st|nd|rd|th)?|[,|·•:()\[\]-]"
            rf"|(?:来源|來源|编辑|編輯|责任编辑|責任編輯|作者|记者|記者|发布时间|發佈時間|更新时间)\s*[：:]\s*[^\s：:]{{1,20}}"
            rf"|(?i:by)\s+{_NAMES})")


_DATE_TOKEN = _date_token(_DATE_WORDS)
_ANY_DATE_TOKEN = _date_token(f"{_DATE_WORDS}|{_DATE_WORDS_ELSEWHERE}")
_BYLINE = re.compile(
    rf"^(?i:by|von|par|por|di|door|av)\s+{_NAMES}(?:\s*,\s*[^\W\d_]{{2,10}})?"
    rf"(?:\s*[,|·-]?\s*{_DATE_TOKEN}(?:\s*{_DATE_TOKEN})*)?\s*$"
)
_WHEN_PUBLISHED = re.compile(rf"^{_DATE_TOKEN}(?:\s*{_DATE_TOKEN})*\s*$")
_DATED_ELSEWHERE = re.compile(rf"^(?=.*\d){_ANY_DATE_TOKEN}(?:\s*{_ANY_DATE_TOKEN})*\s*$")
_CJK_DATE_UNIT = re.compile(r"\d\s*[年月日時时分]")
_REACTIONS = (r"(?:comments?|replies|upvotes?|points|likes?|reposts?|retweets?|shares|views|quotes|bookmarks|reactions"
              r"|votes|awards)")
_PAGE_LINE = re.compile(
    r"^(?:(?:photo(?:graph)?|image|picture|credit|foto|bild|illustration)(?:\s+credit)?\s*:.{0,80}"
    r"|(?:image|media|video)\s+(?:caption|source)\s*[,:].{0,300}"
    r"|[^.!?]{0,60}(?:getty images|reuters|afp|ap photo|shutterstock)[^.!?]{0,20}"
    r"|(?:additional\s+)?(?:reporting|writing)\s+by\s[^.!?]{0,120}"
    r"|share(?: this(?: article| story)?| on \w+| via \w+)?|save(?: article)?|read more|advertisement"
    r"|listen to this article|sign up.{0,40}|\d+\s+min(?:ute)?s?\s+read"
    # its links to other articles between and after the paragraphs ("Read more: …", "Related: …", "Most read"), its
    # calls to follow or subscribe ("Follow us on Twitter", "Already a subscriber? Log in"), a republished piece's note
    # ("This article was originally published on The Conversation.") and the copyright line
    r"|(?:read more|related(?: articles?| stories)?|see also|more on this(?: story)?|read next|most read|most popular"
    r"|recommended(?: for you)?|you may also like|more stories|editor'?s picks?)(?:\s*[:：|»›>–—-]\s*[^\n]{0,160})?"
    r"|follow (?:us|\w+) on (?:twitter|x|facebook|instagram|linkedin|threads|bluesky|tiktok|youtube)[^.!?]{0,60}[.!]?"
    r"|(?:click here to )?subscribe(?: now| today| here| for (?:free|more)| to (?:our|the) newsletter)?[.!]?"
    r"|already (?:a )?subscriber\?\s*(?:log|sign) in|gift this article|enjoying this article\?[^\n]{0,60}"
    r"|this (?:article|story|piece) (?:was )?(?:originally |first )?(?:published|appeared) (?:on|in|at|by) [^.!?]{0,80}[.!]?"
    r"|(?:copyright|©|\(c\))\s*©?\s*\d{4}[^.!?]{0,80}[.!]?(?:\s*all rights reserved[.!]?)?|all rights reserved[.!]?"
    # a Chinese page's buttons to share it and the editor under the article
    r"|(?:分享到|分享至)\s*[：:].{0,40}|(?:责任编辑|責任編輯|编辑|編輯)\s*[：:]\s*[^\s：:]{1,20}"
    # a social post's furniture, as a copy of its page brings it along (Reddit, X, LinkedIn, Facebook): its author's
    # handle with the community and the time ("r/harlowbay · Posted by u/harbourfan · 3h", "@harbourfan · 3h", "2d •
    # Edited"), its counts of replies and reactions ("42 comments", "👍 128 · 14 comments · 3 reposts", "⬆ 128 ⬇")
    # and its buttons ("Reply", "Report", "Like Comment Repost Send")
    r"|(?:r/\w+\s*[·•]?\s*)?(?:posted by\s+)?u/[\w-]{2,30}(?:\s*[·•]\s*[^.!?]{0,30})?|@\w{1,30}\s*[·•]\s*[^.!?]{0,30}"
    r"|\d{1,2}\s*[smhdwy]\s*[·•]\s*edited(?:\s*[·•]\s*\W*)?"
    rf"|(?:[^.!?]{{0,40}}[·•]\s*)?\d[\d.,]*\s*[kKmM]?\s*views|(?=[^.!?]*\b{_REACTIONS}\b)(?:[^\w.!?]|\d[\d.,]*+[kKmM]?\b|{_REACTIONS}\b)++"
    r"|reply|report|(?:(?:like|comment|repost|send|share|reply|report|award|follow|retweet|quote|bookmark)\s*[·•|]?\s*){2,})\s*$",
    re.IGNORECASE,
)
# a caption's label alone on its line, above the caption ("Image caption," above what the photo shows)
_CAPTION_LABEL = re.compile(r"^\s*(?:image|media|video)\s+caption\s*[,:]?\s*$", re.IGNORECASE)
# a person's name alone on a line (two or three words in capitals), a byline without its "By" where it stands
# beside a page's furniture ("Maya Lindqvist" above "Tue 1 Dec 2026 14.05 GMT")
_NAME_LINE = re.compile(rf"^\s*{_CAPITALISED_WORD}(?:\s+{_CAPITALISED_WORD}){{1,2}}\s*$")


def is_web_furniture(line: str) -> bool:
    """Whether `line` is what a web page puts around an article's text (`_BYLINE`, `_WHEN_PUBLISHED`,
    `_DATED_ELSEWHERE`, `_PAGE_LINE`): "By Maya Lindqvist, CNN", "Updated 3:14 PM EST, Tue December 1, 2026",
    "Stand: 03.03.2026 10:31 Uhr", "2026年3月3日 10時31分", "Image caption, …", "Share", "4 min read"."""
    return bool(_BYLINE.match(line) or _WHEN_PUBLISHED.match(line) or _DATED_ELSEWHERE.match(line)
                or _PAGE_LINE.match(line))


def furniture_lines(lines) -> set:
    """The indices of the lines (or sentences) that are a web page's furniture around a pasted article
    (`is_web_furniture`, each holding a word), the caption under a caption's label alone (`_CAPTION_LABEL`), a
    person's name alone beside furniture (`_NAME_LINE`: a byline without "By") and a short line under a byline that
    reads with it as one ("By Maya Lindqvist" above "BBC News"). Each is a sentence of its own and no key fact: a
    short one would otherwise join its neighbour, the headline above it or the lead below it."""
    written = [index for index, line in enumerate(lines) if line.strip()]
    read = {index: " ".join(lines[index].split()) for index in written}
    # a line of numbers alone is no furniture ("2026", a score), a Chinese or Japanese date is ("2026年3月3日")
    found = {index for index in written
             if (_WORD.search(read[index]) or _CJK_DATE_UNIT.search(read[index])) and is_web_furniture(read[index])}
    for before, index in zip(written, written[1:]):
        if _CAPTION_LABEL.match(read[before]):
            found.add(index)
    for position, index in enumerate(written):
        beside = written[max(position - 1, 0):position] + written[position + 1:position + 2]
        if index not in found and _NAME_LINE.match(read[index]) and any(line in found for line in beside):
            found.add(index)
    for before, index in zip(written, written[1:]):
        joined = f"{read[before]} {read[index]}"
        if (before in found and index not in found and _width(read[index]) < _MIN_SENTENCE_CHARS
                and (_BYLINE.match(read[before]) and _BYLINE.match(joined)
                     or _NAME_LINE.match(read[before]) and _BYLINE.match(f"By {joined}")
                     # a news agency's name under a Chinese or Japanese date ("共同通信" under "2026年3月3日 10時31分")
                     or _CJK_DATE_UNIT.search(read[before]) and not read[index].endswith(_SENTENCE_END))):
            found.add(index)
    return found


def _subtitle_lines(lines):
    """A subtitle file's cues as lines of running text: without its header and notes, each cue's number and timing,
    and its tags; a cue's voice (`<v Name>`) or its opening "Name:" names its speaker, and a cue that names none, or
    the same speaker, goes on the turn before it ("Anna: so I think we" + "should move it to May"); what is heard and
    not said ("[Music]", `_CUE_SOUND`) goes; a name alone on a cue's first line names its speaker where most cues
    open with one (Teams). In a file of rolling captions (YouTube's automatic ones show each line
    in two or three cues as it rolls up the screen: at least `_ROLLED_SHARE` of the lines repeat one of the two
    before them) each line is read once."""
    said, cues = [], []
    for block in re.split(r"\n\s*\n", "\n".join(lines)):
        cue = block.splitlines()
        timing = next((index for index, line in enumerate(cue) if _CUE_TIMING.match(line)), None)
        if timing is None and cue and _SUBTITLE_HEADER.match(cue[0]):
            continue
        cues.append(cue[timing + 1:] if timing is not None else cue)
    # a name alone on a cue's first line above its words is the cue's speaker (Teams' transcript: "Anna Berg" above
    # what she said) where most cues of more than one line open with one and someone speaks twice
    spoken = [cue for cue in cues if len(cue) > 1]
    heads = [" ".join(cue[0].split()) for cue in spoken if _NAME_LINE.match(cue[0])]
    named = len(set(heads)) < len(heads) and len(heads) >= DIALOGUE_TURN_SHARE * len(spoken)
    for cue in cues:
        if named and len(cue) > 1 and _NAME_LINE.match(cue[0]):
            said.append((" ".join(cue[0].split()), " ".join(" ".join(cue[1:]).split())))
            continue
        for line in cue:
            voice = _CUE_VOICE.search(line)
            words = " ".join(_CUE_SOUND.sub(" ", _CUE_TAG.sub("", line)).split())
            turn = None if voice else SPEAKER_TURN.match(words)
            speaker = voice.group(1).strip() if voice else turn.group(1) if turn else None
            words = words[turn.end() - 1:] if turn else words
            if words:
                said.append((speaker, words))
    repeated = {index for index, line in enumerate(said) if line in said[max(0, index - 2):index]}
    rolling = len(repeated) >= _ROLLED_SHARE * len(said)
    turns = []
    for index, (speaker, words) in enumerate(said):
        if rolling and index in repeated:
            continue
        if turns and (speaker is None or speaker == turns[-1][0]):
            turns[-1][1] += " " + words
        else:
            turns.append([speaker, words])
    return [f"{speaker}: {words}" if speaker else words for speaker, words in turns]


def _caption_times(lines) -> bool:
    """Whether `lines` are a video's transcript as its player copies it (`_ELAPSED_ALONE`): at least three lines and
    a third of the non-empty ones a time alone, the times rising by at most `_CAPTION_STEP_SECONDS` on average."""
    written = [line for line in lines if line.strip()]
    stamps = [match.groups() for match in map(_ELAPSED_ALONE.match, written) if match]
    times = [int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) for hours, minutes, seconds in stamps]
    return (
        len(times) >= 3 and 3 * len(times) >= len(written) and times == sorted(times)
        and times[-1] - times[0] <= _CAPTION_STEP_SECONDS * (len(times) - 1)
    )


def _exported_turns(lines):
    """`lines` of a chat or meeting export read as turns, "Name: what they said", one a line: without the date and
    time of each message, a time after a name, Zoom's "From … to Everyone", a generated dialogue's count of its turns
    ("Turn 1"), what a chat app shows under a message (`_CHAT_FURNITURE`: reactions, replies, "(edited)"), and with
    the lines under a header of a name and a time (or a name, a time and a colon) joined into that speaker's turn;
    and the names of those headers. A header's name opens in a capital or a letter of a script without case ("at the
    gym at 10:30" goes on a turn)."""
    read, speaker, headers, reacted = [], None, [], False
    for line in lines:
        # a reaction's count stands on the line under its emoji
        counted, reacted = reacted and _REACTION_COUNT.match(line), bool(_CHAT_FURNITURE.match(line))
        if reacted or counted:
            continue
        line = _EDITED.sub("", line)
        bare = _MESSAGE_STAMP.sub("", line, count=1)
        bare = _STAMP_AFTER_NAME.sub(r"\1", _ZOOM_SENDER.sub(r"\1:", bare), count=1)
        header = _SPEAKER_HEADER.match(line) or (bare != line and _NAME_ALONE.match(bare))
        # the separator before the time goes with the time ("Anna Berg - 00:05", Fireflies), not with the name
        name = next((name for name in header.groups() if name), "").rstrip(" -–—|,") if header else ""
        if name and not name[0].islower():
            speaker = name
            headers.append(speaker)
            read.append(f"{speaker}:")
        elif _STAMP_ALONE.match(line) or _TURN_NUMBER_ALONE.match(line):
            continue
        elif not line.strip():
            # a blank line ends a header's turn once something was said in it
            speaker = speaker if read and read[-1].endswith(":") else None
        elif speaker:
            read[-1] += " " + line.strip()
        else:
            # a line's opening time is a message's only when a turn follows it ("10:30 works for me" says it)
            read.append(bare if SPEAKER_TURN.match(bare) else line)
    # a header under which nothing was said
    unsaid = {f"{name}:" for name in headers}
    return [line for line in read if line not in unsaid], headers


def transcript_read(text: str) -> str:
    """`text` without what a chat app or a meeting tool adds to a conversation when it exports it (subtitle timings,
    Whisper's bracketed segment timings,
    each message's date and time, a speaker's header line: see `_TIME` above), so that its turns read as a typed
    dialogue's do, "Name: what they said", one a line: a dialogue to `is_dialogue`, its windows and questions whole
    turns with their speakers. A subtitle file's timings always go; a message's time and a header only when what is
    left is a dialogue in which someone speaks more than once (a timetable's "10:30 Bus: …" keeps its times), and
    any other text is returned as it is."""
    lines = text.splitlines()
    written = [line for line in lines if line.strip()]
    if any(_CUE_TIMING.match(line) for line in lines):
        lines = _subtitle_lines(lines)
    elif written and sum(bool(_SEGMENT_TIMING.match(line)) for line in written) >= DIALOGUE_TURN_SHARE * len(written):
        lines = _subtitle_lines([_SEGMENT_TIMING.sub("", line) for line in lines])
    elif _caption_times(lines):
        lines = _subtitle_lines([line for line in lines if not _ELAPSED_ALONE.match(line)])
    turns, headers = _exported_turns(lines)
    speakers = [speaker.casefold() for speaker in turn_speakers("\n".join(turns))]
    headers = [header.casefold() for header in headers]
    # someone speaks twice, and where header lines name the speakers, they name most turns and someone twice (a
    # page's stray "Updated 10:31" line among its turns names no speaker)
    spoke_again = len(set(speakers)) < len(speakers) and (
        not headers or (len(set(headers)) < len(headers) and len(headers) >= DIALOGUE_TURN_SHARE * len(speakers))
    )
    if turns == [line for line in lines if line.strip()] or not (is_dialogue("\n".join(turns)) and spoke_again):
        return "\n".join(lines).strip()
    return "\n".join(turns)


# a paged text's (a PDF's) page numbers, alone on their lines ("3", "- 3 -", "Page 3 of 10", "Seite 3 von 10",
# "3/10"): two or more, each one more than the one before and at least `_PAGE_LINES` written lines apart (a list's
# numbers alone on their lines are closer); and its running heads and feet, a short line written the same beside
# one of them and elsewhere too ("Harlow Bay Council - Annual Report 2026"): what the printed page shows, which
# breaks the text's sentences where they cross a page
_PAGE_NUMBER = re.compile(
    r"^\s*(?:(?:page|seite|página|pagina|pág\.|p\.|страница|стр\.)\s*)?[-–—]?\s*(\d{1,4})"
    r"\s*(?:(?:of|von|de|di|sur|van|из|/)\s*\d{1,4})?\s*[-–—]?\s*$",
    re.IGNORECASE,
)
_PAGE_LINES = 5
# a running head or foot stands within this many written lines of a page's number
_RUNNING_LINE_REACH = 2


def _without_page_marks(text: str) -> str:
    """A paged text without its page numbers (`_PAGE_NUMBER`) and the running heads and feet beside them; where the
    first of them opens the text, it is kept as the text's title. Any other text is returned as it is."""
    lines = text.splitlines()
    written = [index for index, line in enumerate(lines) if line.strip()]
    position = {index: order for order, index in enumerate(written)}
    numbers = [(index, int(found.group(1))) for index in written if (found := _PAGE_NUMBER.match(lines[index]))]
    if len(numbers) < 2 or any(number != before + 1 or position[index] - position[earlier] < _PAGE_LINES
                               for (earlier, before), (index, number) in zip(numbers, numbers[1:])):
        return text
    pages = [position[index] for index, _ in numbers]
    beside = {written[order] for page in pages
              for order in range(max(page - _RUNNING_LINE_REACH, 0), min(page + _RUNNING_LINE_REACH + 1, len(written)))}
    read = {index: " ".join(lines[index].split()) for index in written}
    counts = Counter(read.values())
    marks = {index for index, _ in numbers} | {
        index for index in beside if counts[read[index]] >= 2 and _width(read[index]) < _SIGNATURE_CHARS}
    return "\n".join(line for index, line in enumerate(lines) if index not in marks or index == written[0])


# a hard-wrapped text (a PDF's text, a plain-text e-mail's, a terminal's): most of its lines are long, of about the
# same width, and break inside a sentence; `unwrapped` joins them
_WRAPPED_LINE_CHARS = 40
_WRAPPED_SHARE = 0.6
# of its line breaks, at least this share before a word in lower case or a number (English text wrapped at 70
# characters breaks so at about two in three; a language whose nouns open in a capital at fewer)
_WRAPPED_INSIDE_SHARE = 0.4
_SENTENCE_END = (".", "!", "?", ":", "。", "！", "？", "：", '"', "”", "’", "»", ")")


def unwrapped(text: str) -> str:
    """A hard-wrapped text's paragraphs, each on one line: where at least `_WRAPPED_SHARE` of its lines are
    `_WRAPPED_LINE_CHARS` characters or longer and `_WRAPPED_INSIDE_SHARE` of its line breaks are surely inside a
    sentence (the next line goes on in lower case or with a number), a long line that
    ends after no full stop, colon or closing quote goes on the next one (a word broken with a hyphen keeps it,
    "well-" "known"); a list's item, a PDF's heading (`_pdf_heading`) and an abstract's first line
    (`ABSTRACT_OPENING`) open a line of their own; a short line (a heading, a paragraph's last line) and a blank
    line end where they did. Any other text, a dialogue too, is returned as it is."""
    lines = text.splitlines()
    written = [line.strip() for line in lines if line.strip()]
    # a break that is surely inside a sentence: the next line goes on in lower case or with a number (a list of
    # quoted items, one a line and each ending in a comma, breaks at none)
    inside = [
        line for line, after in zip(lines, lines[1:])
        if line.strip() and not line.rstrip().endswith(_SENTENCE_END)
        and (after.lstrip()[:1].islower() or after.lstrip()[:1].isdigit())
    ]
    long_lines = [line for line in written if len(line) >= _WRAPPED_LINE_CHARS]
    if (len(written) < 3 or is_dialogue(text) or len(long_lines) < _WRAPPED_SHARE * len(written)
            or len(inside) < _WRAPPED_INSIDE_SHARE * (len(written) - 1)):
        return text
    joined = lines[:1]
    for before, line in zip(lines, lines[1:]):
        if (len(before.strip()) >= _WRAPPED_LINE_CHARS and line.strip() and not _LIST_MARKER.match(line)
                and not _pdf_heading(line) and not ABSTRACT_OPENING.match(line)
                and not before.rstrip().endswith(_SENTENCE_END)):
            joined[-1] = joined[-1].rstrip() + ("" if before.rstrip().endswith("-") else " ") + line.strip()
        else:
            joined.append(line)
    return "\n".join(joined)


def _pdf_heading(line: str) -> bool:
    """Whether `line` is a PDF's heading of an abstract or of a numbered section, short enough to introduce the line
    after it (`_ABSTRACT_HEADING`, `_NUMBERED_HEADING`: "Abstract", "1 Introduction")."""
    return bool(_ABSTRACT_HEADING.match(line)
                or (_NUMBERED_HEADING.match(line) and _width(line.strip()) < _MIN_SENTENCE_CHARS))


def _number_form(line: str):
    """How `line`'s number is written (`_LINE_NUMBER`: its depth and its closing full stop), None when it opens with
    none."""
    number = _LINE_NUMBER.match(line)
    return number and (number.group(1).rstrip(".").count(".") + number.group(1)[0].isalpha(), number.group(1)[-1])


def _nearest_written_index(lines, index, step):
    """The index of the first line with words from `index + step` on, going by `step` (1 after it, -1 before it);
    None if none."""
    index += step
    while 0 <= index < len(lines) and not lines[index].strip():
        index += step
    return index if 0 <= index < len(lines) else None


def _nearest_written(lines, index, step):
    """The first line with words from `index + step` on, going by `step` (1 after it, -1 before it); "" if none."""
    nearest = _nearest_written_index(lines, index, step)
    return "" if nearest is None else lines[nearest]


def _numbered_item(lines, index) -> bool:
    """Whether the line at `index` is an item of a numbered list: the nearest line before or after it is numbered
    in the same form ("1. Launch date" above "2. Budget", an agenda), which a section's heading is not ("2 Method"
    above "2.1 Data", or above its text)."""
    form = _number_form(lines[index])
    return bool(form) and form in (_number_form(_nearest_written(lines, index, -1)),
                                   _number_form(_nearest_written(lines, index, 1)))


# a heading typed plainly (a document pasted from a word processor, a note): a short line that opens a paragraph
# after the first (the text's title opens its first sentence, as before), opens with a letter or a digit, ends in no
# stop, colon, comma or dash and has text after it that does not go on in lower case ("Opening hours" above the
# section's first sentence, not a verse's "Roses are red" above "violets are blue"). None is a list's item, a field
# or a turn ("Date: 3 March"), the name under a letter's closing ("Best regards," or "Mit freundlichen Grüßen" and
# a blank line above "Alex", above "Sales Representative"), a dateline ("CNN --"), an image's placeholder ("[Image]"), a line above a turn
# ("Turn 1" above "Client: …") or a menu's link above another (a heading introduces a sentence or a list)
_UNFINISHED_ENDS = (*_SENTENCE_END, ",", ";", "，", "；", "、", "-", "–", "—", "|")


def _typed_heading(lines, index, furniture=frozenset()) -> bool:
    """Whether the line at `index` is a heading typed plainly (`_UNFINISHED_ENDS`): "What you'll do" above a list;
    no line of a web page's `furniture` (`furniture_lines`: "Share", a byline) is one, nor introduces it, nor is a
    letter's greeting ("Hi team" under a mail's header, `_LETTER_GREETING`)."""
    line = lines[index].strip()
    # the lines around it are looked for last: a run of blank lines is walked only from a short line next to it
    if not (line[:1].isalnum() and _width(line) < _MIN_SENTENCE_CHARS and not line.endswith(_UNFINISHED_ENDS)
            and not _LIST_MARKER.match(line) and not SPEAKER_TURN.match(line) and not _LETTER_GREETING.match(line)
            and index > 0 and not lines[index - 1].strip() and index not in furniture):
        return False
    following = _nearest_written_index(lines, index, 1)
    before, after = _nearest_written(lines, index, -1).rstrip(), "" if following is None else lines[following].strip()
    return (bool(after) and following not in furniture and not after[:1].islower() and not before.endswith((",", "，"))
            and not _LETTER_CLOSING.match(before) and not SPEAKER_TURN.match(after)
            and (_width(after) >= _MIN_SENTENCE_CHARS or bool(_LIST_MARKER.match(after))))


def _indent(line: str) -> int:
    """How far `line` is indented, a tab as four blanks."""
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _list_label(lines, index) -> bool:
    """Whether the line at `index` is a list's item that labels the items indented under it ("- **Budget**" above
    "  - 40,000 euros for Q3"): too short for a sentence, ending in no stop, the next line with words an item
    indented deeper. It introduces the first of them, as a heading does ("Budget: 40,000 euros for Q3"), and is no
    claim of its own."""
    line = lines[index]
    words = _without_emphasis(_without_marker(line)).strip()
    following = _nearest_written_index(lines, index, 1)
    return bool(_LIST_MARKER.match(line) and not _QUOTE_MARK.match(line) and words
                and _width(words) < _MIN_SENTENCE_CHARS and not words.endswith(_SENTENCE_STOPS)
                and following is not None and _LIST_MARKER.match(lines[following])
                and _indent(lines[following]) > _indent(line))


def _wiki_heading_read(line: str) -> str:
    """A line of MediaWiki's heading (`_WIKI_HEADING`) as markdown's heading of its level: "== History ==" reads
    "## History"; any other line as it is."""
    heading = _WIKI_HEADING.match(line)
    return f"{'#' * len(heading.group(1))} {heading.group(2)}" if heading else line


def source_lines(text: str) -> str:
    """A source's lines as they are written, before their layout is read (`read_source`): an HTML page's text
    (`page_text`), without bold and italics and without what a copied page shows around its text (`_PAGE_CHROME`:
    "From Wikipedia, the free encyclopedia", "Jump to navigation", a section's "[edit]"; its table of contents,
    `_contents_lines`; a news site's widgets, `_PAGE_WIDGETS`), MediaWiki's headings as
    markdown's; an exported chat's turns (`transcript_read`); a hard-wrapped text's paragraphs (`unwrapped`). Whether
    a source is a dialogue is read from these lines (`keyfacts.source_kind`): once a heading introduces its
    section's first line ("## History" above "The town was founded …" reads "History: The town was founded …"),
    that line reads as a speaker's turn, and an article of short sections as a dialogue."""
    # a section's heading, marked by its link to edit it, introduces the section's text ("History[edit]": "History:")
    lines = _without_reader_header(_PAGE_WIDGETS.sub("\n", page_text(text)).splitlines())
    contents = _contents_lines(lines)
    page = [_wiki_heading_read(_EDIT_LINK.sub(":", line)) for index, line in enumerate(lines)
            if not _PAGE_CHROME.match(line) and index not in contents]
    return unwrapped(_without_page_marks(transcript_read("\n".join(_without_emphasis(line) for line in page))))


# a news site's widgets, whose words a copy of the page (or a corpus scraped from it, XSum's BBC articles) holds where
# they stood, on a line of their own or run into the text beside them: its video player's note ("Media playback is
# not supported on this device") and its share panel ("Share this with Email Facebook Messenger Twitter Pinterest
# WhatsApp LinkedIn Copy this link", "Share this withEmailFacebook…Copy this linkThe Corbin Street bakery …")
_PAGE_WIDGETS = re.compile(
    r"media playback is (?:not supported|unsupported) on (?:this|your) device\.?"
    r"|share this with\s*(?:(?:email|facebook|messenger|twitter|pinterest|whatsapp|linkedin|reddit|x)\s*)+copy this link",
    re.IGNORECASE,
)


# a markdown footnote's label before its text ("[^1]: Council minutes, 3 March 2026.")
_FOOTNOTE_LABEL = re.compile(r"^\s*\[\^[\w-]{1,20}\]\s*:\s*")


def laid_out(lines: str) -> str:
    """A source's lines (`source_lines`) without the layout of markdown (`_layout_lines`: headings, a PDF's too, list
    markers, tables, rules, code fences, a footnote's label), its citations, images and links' addresses."""
    read = _layout_lines(lines.splitlines(), lone_markers=False, source_headings=True)
    # a line that held only an image or a citation goes, as a rule's line does
    return "\n".join(words for line in read if (words := _without_citations(_FOOTNOTE_LABEL.sub("", line))) or not line)


def read_source(text: str) -> str:
    """A source as the metrics read it (`laid_out(source_lines(text))`): an HTML page's text without what a copied
    page shows around it, an exported chat's turns, a hard-wrapped text's paragraphs, and without the layout of
    markdown, its citations, images and links' addresses. What a page, a chat app or a PDF shows reads as the same
    text typed plainly."""
    return laid_out(source_lines(text))


def clean(text: str) -> str:
    """Unicode-normalised text without control characters (newlines and tabs become spaces where unsafe)."""
    text = unicodedata.normalize("NFC", text)
    return "".join(
        char if char in "\n\t" or unicodedata.category(char) not in _CONTROL else " " for char in text
    ).strip()


def _width(text: str) -> int:
    """Length in Latin-character equivalents: a wide (CJK) character holds about a word, so it counts 3."""
    return sum(3 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _continues_after_number(sentence: str, piece: str) -> bool:
    """Whether `piece` goes on the sentence that a number's full stop seemed to end (`_NUMBER_STOP`)."""
    stop = _NUMBER_STOP.search(sentence)
    if not stop:
        return False
    word_before = (stop.group(1) or "").strip().lower()
    return (
        piece.split()[0].rstrip(".,;") in _GERMAN_MONTHS
        or word_before in _GERMAN_BEFORE_ORDINAL
        or (piece[0].islower() and sentence[0].isupper())
    )


def text_language(text: str) -> str:
    """The language of `text` as an ISO 639-1 code (py3langid: character n-grams, 97 languages, offline)."""
    import py3langid  # imported on use: its model loads in about a second, and most texts never need it

    return py3langid.classify(text)[0]


def _own_abbreviations_kept(line: str, pieces, language: str):
    """`pieces`, sentencex's sentences of `line` by its English rules, where a stop that the rules of the text's own
    `language` read as an abbreviation's ends none if a word in lower case follows it, or the next such stop ("EE. UU.
    gasta", "221 v. Chr. markierte", "2003 г. эти"), or a capital in a language whose nouns open in one
    (`_CAPITALISED_NOUNS`: "1,5 Mio. Kunden"). Elsewhere a capital or a number after it still ends a sentence: those
    rules also take many a sentence's last word for an abbreviation (Italian "…negli aeroporti USA. I tagli…"), and
    German's end none before a number."""
    if language == SEGMENTER_LANGUAGE:
        return pieces
    # the pieces of either rules make up the line, so their ends are the running sums of their lengths
    own_ends = set(itertools.accumulate(map(len, sentencex.segment(language, line))))
    starts = list(itertools.accumulate(map(len, pieces[:-1]), initial=0))
    # from the last piece back: a piece goes on the one before it when its own language reads no end between them
    # and it opens a word (in lower case, or a noun's capital), or it goes on into the next piece too
    joins = [False] * len(pieces)
    for index in range(len(pieces) - 1, 0, -1):
        goes_on = index + 1 < len(pieces) and joins[index + 1]
        opening = pieces[index].lstrip()[:1]
        opens_word = opening.islower() or (language in _CAPITALISED_NOUNS and opening.isupper())
        joins[index] = starts[index] not in own_ends and (opens_word or goes_on)
    return _merged(pieces, joins)


def _merged(pieces, onto_previous, separator=""):
    """`pieces` with each one whose `onto_previous` flag is set appended to the one before it."""
    merged = pieces[:1]
    for piece, joins in zip(pieces[1:], onto_previous[1:]):
        if joins:
            merged[-1] += separator + piece
        else:
            merged.append(piece)
    return merged


def _letters(word: str) -> int:
    """Letters of `word`, each with its combining marks counted once ("यू" is one)."""
    return sum(not unicodedata.category(char).startswith("M") for char in word)


def _abbreviation_pieces_joined(pieces, language):
    """`pieces` of a line where each inner piece that is an abbreviation or an initial of a text in `language`
    (`_ABBREVIATION_PIECE`) or a list's number (`_NUMBER_PIECE`, `_LEAD_IN_NUMBER`) goes on into the piece after it,
    and a piece that ends in an initial into such a piece of at most two letters ("στις Η." "Π." "Α." "από ότι …" and
    "यू." "एस." "जैसे …" are one sentence each)."""
    split, after_lead_in = [], set()
    for piece in pieces:
        number = _LEAD_IN_NUMBER.search(piece)
        if number:
            after_lead_in.add(len(split) + 1)
        split += [piece[:number.start()], number.group(1)] if number else [piece]
    numbers = [int(match.group(1)) if match else None for match in map(_NUMBER_PIECE.match, split)]
    numbered = set(numbers)

    def goes_on(index):
        if not 0 < index < len(split) - 1:
            return False
        if numbers[index] is not None:
            return index in after_lead_in or bool({numbers[index] - 1, numbers[index] + 1} & numbered)
        return language not in (None, SEGMENTER_LANGUAGE) and bool(_ABBREVIATION_PIECE.match(split[index]))

    joins = [goes_on(index) for index in range(len(split))]
    for index in range(1, len(split) - 1):
        initial = split[index - 1].rsplit(maxsplit=1)[-1]
        if (joins[index] and numbers[index] is None and _letters(split[index][:-1]) <= 2 and initial.endswith(".")
                and _letters(initial[:-1]) == 1 and initial[0].isalpha()):
            joins[index - 1] = True
    # a piece that goes on takes the next one onto it
    return _merged(split, [False, *joins[:-1]], separator=" ")


def split_sentences(text: str, items=frozenset(), source: bool = False):
    """Sentences of `text` (sentencex, rule-based, many languages; line breaks end a sentence too); fragments
    shorter than 20 characters (headings, list markers) join their neighbour, a line's short opening piece the rest
    of its line ("2. It opens in June.", "Ben: Sure. I will water them."), a sentence ending in a colon the one after
    it ("Key points:", a speaker's name on a line of its own), and so does the rest of a sentence cut at a day's or
    an ordinal's full stop ("am 4. November") or at an abbreviation of the text's own language ("EE. UU. gasta").
    An e-mail's or a meeting record's header line ("To: Tom", "Attendees: …", `header_lines`) and a letter's greeting,
    closing and signature ("Hi Tom,", "Best regards,", "Lena", `letter_lines`) are each a sentence of their own,
    however short: they are no key facts, and joined to the text's first or last sentence they would make that one
    none. So, in a `source`, is a web page's furniture around a pasted article ("By Maya Lindqvist", "1 December
    2026", "Share": `furniture_lines`), which would otherwise join its headline or its lead. So is each of the lines
    numbered in `items` (a summary's list items, "Cost €3.2m" above "Opens June 2027"): each states its own facts.
    Only a lead-in ("Key points:") or a fragment too short for a sentence (a title) goes onto one."""
    sentences, language, lines = [], None, text.splitlines()
    headers = header_lines(lines)
    own_lines = (headers | letter_lines(lines, headers) | (furniture_lines(lines) if source else set())
                 | {index for index, line in enumerate(lines) if MAIL_SEPARATOR.match(line)})
    field_values = {later for index in own_lines for later in _field_value(lines, index)}
    sealed, last_is_item = False, False
    for line_index, line in enumerate(lines):
        # sentencex ends no sentence before a run of about 50 blanks (a PDF's columns, a page's padding), and its
        # pieces are read with single spaces anyway
        line = " ".join(line.split())
        if line_index in own_lines:
            # a field written alone ("Attendees:") and the value under it are one header line, with its colon where
            # the field was written without one ("Attendees" above the names)
            if line_index in field_values:
                colon = "" if line_index - 1 in field_values or sentences[-1].endswith(_COLONS) else ":"
                sentences[-1] = f"{sentences[-1]}{colon} {line}"
            else:
                sentences.append(line)
            sealed = True
            continue
        pieces = sentencex.segment(SEGMENTER_LANGUAGE, line)
        # only a piece that opens with a letter can go on the one before it
        if any(piece.lstrip()[:1].isalpha() for piece in pieces[1:]):
            language = language or text_language(text)
            pieces = _own_abbreviations_kept(line, pieces, language)
        pieces = [" ".join(piece.split()) for piece in pieces]
        pieces = [piece for piece in pieces if piece]
        pieces = _abbreviation_pieces_joined(pieces, language)
        # a short opening piece belongs to the line it opens, not to the sentence before the line break
        while len(pieces) > 1 and _width(pieces[0]) < _MIN_SENTENCE_CHARS:
            pieces[:2] = [f"{pieces[0]} {pieces[1]}"]
        for index, piece in enumerate(pieces):
            # a line that is a lead-in ("Key points:") introduces what follows it, not the sentence before it
            lead_in = index == 0 and len(pieces) == 1 and piece.endswith(_COLONS)
            # an item goes onto no sentence but a lead-in and a short line above the list (its title)
            opens_item = index == 0 and line_index in items
            # and takes on only its own wrapped line: not the next item, a lead-in ("Costs:" after "- Opens 2028")
            # nor what a blank line sets apart
            item_ended = last_is_item and index == 0 and (
                opens_item or lead_in or (line_index > 0 and not lines[line_index - 1].strip()))
            joins = sentences and not sealed and (
                (_width(piece) < _MIN_SENTENCE_CHARS and not lead_in and not opens_item and not item_ended)
                or (_width(sentences[-1]) < _MIN_SENTENCE_CHARS and not item_ended)
                or sentences[-1].endswith(_COLONS)
                or (index > 0 and _continues_after_number(sentences[-1], piece))
            )
            if joins:
                sentences[-1] = f"{sentences[-1]} {piece}"
                # a lead-in or a title that an item joins reads as that item ("Facilities: Gym" above "- Pool")
                last_is_item = last_is_item or opens_item
            else:
                sentences.append(piece)
                last_is_item = line_index in items
            sealed = False
    # a lead-in that nothing follows goes back onto the sentence before it
    if len(sentences) > 1 and sentences[-1].endswith(_COLONS) and _width(sentences[-1]) < _MIN_SENTENCE_CHARS:
        sentences[-2:] = [f"{sentences[-2]} {sentences[-1]}"]
    return sentences


# speech recognised without punctuation (a video's automatic captions, a dictation) runs on for hundreds of words in
# one "sentence": one coverage question and one window however long the talk. A source of at least
# `_SPOKEN_MIN_WORDS` words with fewer than one punctuation mark outside a word in `_SPOKEN_WORDS_PER_MARK` is read in
# pieces of about `SPOKEN_PIECE_WORDS` words, the length of a sentence of edited prose. Edited text holds a mark
# every few words, its long sentences and its lists too: of ../shared's 52,820 sources the rule cuts 4, three
# Wikipedia chunks whose lists of names run without a mark, and one Italian sentence of 61 words and two commas
_SPOKEN_MIN_WORDS = 60
_SPOKEN_WORDS_PER_MARK = 30
SPOKEN_PIECE_WORDS = 20
# a punctuation mark that is not inside a word ("let's", "well-known" and "4.5" hold none)
_LOOSE_MARK = regex.compile(r"(?<!\w)\p{P}|\p{P}(?!\w)")


def source_sentences(source: str):
    """The sentences of a source as the metrics window and question it (`split_sentences`); in a text without
    punctuation, every sentence cut into even pieces of about `SPOKEN_PIECE_WORDS` words, each piece of a turn with
    its speaker ("Anna: so i think we …", "Anna: move it to may …")."""
    sentences = split_sentences(source, source=True)
    words = len(source.split())
    if words < _SPOKEN_MIN_WORDS or len(_LOOSE_MARK.findall(source)) * _SPOKEN_WORDS_PER_MARK >= words:
        return sentences
    pieces = []
    for sentence in sentences:
        turn = SPEAKER_TURN.match(sentence)
        speaker, said = (sentence[:turn.end() - 1], sentence[turn.end() - 1:]) if turn else ("", sentence)
        said = said.split()
        count = max(1, round(len(said) / SPOKEN_PIECE_WORDS))
        pieces += [
            speaker + " ".join(said[index * len(said) // count:(index + 1) * len(said) // count]) for index in range(count)
        ]
    return pieces


def claim_sentences(summary: str):
    """The claims of a summary: its sentences (`split_sentences`) without the layout of a list, of markdown or of
    HTML, which states nothing (`_layout_lines`: a list marker opening a line or a sentence, heading marks, bold, a
    title), so "2. **It opens in June.**" is judged as "It opens in June." and "## Summary of the article" is no
    claim; a lead-in such as "Key points:" goes with the sentence it introduces, and what a chat model says to its
    user around the summary ("Sure! Here is a summary:", "I hope this helps!") is dropped (`_without_reply`)."""
    read, items = page_text(without_reasoning(summary)).splitlines(), set()
    # a summary that is a title alone is judged as it stands
    lines = _layout_lines(read, titles=False, items=items)
    if not any(lines):
        items.clear()
        lines = _layout_lines(read, items=items)
    lines = _without_reply("\n".join(_without_decoration(line) for line in _without_letter(lines))).splitlines()
    # each line is kept with whether it is a list's item or a table's row, which is a claim of its own
    lines = [(line, index in items) for index, line in enumerate(lines)]
    if any(_SOURCE_LINE.match(line) for line, _ in lines):
        lines = _without_trailing_blanks([(line, item) for line, item in lines if not _SOURCE_LINE.match(line)])
        # the heading of the sources listed, the line above them: a lead-in ("Sources:"), or a line too short for a
        # sentence that ends in no stop and stands apart ("**References**"), when the text says something before it
        # (a short answer, "June 2027.[1]", or a terse note's last line, "Cost: €3.2m.", is no heading)
        last = lines[-1][0].strip() if lines else ""
        apart = len(lines) > 1 and not lines[-2][0].strip()
        if sum(bool(line.strip()) for line, _ in lines) > 1 and (last.endswith(_COLONS) or (
                _width(last) < _MIN_SENTENCE_CHARS and not last.endswith(_SENTENCE_STOPS) and apart)):
            lines = _without_trailing_blanks(lines[:-1])
    text = "\n".join(_without_citations(line) for line, _ in lines)
    sentences = split_sentences(text, items={index for index, (_, item) in enumerate(lines) if item})
    return [_LEAD_IN_MARKER.sub(" ", _without_marker(sentence)) for sentence in sentences]


def _without_letter(lines: list) -> list:
    """A summary's `lines` without what makes it a letter (a recap sent as an e-mail, `letter_lines`): its greeting
    ("Hi team,"), its closing and signature ("Best regards,", "Ana Silva", "Head of Events"), none of which the source
    states; each such line is left blank, so that the lines keep their places. A text that is nothing else is kept as
    it is."""
    written = [index for index, line in enumerate(lines) if line.strip()]
    letter = letter_lines(lines)
    if not set(written) - letter:
        return lines
    return ["" if index in letter else line for index, line in enumerate(lines)]


def _without_trailing_blanks(lines: list) -> list:
    """`lines` (each a line and whether it is an item) without the blank lines that end them."""
    while lines and not lines[-1][0].strip():
        lines = lines[:-1]
    return lines


def _layout_lines(lines, lone_markers=True, titles=True, source_headings=False, items=None) -> list:
    """`lines` (markdown, or HTML read as markdown: `page_text`) without their layout, which states nothing: a
    table's rule and header row dropped and its other rows read (`_table_rows_read`), rules and code fences dropped,
    list markers, heading marks, bold and italics taken off; and a heading too short for a sentence, which would
    otherwise join the sentence before it, introduces the line after it ("## Decisions" and "- The pool opens …"
    read "Decisions: The pool opens …"), and so does a heading typed plainly (`_typed_heading`); with
    `source_headings` (a source as read) so does a PDF's heading of an abstract or of a numbered section
    ("Abstract", "1 Introduction": `_ABSTRACT_HEADING`, `_NUMBERED_HEADING`; not a numbered list's item,
    `_numbered_item`: "1. Launch date" above "2. Budget"), which in a summary or an answer is text ("21 Jump
    Street"). With `titles` False headings are dropped (a summary's title, "## Summary of the council's decision",
    "**Key Points**", is no claim) but a heading typed plainly, which may be a terse note's line ("Budget approved")
    as well. With `lone_markers` False a
    list's markers come off only in markdown (a heading marks it) or where two or more lines open with one: a line
    alone that opens with a number can open with an ordinal ("19. Yüzyılın …", "1. FC Köln …"). When `items` is
    given, the indices of the lines read from a list's items and a table's rows are added to it."""
    rows = set()
    lines = _table_rows_read(list(lines), rows)
    # a source pasted from a web page: its furniture is no heading, and no heading introduces it
    furniture = furniture_lines(lines) if source_headings else frozenset()
    marked = [bool(_LIST_MARKER.match(line) or _EMOJI_BULLET.match(line)) for line in lines]
    listed = lone_markers or any(_HEADING.match(line) for line in lines) or sum(marked) >= 2
    read, introducing = [], False
    for index, line in enumerate(lines):
        if _RULE_LINE.match(line) or _FENCE_LINE.match(line):
            continue
        pdf_heading = source_headings and _pdf_heading(line) and not _numbered_item(lines, index)
        typed_heading = index not in rows and (_typed_heading(lines, index, furniture)
                                               or (listed and _list_label(lines, index)))
        heading = pdf_heading or typed_heading or _HEADING.match(line) or (
            line.strip() and index + 1 < len(lines) and _SETEXT_UNDERLINE.match(lines[index + 1]))
        if not titles and not typed_heading and (heading or _BOLD_TITLE.match(line)):
            continue
        words = _without_emphasis(_without_marker(line) if listed else line).strip()
        # "Resumen." heads the text after it as "Resumen" does
        words = words.rstrip(".") if pdf_heading else words
        if introducing and words:
            read[-1] = f"{read[-1]} {words}"
            introducing = False
        elif introducing:
            continue
        else:
            read.append(words)
        if items is not None and words and not heading and (
                index in rows or (listed and marked[index] and not _QUOTE_MARK.match(line))):
            items.add(len(read) - 1)
        if heading and words and _width(words) < _MIN_SENTENCE_CHARS:
            introducing = not words.endswith(_SENTENCE_STOPS)
            read[-1] += ":" if introducing and not words.endswith(_COLONS) else ""
    return read


def _is_furniture(attrs) -> bool:
    """Whether an HTML element's attributes name it as the page's furniture (`_HTML_FURNITURE`, `_HTML_FURNITURE_ROLES`)."""
    named = dict(attrs)
    words = re.split(r"[^a-z0-9]+", f"{named.get('id') or ''} {named.get('class') or ''}".lower())
    return bool(_HTML_FURNITURE.intersection(words)) or (named.get("role") or "").lower() in _HTML_FURNITURE_ROLES


class _PageText(html.parser.HTMLParser):
    """An HTML text read as the markdown of what it shows (`page_text`): a block's tags end a line, a heading opens
    a markdown heading ("## …"), a list item a list item ("- …"), a table's row a markdown row ("| … | … |", a rule
    under a row of header cells); what is not the page's text (`_HTML_UNREAD`) is left out, and its entities are
    read ("&amp;" is "&"); in a text that is HTML (`markup`), a line break is a space, as a browser shows it, but in
    preformatted text; in markdown with a few tags of HTML among its lines (a README's `<img>`, a `<br>`) the line
    breaks are markdown's."""

    def __init__(self, markup: bool, main_text: str = None, furniture: bool = True):
        super().__init__(convert_charrefs=True)
        self.parts, self.unread, self.cells, self.preformatted, self.markup = [], [], None, 0, markup
        # the element that holds the page's text, if it marks one, and how deep inside it the reader is; whether the
        # elements named as furniture are left out
        self.main_text, self.inside, self.furniture = main_text, 0, furniture

    @property
    def outside_main_text(self) -> bool:
        """Whether the page marks its text (`main_text`) and the reader is outside it."""
        return bool(self.main_text) and not self.inside

    def handle_starttag(self, tag, attrs):
        self.preformatted += tag == "pre"
        self.inside += tag == self.main_text
        # the page's own element and the one that holds its text are never furniture ("<body class='menu-open'>")
        named_furniture = self.furniture and tag not in ("html", "body", *_HTML_MAIN_TEXT) and _is_furniture(attrs)
        if self.unread or tag in _HTML_UNREAD or named_furniture:
            if tag not in _HTML_VOID:
                self.unread.append(tag)
        elif self.outside_main_text:
            return
        elif tag in ("td", "th") and self.cells is not None:
            self.cells.append([tag == "th", ""])
        elif tag == "tr":
            self.cells = []
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in _HTML_HEADINGS:
            self.parts.append("\n" + "#" * int(tag[1]) + " ")
        elif tag in _HTML_BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        self.preformatted -= tag == "pre" and self.preformatted > 0
        self.inside -= tag == self.main_text and self.inside > 0
        if tag in _HTML_VOID:  # "<br/>" ends its line once
            return
        if self.unread:
            # an element left open inside the unread one closes with it
            if tag in self.unread:
                del self.unread[len(self.unread) - 1 - self.unread[::-1].index(tag):]
        elif self.outside_main_text and tag != self.main_text:
            return
        elif tag == "tr" and self.cells is not None:
            cells = [" ".join(text.split()) for _, text in self.cells]
            self.parts.append("\n| " + " | ".join(cells) + " |\n")
            if self.cells and all(header for header, _ in self.cells):
                self.parts.append("|" + "---|" * len(cells) + "\n")
            self.cells = None
        elif tag == "li" or tag in _HTML_BLOCKS or tag in _HTML_HEADINGS:
            self.parts.append("\n")

    def handle_data(self, data):
        if self.unread or self.outside_main_text:
            return
        data = re.sub(r"\s+", " ", data) if self.markup and not self.preformatted else data
        if self.cells:
            self.cells[-1][1] += data
        elif self.cells is None:
            self.parts.append(data)


def page_text(text: str) -> str:
    """`text` as the markdown of what it shows when it holds HTML (`_HTML_TAG`, `_PageText`), each line's runs of
    spaces one space; any other text as it is, but its HTML comments, which nothing shows (`_HTML_COMMENT`: a PDF's
    figure converted to markdown, "<!-- image -->")."""
    text = _HTML_COMMENT.sub("", text)
    # a subtitle file's tags ("<v Anna>", "<i>") are its cues' (`transcript_read`)
    written = [line for line in text.splitlines() if line.strip()]
    if not _HTML_TAG.search(text) or any(_CUE_TIMING.match(line) for line in written):
        return text
    # HTML, when at least `_HTML_LINE_SHARE` of its lines hold a tag; else markdown with some HTML in it
    markup = sum(bool(_HTML_TAG.search(line)) for line in written) >= _HTML_LINE_SHARE * len(written)
    main_text = next((tag for tag in _HTML_MAIN_TEXT if re.search(rf"<{tag}[\s>]", text, re.IGNORECASE)), None)
    shown, whole = _page_lines(text, markup, main_text, furniture=True), _page_lines(text, markup, None, furniture=False)
    # a page whose main text or furniture, as named, would leave almost nothing (an empty <main> filled by a script, a
    # wrapper whose class reads "has-sidebar") is read whole
    if len(" ".join(shown).split()) < _HTML_KEPT_SHARE * len(" ".join(whole).split()):
        shown = whole
    # one blank line where the tags left several
    return "\n".join(line for line, before in zip(shown, [""] + shown) if line or before).strip()


def _page_lines(text: str, markup: bool, main_text, furniture: bool) -> list:
    """The lines `_PageText` reads of an HTML text, each line's runs of spaces one space."""
    reader = _PageText(markup, main_text, furniture)
    reader.feed(text)
    reader.close()
    return [" ".join(line.split()) for line in "".join(reader.parts).splitlines()]


def without_reasoning(text: str) -> str:
    """`text` without a reasoning model's thoughts (`_REASONING`: "<think>…</think>"), which are no part of its reply."""
    return _REASONING.sub("\n", text).strip()


def _table_rows_read(lines, rows: set):
    """`lines` with a markdown table's rule and header row dropped and each of its other rows read as its first cell
    and what the others say (`_TABLE_ROW`); the indices of the rows read are added to `rows`."""
    read = []
    for index, line in enumerate(lines):
        row = _TABLE_ROW.match(line)
        if not row:
            read.append(line)
            continue
        if _TABLE_RULE.match(line) or (index + 1 < len(lines) and _TABLE_RULE.match(lines[index + 1])):
            continue
        first, *rest = [cell.strip() for cell in row.group(1).split("|") if cell.strip()] or [""]
        text = f"{first}: {', '.join(rest)}" if rest else first
        rows.add(len(read))
        read.append(text if not text or unicodedata.category(text[-1]).startswith("P") else text + ".")
    return read


# a title that names the summary under it, as a chat model heads its reply ("Meeting Summary", "📌 Summary", "Summary of
# the Council Meeting", "TL;DR"): a few words that open or end with the summary's name (a noun: "The council
# summarised its plan" is a sentence) and end in no stop or colon (a lead-in, "Key takeaways:", goes with the
# sentence it introduces; "Overview: the pool opens in June" is a label and its value, "Council: Meeting Recap" a
# title)
_SUMMARY_TITLE_WORDS = 8
_TITLE_NOUN = _SUMMARY_NOUN.pattern.replace("|summari[sz]ed", "") + "|tl;? ?dr"
_SUMMARY_TITLE = re.compile(rf"^(?:{_TITLE_NOUN})(?![a-z])(?![^:：]*[:：]\s*\S)|(?<![a-z])(?:{_TITLE_NOUN})$", re.IGNORECASE)


def _names_the_summary(line: str) -> bool:
    """Whether `line` is a title that names the summary under it (`_SUMMARY_TITLE`), not a sentence or a label with
    its value."""
    title = _without_marker(line).strip()
    return (bool(_SUMMARY_TITLE.search(title)) and not title.endswith((*_SENTENCE_STOPS, *_COLONS))
            and len(title.split()) <= _SUMMARY_TITLE_WORDS)


def _without_reply(text: str) -> str:
    """`text` without what a chat model says to its user around it (`_REPLY_ACKNOWLEDGEMENT`, `_REPLY_ANNOUNCEMENT`,
    `_REPLY_CLOSING`): the opening acknowledgement and announcement of its first line, or a first line that is a
    title naming the summary (`_names_the_summary`), when more follows, the closing
    sentences of its last lines when something comes before them. A text that is nothing else is kept as it is: it
    is judged as what it says ("Would you like to swim on Saturday?" can be an NLI hypothesis)."""
    lines = text.splitlines()
    written = [index for index, line in enumerate(lines) if line.strip()]
    if not written:
        return text
    first = written[0]
    opened = _REPLY_ACKNOWLEDGEMENT.sub("", lines[first], count=1)
    if _REPLY_ANNOUNCEMENT.match(opened):
        announcement = sentencex.segment(SEGMENTER_LANGUAGE, opened)[0]
        colon = re.search(r"[:：](?!\d)", announcement)
        if colon:
            opened = opened[colon.end():]
        elif _SUMMARY_NOUN.search(announcement):
            opened = opened[len(announcement):]
    elif len(written) > 1 and _names_the_summary(opened):
        opened = ""
    if opened.strip() or len(written) > 1:
        lines[first] = opened
    for index in reversed(written):
        pieces = sentencex.segment(SEGMENTER_LANGUAGE, lines[index])
        before = any(lines[earlier].strip() for earlier in written if earlier < index)
        while pieces and _REPLY_CLOSING.match(pieces[-1]) and (before or len(pieces) > 1):
            pieces.pop()
        lines[index] = "".join(pieces)
        if pieces:
            break
    return "\n".join(lines)


def answer_text(answer: str) -> str:
    """An answer as the judge reads it: its sentences as a summary's claims are read (`claim_sentences`: without the
    layout of a list or of markdown, citations and the sources they number, or what a chat model says to its user
    around it), joined by spaces; "" when it states nothing else."""
    return " ".join(claim_sentences(clean(answer)))


def _without_marker(text: str) -> str:
    """`text` without the list marker that opens it (`_LIST_MARKER`), or the pictographs used as one ("✅ ", "👉 ")."""
    text = _LIST_MARKER.sub("", text)
    end = 0
    while end < len(text) and (unicodedata.category(text[end]) in (_PICTOGRAPH, *_IN_EMOJI)
                               or (end and unicodedata.category(text[end]) == _AFTER_PICTOGRAPH)):
        end += 1
    return _LIST_MARKER.sub("", text[end:].lstrip()) if end else text


def _emphasised(match):
    """What bold or italic marks wrap (the last group that matched), where it holds a word; marks around no word are
    text: a censored word ("f***ing", "s***") or an emoticon ("(*^0^*)", "(;_;)")."""
    words = next(group for group in reversed(match.groups()) if group is not None)
    return words if _WORD.search(words) else match.group()


def _without_emphasis(text: str) -> str:
    """`text` without markdown's bold and italic marks around words (`_emphasised`)."""
    return _ITALICS.sub(_emphasised, _EMPHASIS.sub(_emphasised, text))


def _without_decoration(text: str) -> str:
    """`text` without its pictographs and the hashtags that end it (a summary's; in a source they can be what it
    says)."""
    return _CLOSING_HASHTAGS.sub("", _INLINE_PICTOGRAPHS.sub("", text))


def _without_citations(text: str) -> str:
    """`text` without its citations, its images and its links' addresses."""
    return _ADDRESS_ALONE.sub("", _LINK.sub(r"\1", _IMAGE.sub("", _CITATION.sub("", text))))


def source_windows(sentences, count_tokens, max_tokens: int):
    """Overlapping windows of whole consecutive sentences, as (first, end) sentence ranges, each at most
    `max_tokens` tokens (a longer sentence is a window alone), every sentence in at least one; consecutive
    windows share about half their tokens, so a claim whose evidence straddles a boundary still finds it whole
    in one window. One window when all fits.
    """
    sizes = [count_tokens(sentence) for sentence in sentences]
    windows, start = [], 0
    while start < len(sentences):
        end, used = start, 0
        while end < len(sentences) and (end == start or used + sizes[end] <= max_tokens):
            used += sizes[end]
            end += 1
        windows.append((start, end))
        if end == len(sentences):
            break
        # the next window starts half-way into this one (by tokens), and always moves on
        half, step = used / 2, start
        while step < end - 1 and sum(sizes[start : step + 1]) <= half:
            step += 1
        start = max(step, start + 1)
    return windows


def _trigrams(text: str) -> set:
    text = " ".join(text.lower().split())
    return {text[i : i + 3] for i in range(len(text) - 2)}


def closest_sentence(claim: str, sentences) -> str:
    """The sentence sharing the most character trigrams with `claim` (any script, no word list): the span shown
    as a verdict's evidence."""
    wanted = _trigrams(claim)
    return max(sentences, key=lambda sentence: len(wanted & _trigrams(sentence)), default="")


_PAIRED = re.compile(rf"[{_CHARACTER_PAIRS}]")
_TERMS = re.compile(rf"[{_CHARACTER_PAIRS}]+|[^\W{_CHARACTER_PAIRS}]+")


def lexical_terms(text: str) -> list:
    """The terms a lexical ranking compares (any language, no word list, no stemmer): the words of the text,
    NFKC-normalised and case-folded, and in the scripts of `_CHARACTER_PAIRS` its overlapping character pairs."""
    terms = []
    for match in _TERMS.finditer(unicodedata.normalize("NFKC", text).casefold()):
        run = match.group()
        terms += [run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 and _PAIRED.match(run) else [run]
    return terms


def top_windows(queries, documents, count: int) -> list:
    """Per query, the indices of the `count` documents that BM25 ranks first for it (`bm25s`, over the terms of
    `lexical_terms`, the documents' own term statistics), best first; a tie goes to the earlier document. With
    `count` at least the number of documents, every index, best first. Every index in document order when `count`
    is 0, for a single document, and for a query none of whose terms occurs in any document: with nothing to rank
    by, nothing is left out."""
    every = list(range(len(documents)))
    if not count or len(documents) < 2:
        return [every for _ in queries]
    import bm25s  # imported on use: the metrics that never preselect windows do not pay for it

    ranking = bm25s.BM25()
    ranking.index([lexical_terms(document) for document in documents], show_progress=False)
    kept = []
    for query in queries:
        terms = lexical_terms(query)
        scores = ranking.get_scores(terms) if terms else [0.0] * len(documents)
        if max(scores) <= 0:
            kept.append(every)
            continue
        kept.append(sorted(every, key=lambda index: (-scores[index], index))[:count])
    return kept


def quote(text: str, tag: str) -> str:
    """`text` inside `<tag>…</tag>`, with every tag-like `<tag`/`</tag` inside it defused."""
    defused = re.sub(rf"<(/?)\s*({re.escape(tag)})", r"‹\1\2", text, flags=re.IGNORECASE)
    return f"<{tag}>\n{defused}\n</{tag}>"


def parse_list(generation: str, key: str):
    """A list of strings from a judge's output: JSON `{key: [...]}` or `[...]`, else one item per line.

    Returns (items, error): error is None when the output parsed, else a short description.
    """
    text = generation.strip()
    start, end = text.find("{"), text.rfind("}")
    candidates = [text[start : end + 1]] if 0 <= start < end else []
    start, end = text.find("["), text.rfind("]")
    candidates += [text[start : end + 1]] if 0 <= start < end else []
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            value = value.get(key)
        if isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value):
            items = [str(item).strip() for item in value if str(item).strip()]
            return items, None if items else f"empty '{key}' list"
    # only lines marked as list items: prose (a refusal, a cut-off JSON) is not a list
    marked = [re.match(r"^\s*(?:[-*•]|\d+[.)])\s+(.*)", line) for line in text.splitlines()]
    items = [match.group(1).strip() for match in marked if match and len(match.group(1).strip()) > 3]
    return items, None if items else f"no '{key}' in the judge's output"
