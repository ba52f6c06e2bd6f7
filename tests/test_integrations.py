"""`localjudge.integrations` (the `Dataset.map` scorer, tables, plots), the `localjudge` command line and the
examples of docs/usage.md: exact numbers with a scripted judge, and the embedded SmolLM2 judge end to end."""

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import datasets
import evaluate
import matplotlib
import numpy as np
import pandas
import pytest
from datasets.fingerprint import Hasher
from helpers import ScriptedJudge
from transformers import EvalPrediction

import localjudge.judges.registry
from localjudge import cli, integrations
from localjudge.integrations import input_columns, map_scorer, plot, summary_table, to_dataframe
from localjudge.maths import bootstrap_ci
from localjudge.prompts import SENTENCE_QUESTION

matplotlib.use("Agg")

REPOSITORY = Path(__file__).resolve().parent.parent

# Made-up texts. The source has two sentences, so two questions are asked about it.
BAKERY_SOURCE = "The Lumen bakery in Westvale opened a second shop on Friday. It sells rye bread and honey cakes."
BAKERY_SENTENCES = [
    "The Lumen bakery in Westvale opened a second shop on Friday.",
    "It sells rye bread and honey cakes.",
]
GOOD_SUMMARY = "The Lumen bakery opened a second shop."
WRONG_SUMMARY = "The Lumen bakery closed its only shop."
RYE_QUESTION = "Which bread does the Lumen bakery sell?"
RYE_ANSWER = "It sells rye bread."
RYE_CHUNK = "The Lumen bakery sells rye bread and honey cakes."
FOOTBALL_CHUNK = "Westvale's football club won the regional cup."
VERDICTS = {
    GOOD_SUMMARY: 1.0,
    WRONG_SUMMARY: 0.0,
    SENTENCE_QUESTION.format(sentence=BAKERY_SENTENCES[0]): 1.0,
    SENTENCE_QUESTION.format(sentence=BAKERY_SENTENCES[1]): 0.0,
    RYE_CHUNK: 0.9,
    FOOTBALL_CHUNK: 0.1,
}
# both summaries are 38 characters long and the source 96: conciseness 1 - 38/96; one of two questions answered
CONCISENESS = 1 - 38 / (96 + 1e-10)
RAGAS_SCORE = 0.5 * 0.5 + CONCISENESS * 0.5
SUMMARY_COLUMNS = ["summarization_score", "qa_score", "conciseness_score", "alignment_score", "coverage_score"]


def summaries_table(summary="summary", contexts="contexts"):
    return {summary: [GOOD_SUMMARY, WRONG_SUMMARY, ""], contexts: [[BAKERY_SOURCE]] * 3}


def retrievals_table(question="question", answer="answer", contexts="contexts"):
    # the first row cannot be scored (no chunks), so the first batch of one row holds only a failed row
    return {
        question: [RYE_QUESTION] * 3,
        answer: [RYE_ANSWER] * 3,
        contexts: [[], [RYE_CHUNK, FOOTBALL_CHUNK], [FOOTBALL_CHUNK, RYE_CHUNK]],
    }


def assert_summary_scores(scored):
    assert scored["summarization_score"][:2] == pytest.approx([RAGAS_SCORE, RAGAS_SCORE], abs=1e-12)
    assert scored["qa_score"][:2] == [0.5, 0.5]
    assert scored["conciseness_score"][:2] == pytest.approx([CONCISENESS, CONCISENESS], abs=1e-12)
    assert scored["alignment_score"][:2] == [1.0, 0.0]
    assert scored["coverage_score"][:2] == [0.5, 0.5]
    assert all(math.isnan(scored[column][2]) for column in SUMMARY_COLUMNS)


def assert_utilization_scores(scored):
    assert math.isnan(scored["context_utilization"][0])
    assert scored["context_utilization"][1:] == [1.0, 0.5]
    assert scored["chunk_probabilities"] == [[], [0.9, 0.1], [0.1, 0.9]]


@pytest.fixture
def scripted(monkeypatch):
    """A scripted judge that every judge name loads, in `integrations` (scorer, CLI) and in the modules."""
    judge = ScriptedJudge(VERDICTS)
    monkeypatch.setattr(integrations, "load_judge", lambda *args, **kwargs: judge)
    monkeypatch.setattr(localjudge.judges.registry, "load_judge", lambda *args, **kwargs: judge)
    return judge


