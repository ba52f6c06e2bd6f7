"""The in-process judge: batched, cached operations on a causal language model run by transformers here.

* `yes_probability`: P(yes) from the next-token logits over the tokenizer's yes/no variants; one forward
  pass per batch, no generation.
* `token_logprobs` / `loglikelihood`: log P(continuation | context), per token or summed: likelihood verdicts.
* `generate`: greedy, deterministic, batched with left padding over length-sorted batches.

Scoring passes sort their prompts by token ids, so prompts that share a prefix (the same source document
and instructions) sit next to each other; each batch runs its shared prefix once and reuses the prefix's
KV cache for every suffix. Results go to the persistent `ResultCache` batch by batch. The tokenizer-side
operations and the cache come from `base.BaseJudge`; `served.ServedJudge` is the same interface over a model
server. `load_local_judge` builds one from a directory or hub id that the registry has resolved and verified.
"""

import copy
import inspect
import logging

import torch

from .base import BaseJudge

logger = logging.getLogger(__name__)

# a prefix shorter than this is cheaper to recompute than to cache and copy
MIN_SHARED_PREFIX = 16


def _cache_keyword(model) -> str:
    """The forward keyword that takes a KV cache: `cache` since transformers 5.24, `past_key_values` before
    (the old name still works there, with a deprecation warning on every call site)."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _common_prefix_length(first, second) -> int:
    length = min(len(first), len(second))
    for position in range(length):
        if first[position] != second[position]:
            return position
    return length


def yes_no_margins(states, output_embeddings, yes_ids, no_ids):
    """log P(yes) − log P(no) over the yes/no variants for final-layer `states` (items × hidden): the output head's
    yes/no rows applied in fp32, since in bf16 a logit near 15 rounds to steps of 0.06, and the margin with it.
    The judge's yes/no verdicts and the tuned judge's training (`learned.tuning.answer_margins`) read this margin."""
    logits = states.float() @ output_embeddings.weight[list(yes_ids) + list(no_ids)].float().T
    return torch.logsumexp(logits[:, : len(yes_ids)], 1) - torch.logsumexp(logits[:, len(yes_ids) :], 1)


def load_pretrained(source, dtype, **kwargs):
    """(model, tokenizer) from a directory, hub id or GGUF file (`gguf_file=`) by transformers; no remote code."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(source, trust_remote_code=False, **kwargs)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype, trust_remote_code=False, **kwargs)
    return model, tokenizer


def load_local_judge(source, fingerprint, name, device, dtype, cache_dir=None, settings_key=None):
    """A `Judge` on the model at `source` (a directory or hub id) in `dtype` on `device`; `fingerprint` identifies
    its weights in the result cache (the hub commit and the dtype are added). Only safetensors weights are read."""
    model, tokenizer = load_pretrained(source, dtype, use_safetensors=True)  # never pickled (.bin) weights
    model.to(device).eval()
    commit = getattr(model.config, "_commit_hash", None)
    fingerprint = f"{fingerprint}@{commit}:{dtype}" if commit else f"{fingerprint}:{dtype}"
    return Judge(model, tokenizer, name=name, fingerprint=fingerprint, cache_dir=cache_dir, settings_key=settings_key)


