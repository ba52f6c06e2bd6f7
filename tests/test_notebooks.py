"""The quick-start notebooks run from top to bottom without errors, with the small real judge, as
scripts/build_notebooks.py executes them (nbclient, python3 kernel, working directory notebooks/)."""

import importlib.util
from pathlib import Path

import nbformat
import pytest

REPOSITORY = Path(__file__).resolve().parent.parent


def load_builder():
    spec = importlib.util.spec_from_file_location("build_notebooks", REPOSITORY / "scripts" / "build_notebooks.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    return builder


@pytest.mark.parametrize(
    "name, score_key",
    [
        ("summarization_score_quickstart", "summarization_score"),
        ("context_utilization_quickstart", "context_utilization"),
    ],
)
def test_notebook_runs_without_errors(name, score_key):
    notebook = nbformat.read(REPOSITORY / "notebooks" / f"{name}.ipynb", as_version=4)
    load_builder().execute(notebook, timeout=120)  # raises CellExecutionError on the first failing cell
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert [output for output in outputs if output.output_type == "error"] == []
    assert [output.text for output in outputs if output.get("name") == "stderr"] == []
    # the cell that computes ends with results[score_key]: the dataset score, in [0, 1]
    compute_cell = next(cell for cell in notebook.cells if cell.source.endswith(f'results["{score_key}"]'))
    assert 0.0 <= float(compute_cell.outputs[-1].data["text/plain"]) <= 1.0