# ---------------------------------------------------------------- map_scorer
def test_map_scorer_adds_exact_summarization_columns():
    dataset = datasets.Dataset.from_dict(summaries_table())
    scorer = map_scorer("summarization_score", judge=ScriptedJudge(VERDICTS), details=True)
    scored = dataset.map(scorer, batched=True, batch_size=2)
    assert len(scored) == 3
    assert scored["summary"] == dataset["summary"]
    assert_summary_scores(scored)
    errors = [json.loads(error) for error in scored["error"]]
    assert errors == [None, None, "empty or missing summary: pass a non-empty string"]
    claims = [json.loads(claims) for claims in scored["claims"]]
    assert [[{k: v for k, v in c.items() if k != "evidence"} for c in row] for row in claims[:2]] == [
        [{"claim": GOOD_SUMMARY, "p_yes": 1.0, "supported": True}],
        [{"claim": WRONG_SUMMARY, "p_yes": 0.0, "supported": False}],
    ]
    # each claim names the source sentence nearest to it
    assert all(c["evidence"] in " ".join(dataset["contexts"][0]) for row in claims[:2] for c in row)
    assert json.loads(scored["reason"][2]).startswith("Not scored: empty or missing summary")


def test_map_scorer_adds_exact_utilization_columns():
    dataset = datasets.Dataset.from_dict(retrievals_table())
    scorer = map_scorer("context_utilization", judge=ScriptedJudge(VERDICTS), details=True)
    scored = dataset.map(scorer, batched=True, batch_size=1)
    assert scored.features["chunk_probabilities"] == datasets.List(datasets.Value("float64"))
    assert_utilization_scores(scored)
    assert [json.loads(useful) for useful in scored["useful"]] == [[], [True, False], [False, True]]
    assert json.loads(scored["error"][0]).startswith("contexts must be a non-empty list")


@pytest.mark.parametrize(
    "metric_name, table, check",
    [
        ("summarization_score", summaries_table("response", "reference_contexts"), assert_summary_scores),  # Ragas
        ("summarization_score", summaries_table("output", "input"), assert_summary_scores),  # Mastra
        (
            "context_utilization",
            retrievals_table("user_input", "response", "retrieved_contexts"),
            assert_utilization_scores,
        ),
    ],
)
def test_map_scorer_reads_ragas_and_mastra_column_names(metric_name, table, check):
    scored = datasets.Dataset.from_dict(table).map(map_scorer(metric_name, judge=ScriptedJudge(VERDICTS)), batched=True)
    check(scored)


def test_mastra_source_as_one_string_per_row():
    table = {"output": [GOOD_SUMMARY, WRONG_SUMMARY, ""], "input": [BAKERY_SOURCE] * 3}
    scored = datasets.Dataset.from_dict(table).map(
        map_scorer("summarization_score", judge=ScriptedJudge(VERDICTS)), batched=True
    )
    assert_summary_scores(scored)


def test_columns_argument_wins_over_the_default_names():
    table = {
        "summary": ["unrelated text"] * 3,
        "generated": summaries_table()["summary"],
        "source": [BAKERY_SOURCE] * 3,
    }
    scorer = map_scorer(
        "summarization_score", judge=ScriptedJudge(VERDICTS), columns={"summary": "generated", "contexts": "source"}
    )
    assert_summary_scores(datasets.Dataset.from_dict(table).map(scorer, batched=True))


def test_missing_column_names_the_columns_found_and_the_names_accepted():
    dataset = datasets.Dataset.from_dict({"text": [GOOD_SUMMARY], "contexts": [[BAKERY_SOURCE]]})
    with pytest.raises(ValueError) as raised:
        dataset.map(map_scorer("summarization_score", judge=ScriptedJudge(VERDICTS)), batched=True)
    message = str(raised.value)
    assert "needs a 'summary' column" in message
    assert "['text', 'contexts']" in message
    assert "'summary', 'response', 'output'" in message
    with pytest.raises(ValueError, match="'generated'"):
        input_columns("summarization_score", ["summary", "contexts"], {"summary": "generated"})


