"""The served judge: the judge operations over a model server's OpenAI-compatible `/v1/completions` (vLLM).

Prompts are rendered and encoded here with the served model's own tokenizer and chat template, and sent as token
ids, so the server scores exactly the tokens the in-process judge would; only the kernels differ.

* `yes_probability`: one generated token with its log-probabilities. vLLM's `logprob_token_ids` returns those
  of every yes/no variant, which gives the in-process judge's P(yes); a server without it returns only its
  `top_logprobs` most likely tokens, and a side missing from them counts as the least likely one shown.
* `token_logprobs` / `loglikelihood`: the prompt tokens' log-probabilities, from `echo` with `logprobs`
  (OpenAI's completions API) or else vLLM's `prompt_logprobs`.
* `generate`: greedy completions (temperature 0).

One request per prompt, at most `batch_size` in flight, so the server's continuous batching sees many at once;
prompts go out sorted by token ids, so those that share a prefix reach the server's prefix cache together.
Timeouts, refused or dropped connections, 408/429 and 5xx answers are retried with exponential backoff; an
item that still fails comes back as NaN (its message is kept for `take_failures`), never as an exception that
stops a dataset half-way. Results are cached per item as they arrive, under the served model's name and a
fingerprint (by default the served weights' directory or hub id; pin your own with `fingerprint=`).
"""

import concurrent.futures
import logging
import math
import os
import time
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

import httpx

from ..cache import default_cache_dir
from .base import BaseJudge
from .files import directory_fingerprint

logger = logging.getLogger(__name__)

RETRY_STATUS = {408, 429}  # and every 5xx
TOP_LOGPROBS = 20  # vLLM's default --max-logprobs
# the two ways a server returns prompt tokens' log-probabilities, in order of preference
LIKELIHOOD_OPTIONS = {"echo": {"echo": True, "logprobs": 1}, "prompt_logprobs": {"prompt_logprobs": 0}}
NAN = float("nan")


class JudgeServerError(OSError):
    """The judge's server cannot be used: unreachable, no such model, no tokenizer for it, a missing feature."""


class _RequestFailed(Exception):
    """One request failed for good: after its retries, or with an answer that retrying cannot change."""

    def __init__(self, message, refused=False):
        super().__init__(message)
        self.refused = refused  # the server answered, and said no (4xx)