class Judge(BaseJudge):
    """A loaded model + tokenizer with batched, cached judge operations. Build it with `load_judge`."""

    def __init__(
        self,
        model,
        tokenizer,
        name,
        fingerprint,
        cache_dir=None,
        batch_size=None,
        max_batch_tokens=None,
        settings_key=None,
    ):
        self.model = model
        self.device = next(model.parameters()).device
        on_gpu = self.device.type == "cuda"
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        super().__init__(
            tokenizer,
            name,
            fingerprint,
            context_window=getattr(model.config, "max_position_embeddings", None) or 2048,
            batch_size=batch_size or (64 if on_gpu else 16),
            cache_dir=cache_dir,
            settings_key=settings_key,
        )
        self.max_batch_tokens = max_batch_tokens or (65536 if on_gpu else 4096)
        self._prefix_memo = None
        self._cache_keyword = _cache_keyword(model.base_model)  # read once: the signature does not change

    def __repr__(self):
        return f"Judge({self.name!r}, device={self.device}, dtype={self.model.dtype})"

    # ------------------------------------------------------------------ scoring passes
    @staticmethod
    def _shared_prefix(sequences, tails, batch):
        """Tokens all of the batch shares, short of every item's scored tail (0 when too short to pay off)."""
        common = len(sequences[batch[0]])
        for index in batch[1:]:
            common = min(common, _common_prefix_length(sequences[batch[0]], sequences[index]))
        prefix = min([common] + [len(sequences[index]) - tails[index] for index in batch])
        return prefix if prefix >= MIN_SHARED_PREFIX else 0

    def _batch_shape(self, sequences, tails, batch):
        prefix = self._shared_prefix(sequences, tails, batch)
        return prefix, max(len(sequences[index]) for index in batch) - prefix

    def _plan_batches(self, sequences, tails, indices, batch_size):
        """Group indices (sorted by tokens) into batches; a batch grows while sharing keeps the token work down."""
        batch = []
        for index in sorted(indices, key=lambda index: sequences[index]):
            members = batch + [index]
            if batch:
                prefix, width = self._batch_shape(sequences, tails, members)
                old_prefix, old_width = self._batch_shape(sequences, tails, batch)
                separate_cost = old_prefix + old_width * len(batch) + len(sequences[index])
                if (
                    len(batch) >= batch_size
                    or width * len(members) > self.max_batch_tokens
                    or prefix + width * len(members) > 1.25 * separate_cost
                ):
                    yield batch
                    members = [index]
            batch = members
        if batch:
            yield batch

    def _prefix_cache(self, prefix_ids):
        key = tuple(prefix_ids)
        if self._prefix_memo is None or self._prefix_memo[0] != key:
            output = self.model.base_model(input_ids=torch.tensor([prefix_ids], device=self.device), use_cache=True)
            self._prefix_memo = (key, output[self._cache_keyword])
        return copy.deepcopy(self._prefix_memo[1])

    def _run_batch(self, sequences, tails, batch, reduce):
        """Forward one batch (shared prefix once, right-padded suffixes) and reduce each item's tail: the final-layer
        states of its last `tails[index]` tokens (the reduction applies the output head it needs)."""
        prefix = self._shared_prefix(sequences, tails, batch)
        past = None
        if prefix:
            past = self._prefix_cache(sequences[batch[0]][:prefix])
            past.batch_repeat_interleave(len(batch))
        suffixes = [sequences[index][prefix:] for index in batch]
        width = max(len(suffix) for suffix in suffixes)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([suffix + [pad] * (width - len(suffix)) for suffix in suffixes], device=self.device)
        mask = torch.tensor(
            [[1] * (prefix + len(suffix)) + [0] * (width - len(suffix)) for suffix in suffixes], device=self.device
        )
        output = self.model.base_model(
            input_ids=input_ids,
            attention_mask=mask,
            use_cache=past is not None,
            **{self._cache_keyword: past},
        )
        results = {}
        for row, (index, suffix) in enumerate(zip(batch, suffixes)):
            end = len(suffix)
            results[index] = reduce(index, output.last_hidden_state[row, end - tails[index] : end])
        return results

    def _scored(self, sequences, tails, indices, reduce, batch_size):
        """Yield {index: reduced value} per batch; a CUDA out-of-memory halves the batch and retries it."""
        batch_size = batch_size or self.batch_size
        for batch in self._plan_batches(sequences, tails, indices, batch_size):
            yield from self._run_with_retry(sequences, tails, batch, reduce)

    def _run_with_retry(self, sequences, tails, batch, reduce):
        try:
            with torch.inference_mode():
                yield self._run_batch(sequences, tails, batch, reduce)
        except torch.OutOfMemoryError:
            if len(batch) == 1:
                raise
            logger.warning("Out of memory on a batch of %d; retrying in halves", len(batch))
            self._prefix_memo = None
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            half = len(batch) // 2
            yield from self._run_with_retry(sequences, tails, batch[:half], reduce)
            yield from self._run_with_retry(sequences, tails, batch[half:], reduce)

    def yes_probability(self, prompts, batch_size=None, cache=True, progress=None):
        """P(yes) for each rendered prompt: softmax mass of the yes variants against the no variants
        (`yes_no_margins`, in fp32 whatever the model's dtype). v4 of the cached values: a tuned judge's LoRA update
        added into each output in one product (`tuning.AnsweringLoraLinear`); v3 added it in three steps, each rounded
        in bf16; v2 ran the LoRA layers in fp32 on a bf16 model, v1 read bf16 logits."""
        head = self.model.get_output_embeddings()

        def compute(indices):
            sequences = {index: self._encode(prompts[index]) for index in indices}
            self._check_length(sequences.values())
            tails = {index: 1 for index in indices}

            def reduce(index, states):
                return float(torch.sigmoid(yes_no_margins(states, head, self._yes_ids, self._no_ids)[0]))

            return self._scored(sequences, tails, indices, reduce, batch_size)

        return self._cached("yes_probability/v4", prompts, compute, cache, progress, "judge verdicts")

    def token_logprobs(self, contexts, continuations, batch_size=None, cache=True, progress=None):
        """log P(token | context, earlier tokens) for each token of each continuation, as one list per pair.

        Context and continuation are encoded separately and concatenated (`BaseJudge._pair_ids`).
        """
        head = self.model.get_output_embeddings()

        def compute(indices):
            sequences, targets, tails = {}, {}, {}
            for index in indices:
                context, target = self._pair_ids(contexts[index], continuations[index], index)
                sequences[index], targets[index], tails[index] = context + target, target, len(target) + 1
            self._check_length(sequences.values())

            def reduce(index, states):
                logits = head(states[:-1]).float()
                target = torch.tensor(targets[index], device=logits.device)
                log_probs = torch.log_softmax(logits, -1).gather(1, target[:, None])[:, 0]
                return log_probs.tolist()

            return self._scored(sequences, tails, indices, reduce, batch_size)

        texts = self._pair_texts(contexts, continuations)
        return self._cached("token_logprobs/v1", texts, compute, cache, progress, "judge likelihoods")

    # ------------------------------------------------------------------ generation
    def generate(self, prompts, max_new_tokens=256, batch_size=None, cache=True, progress=None):
        """Greedy completions of rendered prompts (special tokens removed), batched with left padding."""
        batch_size = batch_size or self.batch_size

        def compute(indices):
            ordered = sorted(indices, key=lambda index: len(prompts[index]))
            for start in range(0, len(ordered), batch_size):
                batch = ordered[start : start + batch_size]
                yield self._generate_batch(prompts, batch, max_new_tokens)

        return self._cached(f"generate/v1/{max_new_tokens}", prompts, compute, cache, progress, "judge generations")

    def _generate_batch(self, prompts, batch, max_new_tokens):
        self.tokenizer.padding_side = "left"
        encoded = self.tokenizer(
            [prompts[index] for index in batch], return_tensors="pt", padding=True, add_special_tokens=False
        ).to(self.device)
        try:
            with torch.inference_mode():
                output = self.model.generate(
                    **encoded,
                    max_new_tokens=max_new_tokens,
                    do_sample=False,
                    temperature=None,
                    top_p=None,
                    top_k=None,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
        except torch.OutOfMemoryError:
            if len(batch) == 1:
                raise
            torch.cuda.empty_cache()
            half = len(batch) // 2
            return {
                **self._generate_batch(prompts, batch[:half], max_new_tokens),
                **self._generate_batch(prompts, batch[half:], max_new_tokens),
            }
        new_tokens = output[:, encoded["input_ids"].shape[1] :]
        texts = self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
        return {index: text for index, text in zip(batch, texts)}