def test_bad_arguments_fail_before_any_row_is_scored():
    judge = ScriptedJudge(VERDICTS)
    with pytest.raises(ValueError, match="summarization_score, context_utilization"):
        map_scorer("rouge", judge=judge)
    with pytest.raises(ValueError, match=r"\['document'\], which are not inputs of summarization_score"):
        map_scorer("summarization_score", judge=judge, columns={"document": "text"})
    with pytest.raises(ValueError, match="coeff must be in"):
        map_scorer("summarization_score", judge=judge, coeff=2.0)
    with pytest.raises(TypeError, match="temperature"):
        map_scorer("context_utilization", judge=judge, temperature=0.0)
    assert judge.calls == []


def test_scorer_fingerprint_is_stable_and_follows_the_settings():
    def fingerprint(**options):
        return Hasher.hash(map_scorer("summarization_score", judge=ScriptedJudge(VERDICTS), **options))

    assert fingerprint() == fingerprint()
    assert fingerprint() != fingerprint(coeff=0.3)
    assert fingerprint() != fingerprint(details=True)


def test_datasets_cache_reuses_a_mapped_file(tmp_path, scripted):
    path = tmp_path / "summaries.jsonl"
    pandas.DataFrame(summaries_table()).to_json(path, orient="records", lines=True)
    dataset = datasets.load_dataset("json", data_files=str(path), split="train", cache_dir=str(tmp_path / "cache"))
    first = dataset.map(map_scorer("summarization_score", judge="smollm2-135m"), batched=True)
    calls = len(scripted.calls)
    second = dataset.map(map_scorer("summarization_score", judge="smollm2-135m"), batched=True)
    assert len(scripted.calls) == calls
    assert second.cache_files == first.cache_files
    assert_summary_scores(second)


def test_worker_processes_rebuild_the_scorer():
    dataset = datasets.Dataset.from_dict(retrievals_table())
    scorer = map_scorer("context_utilization", judge=ScriptedJudge(VERDICTS))
    assert_utilization_scores(dataset.map(scorer, batched=True, batch_size=1, num_proc=2))


def test_real_judge_is_loaded_once_for_all_batches(monkeypatch, smol_judge):
    loads = []

    def counting_load_judge(*args, **kwargs):
        loads.append(args)
        return localjudge.load_judge(*args, **kwargs)

    monkeypatch.setattr(integrations, "load_judge", counting_load_judge)
    dataset = datasets.Dataset.from_dict({"summary": [GOOD_SUMMARY, WRONG_SUMMARY], "contexts": [[BAKERY_SOURCE]] * 2})
    scored = dataset.map(map_scorer("summarization_score", judge="smollm2-135m"), batched=True, batch_size=1)
    assert loads == [("smollm2-135m",)]
    for column in SUMMARY_COLUMNS:
        assert all(0.0 <= value <= 1.0 for value in scored[column]), column


# ---------------------------------------------------------------- tables and plots
def summarization_results(return_details=True):
    table = summaries_table()
    rows = localjudge.score_summaries(ScriptedJudge(VERDICTS), table["summary"], table["contexts"])
    return localjudge.summarization_output(rows, return_details=return_details)


def utilization_results():
    table = retrievals_table()
    rows = localjudge.score_contexts(ScriptedJudge(VERDICTS), table["question"], table["answer"], table["contexts"])
    return localjudge.utilization_output(rows, return_details=True)


def test_to_dataframe_flattens_summarization_details():
    frame = to_dataframe(summarization_results())
    assert list(frame.columns) == [*SUMMARY_COLUMNS, "reason", "error", "num_claims", "num_questions"]
    assert_summary_scores(frame.to_dict("list"))
    assert frame["num_claims"].tolist() == [1, 1, 0]
    assert frame["num_questions"].tolist() == [2, 2, 0]
    assert frame["error"].isna().tolist() == [True, True, False]
    assert frame["error"][2] == "empty or missing summary: pass a non-empty string"
    assert frame["reason"][0].startswith("The score is 0.55 because")
    assert list(to_dataframe(summarization_results(return_details=False)).columns) == SUMMARY_COLUMNS


