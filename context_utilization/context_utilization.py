"""Context utilization: Ragas context utilization (context precision without reference) on a local LLM judge."""

import datasets
import evaluate
# evaluate names what follows "From:" in its missing-dependency message; the PyPI project named localjudge
# is an unrelated one
import localjudge  # From: localjudge-metrics==0.2.0

_CITATION = """\
@misc{ragas2024contextutilization,
  title = {Ragas: Context Precision / Context Utilization},
  author = {Exploding Gradients},
  year = {2024},
  howpublished = {\\url{https://docs.ragas.io/en/stable/concepts/metrics/available_metrics/context_precision/}}
}
"""

_DESCRIPTION = """\
How well a retriever ranked the chunks that were useful for the answer, judged by a local instruction-tuned
language model (no API key, no network). For each chunk the judge gives the probability that the chunk was
useful in arriving at the given answer to the question (all chunks of all rows in one batched pass). With
verdicts v_k = probability >= 0.5, the score is the average precision over ranks
sum_k(precision@k * v_k) / sum_k(v_k); 0.0 when no chunk is useful; a perfect ranking scores exactly 1.0.
"""

_KWARGS_DESCRIPTION = """
Args:
    question (`list` of `str`): the user questions.
    answer (`list` of `str`): the answers that were generated from the contexts.
    contexts (`list` of `list` of `str`): per row, the retrieved chunks in retrieval rank order.
    judge (`str` or `localjudge.Judge`): embedded judge name ("qwen2.5-coder-0.5b", "smollm2-135m"),
        a local directory or .gguf file, a hub id, or a judge from `localjudge.load_judge`. Defaults to
        "qwen2.5-coder-0.5b".
    soft (`bool`): use the probabilities themselves instead of 0/1 verdicts (a graded score). Defaults to False.
    settings (`str` or `dict`): verdict settings fitted to your own labels by `localjudge.calibrate` (the path of
        its JSON file, or its {task: Verdict} table) instead of the judge's shipped ones. Defaults to None.
    ragas_compat (`bool`): add Ragas' 1e-10 to the denominator (a perfect ranking gives 0.9999999999).
        Defaults to False.
    return_details (`bool`): add per-row verdicts, errors and warnings. Defaults to False.
    batch_size (`int`): prompts per forward pass. Defaults to the judge's (16 on CPU, 64 on GPU).
    cache (`bool`): reuse and store verdicts in the persistent result cache. Defaults to True.
    progress (`bool`): show a progress bar; None shows it on a terminal only. Defaults to None.
    confidence_level (`float`): e.g. 0.95: add a bootstrap confidence interval of the mean, computed from the
        per-row scores. Defaults to None (no interval).
Returns:
    context_utilization (`float`): mean of the scored rows' scores.
    context_utilization_ci (`tuple` of `float`): (low, high), only with a confidence_level: the percentile bootstrap
        interval of that mean (9999 resamples of the scored rows, seeded); (NaN, NaN) with fewer than 2 scored rows.
    scores (`list` of `float`): per row; NaN for a row that could not be scored.
    verdicts (`list` of `list` of `float`): per row, each chunk's probability of having been useful.
    num_failed (`int`): rows that could not be scored.
    details (`list` of `dict`): only with return_details=True.
Examples:
    >>> metric = evaluate.load("./context_utilization")
    >>> results = metric.compute(
    ...     question=["Where is the Eiffel Tower?"],
    ...     answer=["The Eiffel Tower is in Paris."],
    ...     contexts=[["The Eiffel Tower is located in Paris.", "The Brandenburg Gate is located in Berlin."]],
    ... )
    >>> sorted(results)
    ['context_utilization', 'num_failed', 'scores', 'verdicts']
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ContextUtilization(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "question": datasets.Value("string"),
                    "answer": datasets.Value("string"),
                    "contexts": datasets.Sequence(datasets.Value("string")),
                }
            ),
            codebase_urls=["https://github.com/vibrantlabsai/ragas"],
            reference_urls=["https://docs.ragas.io/en/stable/concepts/metrics/available_metrics/context_precision/"],
        )

    def add_batch(self, **batch):
        """Add a batch of rows to the metric (as `evaluate.Metric.add_batch`)."""
        # evaluate reads one string as a row a character, and one row's chunks as rows: say what to pass instead
        localjudge.check_columns(chunk_lists=True, **batch)
        super().add_batch(**batch)

    def _compute(
        self,
        question,
        answer,
        contexts,
        judge=localjudge.DEFAULT_JUDGE,
        soft=False,
        settings=None,
        ragas_compat=False,
        return_details=False,
        batch_size=None,
        cache=True,
        progress=None,
        confidence_level=None,
    ):
        rows = localjudge.score_contexts(
            localjudge.judge_for(self, judge),
            question,
            answer,
            contexts,
            soft=soft,
            ragas_compat=ragas_compat,
            settings=settings,
            batch_size=batch_size,
            cache=cache,
            progress=progress,
        )
        return localjudge.utilization_output(rows, return_details=return_details, confidence_level=confidence_level)
