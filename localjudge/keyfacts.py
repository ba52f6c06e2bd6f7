"""Which source sentences the coverage questions ask about ("key facts", without a reference summary), and how many.

* `question_count`: how many by default, by the kind of source (`source_kind`): a dialogue (most of its lines are
  turns that open with a speaker's name and a colon, "Anna: …", "#Person1#: …", "李雷：…") gets
  `SENTENCE_QUESTIONS["dialogue"]`, any other text `SENTENCE_QUESTIONS["prose"]`;
* `lead_sentences`: the first sentences (the default: a news text puts its key facts first), past what a web page
  puts around a pasted article before its lead (`is_page_furniture`, `text.furniture_lines`: its byline, when it
  was published, a photo's credit and caption, its buttons), a mail client around a message and minutes above a
  meeting's record (`text.header_lines`: "From: …", "Subject: …", "Attendees: …"), a letter's greeting,
  closing and signature (`text.letter_lines`: "Hi Tom,", "Best regards,") and small talk (`is_small_talk`: "Anna:
  Good morning everyone, thanks for joining.", "I hope this email finds you well."), each asked without the greeting
  it opens with (`key_fact`: "Hi all, the server is down again." asks "the server is down again.");
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
import regex

from .baselines import word_tokens
from .text import (
    ABSTRACT_OPENING, GREETING_OPENING, GREETING_OPENING_A_TURN, MAIL_SEPARATOR, SPEAKER_TURN, furniture_lines,
    header_lines, is_dialogue, is_web_furniture, letter_lines, turn_speakers,
)

DAMPING = 0.85
# what an encyclopedia puts above an article to send readers elsewhere, a hatnote ("This article is about the town.
# For the bay, see Harlow Bay (bay).", "Not to be confused with …", "\"Harlow\" redirects here."), and its links to
# other articles on a section ("Main article: …", "See also: …")
_HATNOTE = re.compile(
    # after the article's title, when it is too short for a sentence of its own ("Harlow Bay This article is …")
    r"^(?:(?:[^\W\d_a-z][\w'’-]*\s){1,5})??(?i:this article is about\b|for other uses(?: of [^,]{1,60})?, see\b"
    r"|for the [^,.]{1,80}, see\s+(?-i:[^\W\d_a-z])"
    r"|not to be confused with\b|\"[^\"]{1,80}\" redirects here\b|(?:main articles?|see also|further information):)"
)
# what a paper puts after its abstract and states none of its findings: its keywords ("Keywords: …", "Index
# Terms—…", "Schlüsselwörter: …", "关键词：…") and its classification ("CCS Concepts: …", "JEL codes: …")
_PAPER_LINE = re.compile(
    r"^(?:keywords|key\s+words|index\s+terms|schlüsselwörter|stichwörter|mots[-\s]clés|palabras\s+clave"
    r"|parole\s+chiave|palavras-chave|trefwoorden|nyckelord|słowa\s+kluczowe|ключевые\s+слова|关键词|關鍵詞|キーワード"
    r"|주제어|ccs\s+concepts|acm\s+reference\s+format|jel\s+(?:codes?|classification)|msc\s+\d{4})\s*[:：.—–-]",
    re.IGNORECASE,
)
# what a meeting, a talk, a chat or a letter says to get going and to keep going, and which states none of its content:
# greetings, thanks and a call's logistics ("Good morning everyone, thanks for joining.", "Can everyone hear me
# okay?", "So, let's get started.", "Thanks for tuning in.", "I hope this email finds you well."): a sentence (or a
# turn, its speaker aside) of at most `SMALL_TALK_WORDS` words, each of them one of `SMALL_TALK` (English; the
# greetings and thanks of the European languages a letter's greeting is read in), or in a dialogue one of
# `ACKNOWLEDGEMENTS` too ("Sounds good.", "Okay, great."), which in prose are a review's verdict ("Everything here is
# ok."). A word of content ("the roof", "12 March", "approve") makes it a key fact again
SMALL_TALK = frozenset("""
    a an the and or but so then now well just also too really very lot lots of to for with in on at by from
    up about as is are am was were be been being it its this that these those there here i me my we us our you your
    they them do does did can could will would should shall may might must have has had having not no yes
    s ve ll re m d t everyone everybody all guys folks team everything anyone one mate friends
    hi hello hey hiya howdy morning afternoon evening night good day welcome back bye goodbye greetings dear
    thanks thank thx ty cheers appreciate appreciated kind
    hear see screen share sharing mute muted unmute audio video camera join joining joined started get let begin kick
    off wait minute second moment few couple coming come came listening tuning tuned show episode podcast call meeting
    talk soon later next week tomorrow
    hope finds find email mail message letter note doing going how what health
    know if any questions question hearing please hesitate contact reach out
    um uh hmm oh ah haha lol wow oops
    hallo moin servus guten morgen tag abend danke dankeschön vielen dank bitte ja nein tschüss zusammen alle
    allerseits bonjour bonsoir salut coucou merci beaucoup oui non à tous tout le monde hola buenos buenas días tardes
    noches gracias muchas sí todos adiós ciao buongiorno buonasera grazie mille sì tutti olá bom dia boa tarde obrigado
    obrigada sim não hoi goedemorgen je wel nee allemaal