def test_to_dataframe_flattens_utilization_details():
    frame = to_dataframe(utilization_results())
    assert list(frame.columns) == ["context_utilization", "chunk_probabilities", "error", "num_chunks", "num_useful"]
    assert_utilization_scores(frame.to_dict("list"))
    assert frame["num_chunks"].tolist() == [0, 2, 2]
    assert frame["num_useful"].tolist() == [0, 1, 1]


def test_to_dataframe_rejects_other_results():
    with pytest.raises(ValueError, match="Not a localjudge result"):
        to_dataframe({"exact_match": 1.0})


def test_summary_table_counts_and_averages_the_scored_rows():
    table = summary_table(to_dataframe(summarization_results()))
    assert table.to_dict("records") == [
        {
            "rows": 3,
            "failed": 1,
            "summarization_score": pytest.approx(RAGAS_SCORE, abs=1e-12),
            "qa_score": 0.5,
            "conciseness_score": pytest.approx(CONCISENESS, abs=1e-12),
            "alignment_score": 0.5,
            "coverage_score": 0.5,
        }
    ]
    assert summary_table(to_dataframe(utilization_results())).to_dict("records") == [
        {"rows": 3, "failed": 1, "context_utilization": 0.75}
    ]


def test_summary_table_adds_the_interval_of_the_score_mean_after_it():
    results = utilization_results()
    table = summary_table(to_dataframe(results), confidence_level=0.95)
    low, high = bootstrap_ci(results["scores"], 0.95)
    assert table.to_dict("records") == [
        {
            "rows": 3,
            "failed": 1,
            "context_utilization": 0.75,
            "context_utilization_ci_low": low,
            "context_utilization_ci_high": high,
        }
    ]
    columns = summary_table(to_dataframe(summarization_results()), confidence_level=0.95).columns
    assert list(columns[2:5]) == ["summarization_score", "summarization_score_ci_low", "summarization_score_ci_high"]


def test_plot_draws_the_score_histogram_and_component_means():
    figure = plot(summarization_results())
    histogram, bars = figure.axes
    assert sum(patch.get_height() for patch in histogram.patches) == 2  # the two scored rows
    assert [patch.get_height() for patch in bars.patches] == pytest.approx([0.5, CONCISENESS, 0.5, 0.5])
    assert histogram.get_title() == "summarization_score per row (1 failed)"


def test_plot_draws_on_the_given_axes():
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots()
    assert plot(to_dataframe(utilization_results()), ax=ax) is figure
    assert len(figure.axes) == 1
    assert sum(patch.get_height() for patch in ax.patches) == 2


def test_plot_without_matplotlib_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=re.escape("pip install localjudge-metrics[plot]")):
        plot(summarization_results())


# ---------------------------------------------------------------- evaluate: combine, docs/usage.md
# The Hub's exact_match cannot be downloaded offline; this stand-in has its inputs and its `_compute` signature.
EXACT_MATCH_SCRIPT = """
import datasets
import evaluate


class ExactMatch(evaluate.Metric):
    def _info(self):
        features = datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")})
        return evaluate.MetricInfo(description="exact match", citation="", inputs_description="", features=features)

    def _compute(
        self,
        predictions,
        references,
        regexes_to_ignore=None,
        ignore_case=False,
        ignore_punctuation=False,
        ignore_numbers=False,
    ):
        return {"exact_match": sum(p == r for p, r in zip(predictions, references)) / len(predictions)}
"""


@pytest.fixture
def exact_match_offline(tmp_path, monkeypatch):
    """`evaluate.load("exact_match")` loads the stand-in."""
    folder = tmp_path / "exact_match"
    folder.mkdir()
    (folder / "exact_match.py").write_text(EXACT_MATCH_SCRIPT)
    load = evaluate.load
    monkeypatch.setattr(
        evaluate,
        "load",
        lambda path, *args, **kwargs: load(str(folder) if path == "exact_match" else path, *args, **kwargs),
    )


