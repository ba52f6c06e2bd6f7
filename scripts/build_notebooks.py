"""Write the quick-start notebooks with nbformat and execute them with nbclient, so that their saved outputs
are real. Run from anywhere: python3 scripts/build_notebooks.py (under a minute on a CPU).

The notebooks use the small embedded judge on a few made-up rows; tests/test_notebooks.py runs them again
with `execute`.
"""

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}
# What the kernels inherit: no hub access; idle OpenMP threads that sleep rather than spin (see tests/conftest.py);
# and no warning from tqdm that ipywidgets is missing, which says nothing about the notebook but would be saved in it.
KERNEL_ENVIRONMENT = {
    "HF_HUB_OFFLINE": "1",
    "OMP_WAIT_POLICY": "PASSIVE",
    "PYTHONWARNINGS": "ignore:IProgress not found",
}

SETUP = """\
import datasets
import evaluate
import transformers

from localjudge.integrations import map_scorer, plot, to_dataframe

JUDGE = "smollm2-135m"

# progress bars would be saved into the notebook as text
datasets.disable_progress_bars()
transformers.utils.logging.disable_progress_bar()"""

JUDGE_NOTE = (
    "The judge is `smollm2-135m`, small enough to run these cells in seconds on a CPU but a weak judge; leave "
    "`judge=` out for the default, `qwen2.5-coder-0.5b`. The texts were made up for this notebook. "
    "The notebook runs from `notebooks/`, so the module is loaded from the folder above."
)

SUMMARIZATION = [
    new_markdown_cell(
        "# `summarization_score`: quick start\n\n"
        "Scores summaries against their source with a local LLM judge: Ragas' score (questions about the source "
        "answered from the summary, with a length penalty) and Mastra's alignment and coverage.\n\n" + JUDGE_NOTE
    ),
    new_code_cell(SETUP),
    new_code_cell("""\
SOURCE = (
    "The town of Westvale opened its first public library on Saturday. The building was paid for by the "
    "Harlow family. It holds twelve thousand books and a small cinema."
)
summaries = [
    "Westvale opened a public library with twelve thousand books, paid for by the Harlow family.",
    "Westvale opened a library.",
    "The Harlow family closed the Westvale cinema.",
]"""),
    new_markdown_cell("## `evaluate.load`, then `compute`"),
    new_code_cell("""\
summarization_score = evaluate.load("../summarization_score")
results = summarization_score.compute(
    summary=summaries, contexts=[[SOURCE]] * len(summaries), judge=JUDGE, return_details=True
)
results["summarization_score"]"""),
    new_markdown_cell(
        "One row per summary with `to_dataframe`: the score, its components and, from the details, the reason "
        "and the number of claims and questions judged."
    ),
    new_code_cell("to_dataframe(results)"),
    new_markdown_cell(
        "The small judge is lenient: it finds the third summary's claim supported, though the source does not say "
        "it. Use the default judge for real evaluations."
    ),
    new_code_cell("plot(results);"),
    new_markdown_cell(
        "## Score a dataset with `Dataset.map`\n\n"
        "`map_scorer` loads the judge once and adds the score columns to every row."
    ),
    new_code_cell("""\
dataset = datasets.Dataset.from_dict({"summary": summaries, "contexts": [[SOURCE]] * len(summaries)})
scored = dataset.map(map_scorer("summarization_score", judge=JUDGE), batched=True)
scored.to_pandas()[["summary", "summarization_score", "qa_score", "alignment_score", "coverage_score"]]"""),
]

UTILIZATION = [
    new_markdown_cell(
        "# `context_utilization`: quick start\n\n"
        "How well a retriever ranked the chunks that were useful for an answer (Ragas' context utilization): "
        "the judge gives each chunk's probability of having been useful, and the score is the average precision "
        "over the ranks.\n\n" + JUDGE_NOTE
    ),
    new_code_cell(SETUP),
    new_code_cell("""\
QUESTION = "How many books does the Westvale library hold?"
ANSWER = "The Westvale library holds twelve thousand books."
USEFUL = "The Westvale library opened on Saturday and holds twelve thousand books."
OFF_TOPIC = "Westvale's football club won the regional cup last spring."
rankings = [[USEFUL, OFF_TOPIC], [OFF_TOPIC, USEFUL]]  # the useful chunk first, then last"""),
    new_markdown_cell("## `evaluate.load`, then `compute`"),
    new_code_cell("""\
context_utilization = evaluate.load("../context_utilization")
results = context_utilization.compute(
    question=[QUESTION] * 2, answer=[ANSWER] * 2, contexts=rankings, judge=JUDGE, return_details=True
)
results["context_utilization"]"""),
    new_markdown_cell(
        "One row per ranking with `to_dataframe`: the score and each chunk's probability of having been useful."
    ),
    new_code_cell("to_dataframe(results)"),
    new_markdown_cell(
        "## Score a dataset with `Dataset.map`\n\n"
        "Ragas' column names (`user_input`, `response`, `retrieved_contexts`) are recognised as they are."
    ),
    new_code_cell("""\
dataset = datasets.Dataset.from_dict(
    {"user_input": [QUESTION] * 2, "response": [ANSWER] * 2, "retrieved_contexts": rankings}
)
scored = dataset.map(map_scorer("context_utilization", judge=JUDGE), batched=True)
scored.to_pandas()[["retrieved_contexts", "context_utilization", "chunk_probabilities"]]"""),
]


def execute(notebook, timeout=300):
    """Run every cell in a python3 kernel started in notebooks/, keeping the outputs; raises on a failing cell."""
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute(env={**os.environ, **KERNEL_ENVIRONMENT})
    return notebook


def build(name, cells):
    notebook = new_notebook(cells=cells, metadata={"kernelspec": KERNEL, "language_info": {"name": "python"}})
    nbformat.write(execute(notebook), NOTEBOOKS / f"{name}.ipynb")


def main():
    NOTEBOOKS.mkdir(exist_ok=True)
    build("summarization_score_quickstart", SUMMARIZATION)
    build("context_utilization_quickstart", UTILIZATION)


if __name__ == "__main__":
    main()
