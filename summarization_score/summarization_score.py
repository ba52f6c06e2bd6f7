"""Summarization score: Ragas SummarizationScore and Mastra SummarizationMetric on a local LLM judge."""

import datasets
import evaluate
# evaluate names what follows "From:" in its missing-dependency message; the PyPI project named localjudge
# is an unrelated one
import localjudge  # From: localjudge-metrics==0.2.0

_CITATION = """\
@misc{ragas2024summarization,
  title = {Ragas: Summarization Score},
  author = {Exploding Gradients},
  year = {2024},
  howpublished = {\\url{https://docs.ragas.io/en/stable/concepts/metrics/available_metrics/summarization_score/}}
}
@misc{mastra2024summarization,
  title = {Mastra Evals: Summarization},
  author = {Mastra},
  year = {2024},
  howpublished = {\\url{https://mastra.ai/reference/evals/summarization}}
}
"""

_DESCRIPTION = """\
Scores a summary against its source text with a local instruction-tuned language model as the judge
(no API key, no network). Two reference algorithms share one batched pass through the judge:

* Ragas SummarizationScore: closed questions about the source are answered from the summary alone;
  qa_score = yes-answers / questions asked; with the length penalty the score is
  qa_score * (1 - coeff) + conciseness * coeff, conciseness = 1 - min(len(summary), len(text)) / (len(text) + 1e-10)
  in characters.
* Mastra SummarizationMetric: summary claims are judged against the source (alignment_score) and the same
  questions give coverage_score; final="min" returns min(alignment, coverage) * scale with a reason.

Verdicts are probabilities read from the judge's next-token logits, not parsed from generated JSON: the default
judge answers yes/no for each summary claim with its fine-tuned LoRA adapter, and gives likelihood verdicts for the
questions.
"""

_KWARGS_DESCRIPTION = """
Args:
    summary (`list` of `str`): the summaries to score.
    contexts (`list` of `list` of `str`, or `list` of `str`): per row, the source text as chunks (joined with
        "\\n") or as one string.
    judge (`str` or `localjudge.Judge`): embedded judge name ("qwen2.5-coder-0.5b", "smollm2-135m"),
        a local directory or .gguf file, a hub id, or a judge from `localjudge.load_judge`. Defaults to
        "qwen2.5-coder-0.5b".
    length_penalty (`bool`): weight in conciseness (Ragas). Defaults to True.
    coeff (`float`): weight of conciseness, in [0, 1]. Defaults to 0.5.
    final (`str`): "ragas" (QA score with the length penalty) or "min" (Mastra: min(alignment, coverage) * scale).
        Defaults to "ragas".
    scale (`float`): multiplier of the "min" score. Defaults to 1.0.
    max_questions (`int`): most questions asked per source, 1 to 100. Defaults to None: with sentence units the
        first 3 source sentences, or the first 10 of a dialogue (most lines "Name: ..."); at most 10 generated
        questions with extraction="generate".
    extraction (`str`): "sentences" (source sentences become questions, summary sentences claims) or
        "generate" (the judge writes keyphrases, questions and claims; for judges that follow instructions).
        Defaults to "sentences".
    key_facts (`str`): which source sentences sentence units ask about: "lead" (the first ones) or "central"
        (the most central ones by LexRank, for text whose key content is not at its start, such as chats).
        Defaults to "lead".
    soft (`bool`): qa, alignment and coverage scores as mean verdict probabilities instead of the share of
        verdicts >= 0.5 (graded; see the card for which agrees better with people). Defaults to False.
    settings (`str` or `dict`): verdict settings fitted to your own labels by `localjudge.calibrate` (the path of
        its JSON file, or its {task: Verdict} table) instead of the judge's shipped ones. Defaults to None.
    return_details (`bool`): add per-row keyphrases, questions and claims with their probabilities, and the
        reason. Defaults to False.
    batch_size (`int`): prompts per forward pass. Defaults to the judge's (16 on CPU, 64 on GPU).
    cache (`bool`): reuse and store verdicts in the persistent result cache. Defaults to True.
    progress (`bool`): show a progress bar; None shows it on a terminal only. Defaults to None.
    confidence_level (`float`): e.g. 0.95: add a bootstrap confidence interval of the mean, computed from the
        per-row scores. Defaults to None (no interval).
Returns:
    summarization_score (`float`): mean of the scored rows' scores.
    summarization_score_ci (`tuple` of `float`): (low, high), only with a confidence_level: the percentile bootstrap
        interval of that mean (9999 resamples of the scored rows, seeded); (NaN, NaN) with fewer than 2 scored rows.
    scores, qa_scores, conciseness_scores, alignment_scores, coverage_scores (`list` of `float`): per row;
        NaN for a row that could not be scored.
    num_failed (`int`): rows that could not be scored (their reason is in the details).
    details (`list` of `dict`): only with return_details=True.
Examples:
    >>> metric = evaluate.load("./summarization_score")
    >>> source = "The council approved the new park on Monday. It will open in May."
    >>> results = metric.compute(summary=["The council approved a park."], contexts=[[source]])
    >>> sorted(results)
    ['alignment_scores', 'conciseness_scores', 'coverage_scores', 'num_failed', 'qa_scores', 'scores', 'summarization_score']
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SummarizationScore(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[
                datasets.Features(
                    {"summary": datasets.Value("string"), "contexts": datasets.Sequence(datasets.Value("string"))}
                ),
                datasets.Features({"summary": datasets.Value("string"), "contexts": datasets.Value("string")}),
            ],
            codebase_urls=["https://github.com/vibrantlabsai/ragas", "https://github.com/mastra-ai/mastra"],
            reference_urls=["https://docs.ragas.io/en/stable/concepts/metrics/available_metrics/summarization_score/"],
        )

    def add_batch(self, **batch):
        """Add a batch of rows to the metric (as `evaluate.Metric.add_batch`)."""
        # evaluate reads one string as a row a character, and one row's chunks as rows: say what to pass instead
        localjudge.check_columns(**batch)
        super().add_batch(**batch)

    def _infer_feature_from_example(self, example):
        try:
            return super()._infer_feature_from_example(example)
        except KeyError:  # evaluate's own message reads example["predictions"], which this module does not have
            raise TypeError(
                "summary must be a string and contexts a list of strings or a string; the first row has "
                f"summary={example['summary']!r}, contexts={example['contexts']!r}"
            ) from None

    def _compute(
        self,
        summary,
        contexts,
        judge=localjudge.DEFAULT_JUDGE,
        length_penalty=True,
        coeff=0.5,
        final="ragas",
        scale=1.0,
        max_questions=None,
        extraction="sentences",
        soft=False,
        settings=None,
        return_details=False,
        batch_size=None,
        cache=True,
        progress=None,
        confidence_level=None,
        key_facts="lead",
    ):
        rows = localjudge.score_summaries(
            localjudge.judge_for(self, judge),
            summary,
            contexts,
            length_penalty=length_penalty,
            coeff=coeff,
            final=final,
            scale=scale,
            max_questions=max_questions,
            extraction=extraction,
            soft=soft,
            settings=settings,
            batch_size=batch_size,
            cache=cache,
            progress=progress,
            key_facts=key_facts,
        )
        return localjudge.summarization_output(rows, return_details=return_details, confidence_level=confidence_level)