def test_combine_passes_every_keyword_to_every_module(scripted, exact_match_offline):
    summarization = evaluate.load(str(REPOSITORY / "summarization_score"))
    combined = evaluate.combine([summarization, evaluate.load("exact_match")])
    inputs = {
        "predictions": [GOOD_SUMMARY],
        "references": [GOOD_SUMMARY],
        "summary": [GOOD_SUMMARY],
        "contexts": [[BAKERY_SOURCE]],
    }
    with pytest.raises(TypeError, match="unexpected keyword argument 'summary'"):
        combined.compute(**inputs)
    combined.add_batch(**inputs)
    with pytest.raises(TypeError, match="unexpected keyword argument 'judge'"):
        combined.compute(judge="smollm2-135m")
    # add_batch gives each module its own inputs; compute() without options then works
    combined.add_batch(**inputs)
    results = combined.compute()
    assert results["exact_match"] == 1.0
    assert results["scores"] == pytest.approx([RAGAS_SCORE], abs=1e-12)


def python_blocks(path):
    """The page's ```python blocks, but those marked `<!-- not run: REASON -->` on the line before (tests/test_docs.py
    checks that each such mark gives its reason)."""
    blocks = re.findall(r"(<!-- not run: [^\n]*-->\n)?```python\n(.*?)```", path.read_text(), re.DOTALL)
    return [code for mark, code in blocks if not mark]


def test_usage_doc_runs_with_exact_scores(tmp_path, monkeypatch, smol_judge, exact_match_offline):
    judge = ScriptedJudge({"Westvale's football club won the cup.": 0.0}, default=1.0)
    monkeypatch.setattr(integrations, "load_judge", lambda *args, **kwargs: judge)
    monkeypatch.setattr(localjudge.judges.registry, "load_judge", lambda *args, **kwargs: judge)
    # the examples load the modules from the working directory and the Trainer writes into it
    for folder in ("summarization_score", "context_utilization"):
        (tmp_path / folder).symlink_to(REPOSITORY / folder)
    monkeypatch.chdir(tmp_path)
    eval_dataset = datasets.Dataset.from_dict({"input_ids": [[1, 2, 3]], "labels": [[1, 2]]})
    namespace = {"model": smol_judge.model, "tokenizer": smol_judge.tokenizer, "eval_dataset": eval_dataset}
    for block in python_blocks(REPOSITORY / "docs" / "usage.md"):
        exec(compile(block, "docs/usage.md", "exec"), namespace)

    def all_yes_score(summary, source):
        return 0.5 + 0.5 * (1 - len(summary) / (len(source) + 1e-10))

    library_summary = "The Westvale library opened on Saturday with twelve thousand books."
    library_source = "The town of Westvale opened its first public library on Saturday. It holds twelve thousand books."
    loop = namespace["loop_results"]
    assert loop["scores"][0] == pytest.approx(all_yes_score(library_summary, library_source), abs=1e-12)
    assert loop["num_failed"] == 0 and len(loop["scores"]) == 2

    for run in namespace["runs"].values():
        assert run["summarization_score_ci"] == bootstrap_ci(run["scores"], 0.95)
    differences = np.subtract(namespace["runs"]["step 2000"]["scores"], namespace["runs"]["step 1000"]["scores"])
    assert (namespace["low"], namespace["high"]) == bootstrap_ci(differences.tolist(), 0.95)

    # compute_metrics on what a Seq2SeqTrainer would hand it: -100-padded generated ids and inputs
    tokenizer = smol_judge.tokenizer
    summaries, documents = [library_summary, "Ferries resume."], [library_source, "Ferries resume in June."]

    def padded_ids(texts):
        ids = [tokenizer.encode(text) for text in texts]
        return np.array([row + [-100] * (max(map(len, ids)) - len(row)) for row in ids])

    metrics = namespace["compute_metrics"](
        EvalPrediction(padded_ids(summaries), padded_ids(summaries), inputs=padded_ids(documents))
    )
    expected = np.mean([all_yes_score(s, d) for s, d in zip(summaries, documents)])
    assert metrics == {"summarization_score": pytest.approx(expected, abs=1e-12), "summarization_failed": 0}
    assert namespace["trainer"].compute_metrics is namespace["compute_metrics"]

    assert namespace["combined_results"]["exact_match"] == 1.0
    assert namespace["merged_results"]["exact_match"] == 1.0
    assert namespace["merged_results"]["scores"] == namespace["combined_results"]["scores"]

    scored = namespace["scored"]
    assert scored["summarization_score"][0] == pytest.approx(
        all_yes_score("The Westvale library opened with twelve thousand books.", library_source), abs=1e-12
    )
    assert math.isnan(scored["summarization_score"][1])
    assert namespace["rag_scored"]["chunk_probabilities"] == [[0.0, 1.0]]
    assert namespace["rag_scored"]["context_utilization"] == [0.5]

    assert namespace["frame"]["summarization_score"].tolist() == namespace["results"]["scores"]
    assert len(namespace["figure"].axes) == 2


