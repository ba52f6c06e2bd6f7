"""The metric folders as a Hub Space builds them: each names this project by its own distribution name."""

import configparser
import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import localjudge

REPOSITORY = Path(__file__).resolve().parent.parent
FOLDERS = ["summarization_score", "context_utilization"]
DISTRIBUTION = "localjudge-metrics"


def requirements(folder):
    lines = (REPOSITORY / folder / "requirements.txt").read_text().splitlines()
    return [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]


def test_the_distribution_name_is_ours():
    setup = configparser.ConfigParser()
    setup.read(REPOSITORY / "setup.cfg")
    assert setup["metadata"]["name"] == DISTRIBUTION


@pytest.mark.parametrize("folder", FOLDERS)
def test_requirements_pin_this_project_and_nothing_named_like_it(folder):
    pins = {requirement.name: str(requirement.specifier) for requirement in requirements(folder)}
    # `localjudge` and `local-judge` on PyPI are unrelated projects
    assert pins == {"torch": "==2.13.0", DISTRIBUTION: f"=={localjudge.__version__}"}


@pytest.mark.parametrize("folder", FOLDERS)
def test_missing_package_message_names_the_distribution(folder):
    script = (REPOSITORY / folder / f"{folder}.py").read_text()
    imports = re.findall(r"^import localjudge.*$", script, re.MULTILINE)
    assert imports == [f"import localjudge  # From: {DISTRIBUTION}=={localjudge.__version__}"]
