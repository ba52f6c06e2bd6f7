"""What every judge backend shares: the tokenizer-side text operations, the yes/no vocabulary, the result cache.

The backends build on `BaseJudge`, one file each: `local.Judge` runs the model in this process (transformers),
`served.ServedJudge` asks a model server (vLLM's OpenAI-compatible API). Both encode prompts here, with the
model's own tokenizer and chat template, so they score the same token ids; only the forward pass differs.

The interface the pipelines use: `name`, `settings_key`, `fingerprint`, `context_window`, `batch_size`,
`render`, `sanitize`, `truncate`, `count_tokens`, `yes_probability`, `token_logprobs`, `loglikelihood`,
`generate`, and `take_failures` (items a backend could not answer come back as NaN; this says why). A backend
implements `yes_probability`, `token_logprobs` and `generate`, each through `_cached` (the result cache).
"""

import abc
import logging

from tqdm.auto import tqdm

from ..cache import ResultCache, cache_key, default_cache_dir
from ..prompts import JUDGE_SETTINGS

logger = logging.getLogger(__name__)

YES_WORDS = ("yes", "Yes", "YES", " yes", " Yes", " YES")
NO_WORDS = ("no", "No", "NO", " no", " No", " NO")


def _single_token_ids(tokenizer, words):
    ids = set()
    for word in words:
        encoded = tokenizer.encode(word, add_special_tokens=False)
        if len(encoded) == 1:
            ids.add(encoded[0])
    return sorted(ids)


def take_failures(judge) -> str:
    """Why `judge` left items unanswered since it was last asked ('' when it did not, or cannot say)."""
    take = getattr(judge, "take_failures", None)  # test doubles and user judges may not have it
    return "; ".join(take()) if take else ""


def runs_in_process(judge) -> bool:
    """Whether `judge` runs its model in this process (`local.Judge`): a model an adapter's layers can be put into.
    A served judge has none (its server applies an adapter, `learned.tuning.served_lora`), nor has a test double."""
    return getattr(judge, "model", None) is not None


