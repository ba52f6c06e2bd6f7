"""The verification prompt of the tuned judge: the text it answers yes or no to.

The prompt (`prompts.VERIFICATION_PROMPTS`) puts the document first and the statement last, so the claims of one
source share the document's tokens and the judge runs them once per batch. Untrusted text is sanitized and
quoted in tags, as in every yes/no prompt. The judge without an adapter answers it too (`Judge.yes_probability`:
the verdict board's `vp160`).
"""

from ..prompts import VERIFICATION_FIELDS, VERIFICATION_PROMPTS
from ..text import quote


def statement(claim: str, question: str = None) -> str:
    """The text the verification prompt judges: the claim, or a question and its answer together."""
    return f"Question: {question}\nAnswer: {claim}" if question else claim


def verification_fields(task: str, item: dict) -> dict:
    """The verification prompt's fields of one of `task`'s items: which item fields are its document and its
    statement (`prompts.VERIFICATION_FIELDS`: a claim against a window of the source, a fact against the summary)."""
    document, claim = VERIFICATION_FIELDS[task]
    return {"document": item[document], "statement": statement(item[claim])}


def verification_prompt(judge, task: str, fields: dict) -> str:
    """The rendered verification prompt of `task` for one item ({"document": ..., "statement": ...})."""
    quoted = {name: quote(judge.sanitize(value), name) for name, value in fields.items()}
    return judge.render(VERIFICATION_PROMPTS[task].format(**quoted))