# ---------------------------------------------------------------- command line
def write_jsonl(path, table):
    pandas.DataFrame(table).to_json(path, orient="records", lines=True)
    return path


def test_cli_scores_jsonl_into_csv_and_prints_the_means(tmp_path, scripted, capsys):
    data = write_jsonl(tmp_path / "summaries.jsonl", summaries_table("response", "reference_contexts"))
    out = tmp_path / "scored.csv"
    assert cli.main(["score", "summarization_score", str(data), "-o", str(out)]) == 0
    assert_summary_scores(pandas.read_csv(out).to_dict("list"))
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == f"Wrote 3 rows to {out} (judge: scripted). Means over the scored rows:"
    assert printed[1].split() == ["rows", "failed", *SUMMARY_COLUMNS]
    assert printed[2].split() == ["3", "1", f"{RAGAS_SCORE:.4f}", "0.5000", f"{CONCISENESS:.4f}", "0.5000", "0.5000"]


def test_cli_prints_the_interval_of_the_mean_at_the_confidence_level(tmp_path, scripted, capsys):
    data = write_jsonl(tmp_path / "retrievals.jsonl", retrievals_table())
    out = tmp_path / "scored.jsonl"
    assert cli.main(["score", "context_utilization", str(data), "-o", str(out), "--confidence-level", "0.9"]) == 0
    printed = capsys.readouterr().out.splitlines()
    heading = "Means over the scored rows, with the 90% bootstrap interval of the context_utilization mean:"
    assert printed[0].endswith(heading)
    interval = ["context_utilization_ci_low", "context_utilization_ci_high"]
    assert printed[1].split() == ["rows", "failed", "context_utilization", *interval]
    low, high = bootstrap_ci(pandas.read_json(out, lines=True)["context_utilization"].tolist(), 0.9)
    assert printed[2].split() == ["3", "1", "0.7500", f"{low:.4f}", f"{high:.4f}"]


@pytest.mark.parametrize("level", ["1", "95", "0", "high"])
def test_cli_refuses_a_confidence_level_outside_zero_to_one_before_scoring(tmp_path, capsys, level):
    data = write_jsonl(tmp_path / "retrievals.jsonl", retrievals_table())
    out = tmp_path / "scored.jsonl"
    with pytest.raises(SystemExit):
        cli.main(["score", "context_utilization", str(data), "-o", str(out), "--confidence-level", level])
    assert "argument --confidence-level" in capsys.readouterr().err
    assert not out.exists()


def test_cli_reads_csv_with_renamed_columns_a_limit_and_details(tmp_path, scripted):
    data = tmp_path / "summaries.csv"
    pandas.DataFrame({"generated": [WRONG_SUMMARY, GOOD_SUMMARY], "source": [BAKERY_SOURCE] * 2}).to_csv(
        data, index=False
    )
    out = tmp_path / "scored.parquet"
    arguments = ["--column", "summary=generated", "--column", "contexts=source", "--limit", "1", "--details"]
    assert cli.main(["score", "summarization_score", str(data), "-o", str(out), *arguments]) == 0
    scored = pandas.read_parquet(out)
    assert scored["generated"].tolist() == [WRONG_SUMMARY]
    assert scored["alignment_score"].tolist() == [0.0]
    assert json.loads(scored["reason"][0]).startswith("The score is")


def test_cli_scores_context_utilization_into_jsonl(tmp_path, scripted):
    data = write_jsonl(tmp_path / "retrievals.jsonl", retrievals_table())
    out = tmp_path / "scored.jsonl"
    assert cli.main(["score", "context_utilization", str(data), "-o", str(out), "--batch-size", "1"]) == 0
    assert_utilization_scores(pandas.read_json(out, lines=True).to_dict("list"))


def last_error_line(capsys):
    """The error message, after checking that it is one line on stderr below datasets' progress bars."""
    stderr = capsys.readouterr().err
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if "localjudge: error:" in line]
    assert len(errors) == 1 and errors[0] == stderr.strip().splitlines()[-1]
    return errors[0]