def _error_message(response) -> str:
    """The server's own words for a failed request (vLLM: {"error": {"message": ...}} or {"message": ...})."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:500] or response.reason_phrase
    error = body.get("error", body) if isinstance(body, dict) else body
    return str(error.get("message", error) if isinstance(error, dict) else error)[:500]


def _token_id(token: str, by_text: dict):
    """The id of a token as a server names it: "token_id:123" (vLLM's `return_tokens_as_token_ids`) or its text."""
    if token.startswith("token_id:"):
        return int(token[len("token_id:") :])
    return by_text.get(token)


def _logsumexp(values):
    peak = max(values)
    return peak + math.log(sum(math.exp(value - peak) for value in values))


class ServedJudge(BaseJudge):
    """A judge whose model runs in an OpenAI-compatible server (vLLM). Build it with `load_judge(URL)`."""

    def __init__(
        self,
        client,
        address,
        model,
        tokenizer,
        fingerprint,
        context_window,
        cache_dir=None,
        batch_size=64,
        retries=4,
        backoff=0.5,
        settings_key=None,
        lora_models=(),
    ):
        super().__init__(tokenizer, model, fingerprint, context_window, batch_size, cache_dir, settings_key)
        self.client = client
        self.address = address
        self.retries = retries
        self.backoff = backoff
        # the server's LoRA adapters on this model (vLLM --lora-modules): their /v1/models entries, "root" their directory
        self.lora_models = list(lora_models)
        self._likelihood_mode = None  # "echo" or "prompt_logprobs", found on first use
        self._unreachable = False
        # the yes/no variants by the text a server shows for them, for servers that name tokens by text
        self._ids_by_text = {tokenizer.decode([i]): i for i in self._yes_ids + self._no_ids}

    def __repr__(self):
        return f"ServedJudge({self.name!r}, address={self.address!r})"

    def with_lora(self, lora, fingerprint):
        """This judge with its server's LoRA adapter `lora` (one of `lora_models`) applied: its requests name the
        adapter, its results are cached under `fingerprint`."""
        return ServedJudge(
            self.client, self.address, lora, self.tokenizer, fingerprint, self.context_window, self.cache.path.parent,
            self.batch_size, self.retries, self.backoff, self.settings_key,
        )

    # ------------------------------------------------------------------ requests
    def _post(self, payload):
        """The JSON answer of /completions to `payload` (plus the model), retrying what a retry can fix."""
        # once a request has used up its retries on a dead connection, the rest try once each until one gets
        # through: a dataset against a stopped server fails in seconds, not retries × backoff × rows
        attempts = 1 if self._unreachable else self.retries + 1
        for attempt in range(attempts):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                response = self.client.post("completions", json={"model": self.name, **payload})
            except httpx.TransportError as error:  # timeouts, refused and dropped connections
                failure, lost = f"{type(error).__name__}: {error or 'no detail'}", True
                continue
            if response.status_code < 400:
                self._unreachable = False
                return response.json()
            failure, lost = f"HTTP {response.status_code}: {_error_message(response)}", False
            if response.status_code < 500 and response.status_code not in RETRY_STATUS:
                raise _RequestFailed(f"the judge server at {self.address} refused the request ({failure})", True)
        self._unreachable = lost
        raise _RequestFailed(f"the judge server at {self.address} failed ({failure})")

    def _dispatch(self, indices, payload_of, parse, batch_size):
        """Yield {index: parse(index, answer)} as answers arrive, with at most `batch_size` requests in flight.

        A failed item is left out (the cache wrapper returns it as NaN) and its message recorded.
        """
        self._unreachable = False  # every operation starts with full retries
        queue, limit = iter(indices), batch_size or self.batch_size
        with concurrent.futures.ThreadPoolExecutor(limit) as pool:
            pending = {}

            def fill():
                for index in queue:
                    pending[pool.submit(self._post, payload_of(index))] = index
                    if len(pending) >= limit:
                        return

            fill()
            while pending:
                done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                answered = {}
                for future in done:
                    index = pending.pop(future)
                    try:
                        answered[index] = parse(index, future.result())
                    except _RequestFailed as error:
                        self._record_failure(str(error))
                    except (KeyError, IndexError, TypeError, ValueError) as error:
                        self._record_failure(f"unexpected answer from the judge server at {self.address} ({error!r})")
                fill()
                yield answered

    @staticmethod
    def _ordered(sequences):
        """Indices by their token ids: prompts sharing a prefix go out together, for the server's prefix cache."""
        return sorted(sequences, key=sequences.get)

    # ------------------------------------------------------------------ operations
    def yes_probability(self, prompts, batch_size=None, cache=True, progress=None):
        """P(yes) for each rendered prompt: softmax mass of the yes variants against the no variants."""
        variants = self._yes_ids + self._no_ids

        def parse(index, answer):
            top = answer["choices"][0].get("logprobs") or {}
            top = (top.get("top_logprobs") or [None])[0]
            if not top:
                raise JudgeServerError(
                    f"The judge server at {self.address} returned no log-probabilities for a generated token "
                    "(`logprobs`): the yes/no verdicts need them. Serve the judge with vLLM."
                )
            logprobs = {_token_id(token, self._ids_by_text): value for token, value in top.items()}
            floor = min(logprobs.values())  # a token not shown is at most as likely as the least likely shown
            yes = [logprobs[i] for i in self._yes_ids if i in logprobs] or [floor]
            no = [logprobs[i] for i in self._no_ids if i in logprobs] or [floor]
            # servers report impossible tokens as a huge negative number (JSON has no -inf): clamp before exp
            return 1 / (1 + math.exp(min(_logsumexp(no) - _logsumexp(yes), 700)))

        def compute(indices):
            sequences = {index: self._encode(prompts[index]) for index in indices}
            self._check_length(sequences.values())
            payload = {
                "max_tokens": 1,
                "temperature": 0,
                "logprobs": TOP_LOGPROBS,
                "logprob_token_ids": variants,
                "return_tokens_as_token_ids": True,
            }
            return self._dispatch(
                self._ordered(sequences), lambda index: {**payload, "prompt": sequences[index]}, parse, batch_size
            )

        return self._cached("yes_probability/v1", prompts, compute, cache, progress, "judge verdicts", failed=NAN)

    def token_logprobs(self, contexts, continuations, batch_size=None, cache=True, progress=None):
        """log P(token | context, earlier tokens) for each token of each continuation, as one list per pair.

        The server scores context + continuation as one prompt, encoded as the in-process judge encodes it.
        """

        def compute(indices):
            sequences, spans = {}, {}
            for index in indices:
                context, target = self._pair_ids(contexts[index], continuations[index], index)
                sequences[index], spans[index] = context + target, (len(context), len(context) + len(target))
            self._check_length(sequences.values())
            mode = self._likelihood_support()

            def parse(index, answer):
                values = self._prompt_logprobs(answer, mode, sequences[index])
                if values is None:
                    raise ValueError("no log-probabilities for the prompt's tokens")
                start, end = spans[index]
                return values[start:end]

            payload = {"max_tokens": 1, "temperature": 0, "return_tokens_as_token_ids": True, **LIKELIHOOD_OPTIONS[mode]}
            return self._dispatch(
                self._ordered(sequences), lambda index: {**payload, "prompt": sequences[index]}, parse, batch_size
            )

        texts = self._pair_texts(contexts, continuations)
        return self._cached("token_logprobs/v1", texts, compute, cache, progress, "judge likelihoods", failed=[NAN])

    @staticmethod
    def _prompt_logprobs(answer, mode, prompt):
        """Log P of each prompt token after the ones before it (None for the first), or None if not returned."""
        choice = answer["choices"][0]
        if mode == "echo":
            values = ((choice.get("logprobs") or {}).get("token_logprobs") or [])[: len(prompt)]
        else:  # vLLM: per position, {token id: {"logprob": ...}} for the prompt's token and the top ones
            values = [
                (entry or {}).get(str(token), {}).get("logprob")
                for entry, token in zip(choice.get("prompt_logprobs") or [], prompt)
            ]
        return values if len(values) == len(prompt) and None not in values[1:] else None

    def _likelihood_support(self):
        """How this server returns prompt log-probabilities ("echo" or "prompt_logprobs"), asked once."""
        if self._likelihood_mode:
            return self._likelihood_mode
        start, _ = self._pair_ids("", "Yes", 0)
        probe = start + self._yes_ids[:1]
        for mode, options in LIKELIHOOD_OPTIONS.items():
            try:
                answer = self._post({"prompt": probe, "max_tokens": 1, "temperature": 0, **options})
            except _RequestFailed as error:
                if not error.refused:
                    return "echo"  # no answer at all: the items will fail, and say why; ask again next time
                continue
            if self._prompt_logprobs(answer, mode, probe):
                self._likelihood_mode = mode
                return mode
        raise JudgeServerError(
            f"The judge server at {self.address} returns no log-probabilities of prompt tokens (neither `echo` "
            "with `logprobs` nor vLLM's `prompt_logprobs`): the likelihood verdicts need them. The yes/no "
            "verdicts (`yes_probability`) and `generate` still work: serve the judge with vLLM, or under a name "
            "without likelihood settings in localjudge.prompts.JUDGE_SETTINGS, whose verdicts are all yes/no."
        )

    def generate(self, prompts, max_new_tokens=256, batch_size=None, cache=True, progress=None):
        """Greedy completions of rendered prompts (special tokens removed); "" for a prompt the server failed."""

        def compute(indices):
            sequences = {index: self._encode(prompts[index]) for index in indices}
            payload = {"max_tokens": max_new_tokens, "temperature": 0, "skip_special_tokens": True}
            return self._dispatch(
                self._ordered(sequences),
                lambda index: {**payload, "prompt": sequences[index]},
                lambda index, answer: answer["choices"][0]["text"],
                batch_size,
            )

        return self._cached(
            f"generate/v1/{max_new_tokens}", prompts, compute, cache, progress, "judge generations", failed=""
        )


# ---------------------------------------------------------------------------------------------- loading
def _served_models(client, address):
    try:
        response = client.get("models")
        response.raise_for_status()
    except httpx.HTTPError as error:
        raise JudgeServerError(f"No judge server answers at {address} ({type(error).__name__}: {error}).") from error
    return response.json()["data"]


def _choose_model(models, wanted, address):
    """The served model named `wanted`, or the only one when None. A LoRA adapter the server applies to a model (a
    `parent` in its entry) is not a judge of its own: its base model's settings would not fit it."""
    bases = [model for model in models if not model.get("parent")]
    if wanted is None and len(bases) == 1:
        return bases[0]
    for model in models:
        if model["id"] != wanted:
            continue
        if model.get("parent"):
            raise JudgeServerError(
                f"{wanted!r} at {address} is a LoRA adapter on the model {model['parent']!r}: name that model; a "
                "tuned verdict asks for the adapter where the server applies it (localjudge.prompts.TUNED_ALIGNMENT)."
            )
        return model
    names = [model["id"] for model in bases]
    problem = f"serves no model named {wanted!r}" if wanted else "serves several models"
    raise JudgeServerError(
        f"The judge server at {address} {problem}: {', '.join(names) or 'none'}. Name one after the address, "
        f"e.g. {address}#{names[0] if names else 'MODEL'}, or pass model=."
    )


def _tokenizer_sources(model, tokenizer, embedded, embedded_directory):
    """Where the served model's tokenizer may be, in order: as given, the served directory when it is on this
    machine, the embedded judge whose weights are served, the hub id (HF cache, or the hub when online)."""
    if tokenizer:
        return [str(tokenizer)]
    root = model.get("root") or model["id"]
    sources = [root] if Path(root).is_dir() else []
    if embedded and embedded_directory:
        sources.append(lambda: embedded_directory(embedded))
    if not root.startswith((".", "/", "~")):
        sources.append(root)
    return sources


def _load_tokenizer(model, tokenizer, address, embedded, embedded_directory):
    from transformers import AutoTokenizer

    tried = []
    for source in _tokenizer_sources(model, tokenizer, embedded, embedded_directory):
        try:
            source = source() if callable(source) else source
            return AutoTokenizer.from_pretrained(source, trust_remote_code=False), source
        except (OSError, ValueError) as error:  # not there, not a tokenizer, or its embedded judge not installed
            tried.append(f"{source}: {error}")
    raise JudgeServerError(
        f"No tokenizer for the model {model['id']!r} served at {address} (served from {model.get('root')!r}). "
        "The judge builds prompts with the model's own tokenizer and chat template, so it needs them on this "
        "machine: pass tokenizer= a local copy of the served model's tokenizer files (tokenizer.json, "
        "tokenizer_config.json), e.g. `huggingface-cli download HUB_ID --include 'tokenizer*' '*.json' "
        "--local-dir DIR`. Tried: " + "; ".join(tried or ["nothing to try"])
    )


def load_served_judge(address, model=None, tokenizer=None, fingerprint=None, api_key=None, cache_dir=None,
                      batch_size=64, timeout=300.0, retries=4, embedded_name=None, embedded_directory=None):
    """A `ServedJudge` for the OpenAI-compatible server at `address` (e.g. "http://127.0.0.1:8000/v1").

    Args:
        address: the server's base URL, as for the openai client; "http://host:port" means ".../v1". A model
            name may follow after "#" ("http://host:8000/v1#my-judge"): the one value then works as `judge=`
            everywhere, the CLI included.
        model: the served model's name (`--served-model-name`); needed only when the server has several.
        tokenizer: a local directory or hub id of the served model's tokenizer; by default the served directory
            when it is on this machine, the embedded judge whose weights are served, or the hub id (HF cache).
        fingerprint: what identifies the served weights in the result cache, beside the model's name; by
            default the served directory's file listing or the hub id. Pin it (e.g. "llama-70b-2026-01") to keep
            the cache when the server moves, or change it when the weights change under the same name.
        api_key: the server's `--api-key`; by default `LOCALJUDGE_API_KEY`.
        batch_size: requests in flight at once (the server batches them); a call's `batch_size=` overrides it.
        timeout: seconds to wait for one answer (a busy server queues requests).
        retries: extra attempts for timeouts, refused or dropped connections, 408, 429 and 5xx answers.
        embedded_name: a callable from the served model's `/v1/models` entry to the embedded judge whose weights
            it serves, or None (the registry passes `registry.served_embedded_judge`); such a judge's verdict
            settings (`settings_key`) and tokenizer are the embedded judge's, whatever name it is served under.
        embedded_directory: a callable from an embedded judge's name to its directory on this machine.
    """
    address, fragment = urldefrag(address)
    model = model or fragment or None
    address = address.rstrip("/")
    if urlsplit(address).path in ("", "/"):
        address += "/v1"
    api_key = api_key or os.environ.get("LOCALJUDGE_API_KEY")
    client = httpx.Client(
        base_url=address + "/",
        timeout=httpx.Timeout(timeout, connect=10.0),
        headers={"Authorization": f"Bearer {api_key}"} if api_key else {},
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=None),
    )
    models = _served_models(client, address)
    served = _choose_model(models, model, address)
    cache_dir = Path(cache_dir or default_cache_dir())
    embedded = embedded_name(served) if embedded_name else None
    tokenizer, tokenizer_source = _load_tokenizer(served, tokenizer, address, embedded, embedded_directory)
    if fingerprint is None:
        root = served.get("root") or served["id"]
        fingerprint = f"dir:{directory_fingerprint(Path(root))}" if Path(root).is_dir() else root
    context_window = served.get("max_model_len") or tokenizer.model_max_length
    logger.info("Judge %r served at %s, tokenizer from %s", served["id"], address, tokenizer_source)
    return ServedJudge(
        client,
        address,
        served["id"],
        tokenizer,
        f"served:{served['id']}:{fingerprint}",
        context_window,
        cache_dir,
        batch_size,
        retries,
        settings_key=embedded,
        lora_models=[entry for entry in models if entry.get("parent") == served["id"]],
    )