""".split())
ACKNOWLEDGEMENTS = frozenset("""
    ok okay okey alright right sure yeah yep yup nope fine great nice cool awesome perfect excellent wonderful lovely
    sounds agreed agree absolutely definitely exactly true indeed got noted understood totally course makes sense
    problem worries gut super prima klar accord bien vale claro va bene
""".split())
SMALL_TALK_WORDS = 12
# courtesies whose words say something of content elsewhere: thanks ("Thank you very much", "thanks so much";
# "Mara: great, how much was it?" asks a price), "looking forward to …" ("I'm looking for one.") and "feel free to …"
# ("I'm free in the evening.")
_COURTESY_PHRASES = re.compile(r"\b(?:very|so) much\b|\bmany thanks\b|\blooking forward\b|\bfeel free\b", re.IGNORECASE)
# what a chat app writes for a message that sent a file, in place of the file: SAMSum's "<file_photo>", WhatsApp's
# "<Media omitted>", "image omitted" and "<attached: 00000012-PHOTO-2026-03-04.jpg>"
_ATTACHMENT = re.compile(
    r"<(?:file_\w+|media omitted|attached:[^>\n]*)>|\b(?:image|video|audio|sticker|gif|document|photo) omitted\b",
    re.IGNORECASE,
)
# a paper's front matter (its title, its authors, their affiliations and addresses) comes before its abstract, in
# as many sentences as it has lines when each author and each affiliation has a line of its own; a heading further
# on is a section's ("Summary" of a chapter), not the abstract
FRONT_MATTER_SENTENCES = 100
# questions asked by default, per kind of source. On the coverage board (docs/benchmarks.md, 24 documents a set) the
# first 10 sentences of a chat agree with its raters' relevance by +0.11 ± 0.03 per document more than the first 3
# (a chat's key content is spread over its turns), while news agrees less with more (SummEval −0.09 ± 0.09)
SENTENCE_QUESTIONS = {"prose": 3, "dialogue": 10}


def source_kind(text: str) -> str:
    """"dialogue" when `text.is_dialogue` (most of its lines are turns of two or more speakers), else "prose". `text`
    is a source's lines as read (`text.source_lines`; a chat typed plainly reads as it is written), not the source
    as laid out (`text.read_source`), where a heading introduces its section's first line and that line reads as a
    turn."""
    return "dialogue" if is_dialogue(text) else "prose"


def question_count(text: str) -> int:
    """How many source sentences the coverage questions ask about by default (`SENTENCE_QUESTIONS`)."""
    return SENTENCE_QUESTIONS[source_kind(text)]


def is_page_furniture(sentence: str) -> bool:
    """Whether `sentence` is what a web page, a mail client, an encyclopedia or a paper puts around a text and states
    none of its facts (`text.is_web_furniture`, `text.MAIL_SEPARATOR`, `_HATNOTE`, `_PAPER_LINE`):
    "By Maya Lindqvist, CNN", "Updated 3:14 PM EST, Tue December 1, 2026", "Photo: …/Getty Images", "Share", "4 min
    read", "-----Original Message-----", "For other uses, see …", "Keywords: summarization; evaluation"."""
    return bool(is_web_furniture(sentence) or MAIL_SEPARATOR.match(sentence) or _HATNOTE.match(sentence)
                or _PAPER_LINE.match(sentence))


def is_small_talk(sentence: str, dialogue: bool = False) -> bool:
    """Whether `sentence` (or the turn it is, its speaker aside) is small talk (`SMALL_TALK`, and `ACKNOWLEDGEMENTS`
    in a `dialogue`): "Anna: Good morning everyone, thanks for joining.", "I hope you are doing well!"; in a chat
    "Ben: Sounds good.", and a turn that says no word: an emoji, a file sent (`_ATTACHMENT`: "Zoe: <file_photo>")."""
    turn = SPEAKER_TURN.match(sentence)
    said = _ATTACHMENT.sub(" ", sentence[turn.end() - 1:] if turn else sentence)
    words = word_tokens(_COURTESY_PHRASES.sub(" thanks ", said))
    return len(words) <= SMALL_TALK_WORDS and all(
        word in SMALL_TALK or (dialogue and word in ACKNOWLEDGEMENTS) for word in words)


def abstract_start(sentences) -> int:
    """The index of the sentence that opens a paper's or a report's abstract (`text.ABSTRACT_OPENING`: "Abstract:
    We study …", "Zusammenfassung: …", "Executive summary: …") among its first `FRONT_MATTER_SENTENCES`; 0 when none
    does. What comes before it is the front matter: the title, the authors, their affiliations and e-mail addresses."""
    return next((index for index, sentence in enumerate(sentences[:FRONT_MATTER_SENTENCES])
                 if ABSTRACT_OPENING.match(sentence)), 0)