@pytest.mark.parametrize(
    "data_name, content, out_name, message",
    [
        ("missing.jsonl", None, "out.jsonl", "no such file: '{data}'"),
        (
            "summaries.txt",
            "text",
            "out.jsonl",
            "cannot read '{data}': unsupported extension; use one of .jsonl, .json, .csv, .parquet",
        ),
        (
            "summaries.jsonl",
            "{}",
            "out.xlsx",
            "cannot write '{out}': unsupported extension; use one of .jsonl, .csv, .parquet",
        ),
        ("summaries.jsonl", '{"summary": "A', "out.jsonl", "cannot read '{data}' as json: JSON parse error"),
        ("summaries.parquet", "not parquet", "out.jsonl", "cannot read '{data}' as parquet:"),
        ("summaries.jsonl", "", "out.jsonl", "'{data}' is empty"),
        (
            "summaries.jsonl",
            '{"text": "A", "contexts": ["B"]}',
            "out.jsonl",
            "{data}: summarization_score needs a 'summary' column",
        ),
    ],
)
def test_cli_input_problems_end_with_one_line(tmp_path, capsys, data_name, content, out_name, message):
    data, out = tmp_path / data_name, tmp_path / out_name
    if content is not None:
        data.write_text(content)
    assert cli.main(["score", "summarization_score", str(data), "-o", str(out)]) == 1
    assert last_error_line(capsys).startswith("localjudge: error: " + message.format(data=data, out=out))
    assert not out.exists()


def test_cli_unknown_judge_file_ends_with_one_line(tmp_path, capsys):
    data = write_jsonl(tmp_path / "summaries.jsonl", summaries_table())
    missing = tmp_path / "judge.gguf"
    assert (
        cli.main(["score", "summarization_score", str(data), "-o", str(tmp_path / "o.jsonl"), "--judge", str(missing)])
        == 1
    )
    assert last_error_line(capsys) == f"localjudge: error: No judge file or directory at '{missing}'."


def test_cli_demo_scores_the_built_in_examples(monkeypatch, capsys):
    judge = ScriptedJudge({cli.DEMO_CHUNKS[0]: 1.0})
    monkeypatch.setattr(integrations, "load_judge", lambda *args, **kwargs: judge)
    assert cli.main(["demo"]) == 0
    printed = capsys.readouterr().out
    assert "summarization_score (judge: scripted)" in printed
    assert "context_utilization (judge: scripted)" in printed
    utilization_rows = printed.split("context_utilization (judge: scripted)")[1].splitlines()[2:4]
    assert [row.split()[-3] for row in utilization_rows] == ["1.000", "0.500"]


def test_cli_judges_lists_the_embedded_judges(capsys):
    assert cli.main(["judges"]) == 0
    printed = capsys.readouterr().out
    assert "qwen2.5-coder-0.5b (default)" in printed and "smollm2-135m" in printed


def run_module(*arguments):
    """`python -m localjudge ARGUMENTS` in a new process, as notebooks and job schedulers call it, importing
    this checkout's package (the working directory comes first on `-m`'s path)."""
    return subprocess.run(
        [sys.executable, "-m", "localjudge", *arguments],
        capture_output=True,
        text=True,
        cwd=REPOSITORY,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        timeout=300,
    )


def test_python_m_localjudge_lists_the_judges():
    completed = run_module("judges")
    assert completed.returncode == 0, completed.stderr
    assert "qwen2.5-coder-0.5b (default)" in completed.stdout


def test_cli_command_with_the_small_real_judge(tmp_path):
    data = write_jsonl(tmp_path / "summaries.jsonl", {"summary": [GOOD_SUMMARY], "contexts": [[BAKERY_SOURCE]]})
    out = tmp_path / "scored.jsonl"
    completed = run_module(
        "score", "summarization_score", str(data), "-o", str(out), "--judge", "smollm2-135m", "--limit", "1"
    )
    assert completed.returncode == 0, completed.stderr
    assert "(judge: smollm2-135m)" in completed.stdout
    scored = pandas.read_json(out, lines=True)
    assert len(scored) == 1
    for column in SUMMARY_COLUMNS:
        assert 0.0 <= scored[column][0] <= 1.0, column