class BaseJudge(abc.ABC):
    """Tokenizer, name, fingerprint and result cache of a judge; the backends add the model operations.

    `settings_key` is the name under which the judge's verdict settings are found in `prompts.JUDGE_SETTINGS`:
    the embedded judge whose weights it runs (whatever it was loaded or served as), else its own name.
    """

    def __init__(self, tokenizer, name, fingerprint, context_window, batch_size, cache_dir=None, settings_key=None):
        self.tokenizer = tokenizer
        self.name = name
        self.settings_key = settings_key or name
        if self.settings_key not in JUDGE_SETTINGS:
            logger.warning(
                "Judge %r has no verdict settings in localjudge.prompts.JUDGE_SETTINGS: it runs on uncalibrated "
                "default yes/no settings.",
                self.settings_key,
            )
        self.fingerprint = fingerprint
        self.context_window = context_window
        self.batch_size = batch_size
        self.cache = ResultCache((cache_dir or default_cache_dir()) / "results.sqlite")
        self._yes_ids = _single_token_ids(tokenizer, YES_WORDS)
        self._no_ids = _single_token_ids(tokenizer, NO_WORDS)
        if not self._yes_ids or not self._no_ids:
            raise ValueError(f"Judge '{name}': no single-token yes/no words in its vocabulary; use `loglikelihood`.")
        self._special_strings = sorted(
            {added.content for added in tokenizer.added_tokens_decoder.values() if added.special}
            | set(tokenizer.all_special_tokens),
            key=len,
            reverse=True,
        )
        self._failures = {}

    # ------------------------------------------------------------------ text
    def sanitize(self, text: str) -> str:
        """Remove the tokenizer's special-token strings (e.g. `<|im_start|>`) so untrusted text cannot fake turns."""
        previous = None
        while text != previous:  # removing one token can join its neighbours into another: "<|im_<|im_end|>start|>"
            previous = text
            for special in self._special_strings:
                text = text.replace(special, "")
        return text

    def render(self, user: str, system: str = None) -> str:
        """The chat-templated prompt (generation prompt appended) for one user message."""
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]
        if self.tokenizer.chat_template is None:
            return "\n\n".join(message["content"] for message in messages) + "\n\nAnswer:"
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def truncate(self, text: str, max_tokens: int):
        """`text` cut to at most `max_tokens` tokens, and the number of characters dropped."""
        encoding = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        if len(encoding["input_ids"]) <= max_tokens:
            return text, 0
        end = encoding["offset_mapping"][max_tokens - 1][1]
        return text[:end], len(text) - end

    def _encode(self, text: str):
        # rendered prompts already hold the template's special tokens; add none beyond them
        return self.tokenizer.encode(text, add_special_tokens=False)

    def _pair_ids(self, context: str, continuation: str, index: int):
        """(context ids, continuation ids), encoded separately so the continuation's tokens do not depend on the
        context; an empty context becomes the tokenizer's BOS (or EOS) token."""
        start = self.tokenizer.bos_token_id if self.tokenizer.bos_token_id is not None else self.tokenizer.eos_token_id
        target = self._encode(continuation)
        if not target:
            raise ValueError(f"Empty continuation at position {index}: nothing to score.")
        return (self._encode(context) if context else [start]), target

    @staticmethod
    def _pair_texts(contexts, continuations):
        """The cache texts of (context, continuation) pairs: the context's length keeps the split unambiguous."""
        return [f"{len(context)}:{context}{continuation}" for context, continuation in zip(contexts, continuations)]

    def _check_length(self, sequences):
        for sequence in sequences:
            if len(sequence) > self.context_window:
                raise ValueError(
                    f"A prompt of {len(sequence)} tokens exceeds judge '{self.name}' context window "
                    f"({self.context_window}); truncate or chunk the text first."
                )

    # ------------------------------------------------------------------ caching
    def _cached(self, operation, texts, compute, cache, progress, description, failed=None):
        """Results for `texts`, computing only those not in the cache; `compute(indices)` yields {index: value} per
        batch. An index it never yields (a backend's failed item) comes back as `failed` and is not cached."""
        keys = [cache_key(self.fingerprint, operation, text) for text in texts]
        found = self.cache.get_many(keys) if cache else {}
        first_of_key = {}
        for index, key in enumerate(keys):
            if key not in found:
                first_of_key.setdefault(key, index)
        missing = list(first_of_key.values())
        if missing:
            with tqdm(total=len(missing), desc=description, disable=None if progress is None else not progress) as bar:
                for batch in compute(missing):
                    if cache:
                        self.cache.put_many({keys[index]: value for index, value in batch.items()})
                    for index, value in batch.items():
                        found[keys[index]] = value
                    bar.update(len(batch))
        return [found.get(key, failed) for key in keys]

    # ------------------------------------------------------------------ operations (a backend implements these three)
    @abc.abstractmethod
    def yes_probability(self, prompts, batch_size=None, cache=True, progress=None):
        """P(yes) for each rendered prompt: softmax mass of the yes variants against the no variants."""

    @abc.abstractmethod
    def token_logprobs(self, contexts, continuations, batch_size=None, cache=True, progress=None):
        """log P(token | context, earlier tokens) for each token of each continuation, as one list per pair."""

    @abc.abstractmethod
    def generate(self, prompts, max_new_tokens=256, batch_size=None, cache=True, progress=None):
        """Greedy completions of rendered prompts, special tokens removed."""

    def loglikelihood(self, contexts, continuations, batch_size=None, cache=True, progress=None):
        """(sum of log P(continuation tokens | context), number of continuation tokens) for each pair."""
        per_token = self.token_logprobs(contexts, continuations, batch_size, cache, progress)
        return [[sum(values), len(values)] for values in per_token]

    def _record_failure(self, message: str):
        self._failures[message] = None  # an ordered set: a dead server fails every item with one message

    def take_failures(self):
        """Why items were left unanswered since the last call (distinct messages, oldest first); then forgets."""
        failures, self._failures = list(self._failures), {}
        return failures