def key_fact(sentence: str) -> str:
    """What a key sentence states, as its question asks it: without the heading of the abstract it opens ("Abstract:
    We study …" asks "We study …") or the greeting it opens with (`text.GREETING_OPENING`: "Dear team, the launch
    moves to 17 March." asks "the launch moves to 17 March."; a turn keeps its speaker, "Ana: Hi, are the keys under
    the mat?" asks "Ana: are the keys under the mat?"), which no summary states."""
    fact = ABSTRACT_OPENING.sub("", sentence)
    greeting = GREETING_OPENING.match(fact)
    # a greeting and its names before a colon read as a turn too ("Good morning everyone: the …")
    turn = not greeting and SPEAKER_TURN.match(fact)
    said = turn.end() - 1 if turn else 0
    if turn:
        greeting = GREETING_OPENING_A_TURN.match(fact[said:])
    rest = fact[said + greeting.end():] if greeting else ""
    # a greeting with no more than a name ("Ana: Hi, Tom!"), small talk ("Ana: Hi, Tom! Hey") or the next turn
    # ("Ana: Hey! Tom: …") after it
    if len(rest.split()) < 2 or is_small_talk(rest, dialogue=True) or SPEAKER_TURN.match(rest):
        return fact
    return fact[:said] + rest


def _facts(sentences):
    """The indices of the sentences that can be key facts: those from a paper's abstract on (`abstract_start`), but
    a web page's or a mail client's furniture, a meeting record's header, a letter's greeting, closing and
    signature and small talk (`is_page_furniture`, `text.furniture_lines`, `text.header_lines`, `text.letter_lines`,
    `is_small_talk`), or all of them when nothing else is left."""
    headers = header_lines(sentences)
    headers |= letter_lines(sentences, headers) | furniture_lines(sentences)
    first = abstract_start(sentences)
    # in a chat "Sounds good." acknowledges, in a review "It was great." is the reviewer's verdict
    dialogue = is_dialogue("\n".join(sentences))
    facts = [index for index, sentence in enumerate(sentences[first:], first)
             if index not in headers and not is_page_furniture(sentence) and not is_small_talk(sentence, dialogue)]
    return facts or list(range(len(sentences)))


# a turn that a short one before it ran onto, in a dialogue ("Kamden: Hey! Mckinley: Hi!"): a space, then the name of
# one of its speakers (one who opens a sentence of it) or a capitalised word ("#Person2#" too), and a colon and a
# space (or a full-width colon) before what is said
_NAME_INSIDE = r"#\w+#|\p{Lu}[\w'’.-]*"
_SAID = r"\s*(?::\s|：)\s*\S"


def turns_apart(sentences):
    """A dialogue's sentences with each of its turns apart (`text.is_dialogue`): a short turn runs onto the sentence
    before it when the text is read ("Kamden: Hey! Mckinley: Hi!", "Harry: Yup Poppy: I don't like parties."), and
    asked so, one question held two speakers' turns, small talk among them. A name's last word is no turn of its own
    ("Anna Berg: …"). Any other text's sentences are returned as they are."""
    sentences = list(sentences)
    if not is_dialogue("\n".join(sentences)):
        return sentences
    speakers = sorted(set(turn_speakers("\n".join(sentences))), key=len, reverse=True)
    turn_inside = regex.compile(rf"\s+(?=({'|'.join([*map(regex.escape, speakers), _NAME_INSIDE])}){_SAID})")
    turns = []
    for sentence in sentences:
        cuts = [found for found in turn_inside.finditer(sentence)
                if not any(speaker.endswith(" " + found.group(1)) and
                           sentence[:found.start()].endswith(speaker[:-len(found.group(1))].rstrip())
                           for speaker in speakers)]
        ends = [found.start() for found in cuts] + [len(sentence)]
        starts = [0] + [found.end() for found in cuts]
        turns += [sentence[start:end] for start, end in zip(starts, ends)]
    return turns


def lead_sentences(sentences, count: int = 3):
    """The indices of the first `count` sentences that are no web page's furniture (a pasted article's byline and
    date come before its lead)."""
    return _facts(sentences)[:count]


def asked_facts(sentences, pick=None, count: int = 3):
    """The facts the coverage questions ask about: the sentences that `pick` chooses (`lead_sentences` by default, or
    `central_sentences`; it returns indices in source order) among the source's sentences with a dialogue's turns
    apart (`turns_apart`), each as its question asks it (`key_fact`)."""
    sentences = turns_apart(sentences)
    return [key_fact(sentences[index]) for index in (pick or lead_sentences)(sentences, count)]


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
    """The indices of the `count` most central sentences that are no web page's furniture, in source order; a tie
    goes to the earlier sentence."""
    scores = centrality(sentences)
    ranked = sorted(_facts(sentences), key=lambda index: (-round(scores[index], 12), index))
    return sorted(ranked[:count])
