"""Text handling before anything reaches the judge: sentence units, parsing of generated lists, quoting.

Untrusted text (summaries, answers, chunks) is quoted inside tags; any copy of the closing tag inside the
text is broken up, so the text cannot end its own quotation and speak as the prompt.
"""

import json
import re
import unicodedata

_WORD = re.compile(r"\w+")
# Function words that any two English texts share; they would make every overlap look high.
STOPWORDS = frozenset(
    "a an and are as at be been but by for from had has have he her his in is it its of on or she that the "
    "their they this to was were which will with".split()
)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"'”’)\]]*\s+|\n+")
_MIN_SENTENCE_CHARS = 20
_CONTROL = {"Cc", "Cf", "Cs", "Co", "Cn"}


def clean(text: str) -> str:
    """Unicode-normalised text without control characters (newlines and tabs become spaces where unsafe)."""
    text = unicodedata.normalize("NFC", text)
    return "".join(
        char if char in "\n\t" or unicodedata.category(char) not in _CONTROL else " " for char in text
    ).strip()


def split_sentences(text: str):
    """Sentences of `text`; fragments shorter than 20 characters (abbreviations, headings) join their neighbour."""
    sentences = []
    for piece in _SENTENCE_END.split(text):
        piece = " ".join(piece.split())
        if not piece:
            continue
        if sentences and (len(piece) < _MIN_SENTENCE_CHARS or len(sentences[-1]) < _MIN_SENTENCE_CHARS):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences


def word_tokens(text: str):
    return _WORD.findall(text.lower())


def content_words(text: str) -> set:
    return {token for token in word_tokens(text) if token not in STOPWORDS}


def evidence_for(claim: str, sentences, size: int) -> str:
    """The `size` source sentences sharing the most content words with `claim`, in source order.

    A small judge checks a claim against a few relevant sentences far better than against a whole article
    (measured on the dev set, docs/benchmarks.md), and the prompt stays short whatever the source's length.
    """
    wanted = content_words(claim)
    overlap = [(-len(wanted & content_words(sentence)), position) for position, sentence in enumerate(sentences)]
    chosen = sorted(position for _, position in sorted(overlap)[:size])
    return " ".join(sentences[position] for position in chosen)


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
