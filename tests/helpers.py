"""Test helpers: a scripted judge with known verdicts, for exact tests of the metric maths."""

import re

_ITEM = re.compile(r"<(context|claim|question)>\n(.*?)\n</\1>", re.DOTALL)


class ScriptedJudge:
    """Stands in for `localjudge.Judge`: answers from tables instead of a model.

    `verdicts` maps the judged item (the claim, question or chunk text quoted in a verdict prompt) to its
    P(yes); `generations` maps a substring of a generation prompt to the text generated for it.
    Unknown items get `default`. Every call is recorded in `calls`.
    """

    name = "scripted"
    fingerprint = "scripted"
    context_window = 1_000_000

    def __init__(self, verdicts=None, generations=None, default=0.0):
        self.verdicts = dict(verdicts or {})
        self.generations = dict(generations or {})
        self.default = default
        self.calls = []

    def sanitize(self, text):
        return text

    def render(self, user, system=None):
        return user

    def truncate(self, text, max_tokens):
        return text, 0

    def count_tokens(self, text):
        return len(text.split())

    def item_of(self, prompt):
        items = {tag: text for tag, text in _ITEM.findall(prompt)}
        for tag in ("context", "claim", "question"):
            if tag in items:
                return items[tag]
        raise AssertionError(f"no judged item in prompt: {prompt!r}")

    def yes_probability(self, prompts, batch_size=None, cache=True, progress=None):
        self.calls.append(("yes_probability", list(prompts)))
        return [self.verdicts.get(self.item_of(prompt), self.default) for prompt in prompts]

    def generate(self, prompts, max_new_tokens=256, batch_size=None, cache=True, progress=None):
        self.calls.append(("generate", list(prompts)))
        outputs = []
        for prompt in prompts:
            matches = [text for key, text in self.generations.items() if key in prompt]
            outputs.append(matches[0] if matches else "")
        return outputs
