"""The metric folders as a Hub Space builds and runs them.

A Space is one metric folder alone, with its `requirements.txt` and the Gradio of its card's `sdk_version`
installed in a fresh environment. The `space` tests do the same: this project's wheel is built, and each folder
is copied into an empty directory, installed into a new virtual environment with the wheel as the only source
of this project (`--find-links`), then loaded with `evaluate.load` and computed offline, and its widget
(`app.py`) is started and driven in headless Chromium (`browser`). They need pip's index for the third-party
packages; the environment is kept in `$LOCALJUDGE_CACHE/space-venvs`, keyed by what decides its contents, so
later runs reuse it. Run them alone with `python3 -m pytest -m space tests/test_space.py`.
"""

import ast
import configparser
import fcntl
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

import localjudge
from localjudge.cache import default_cache_dir

REPOSITORY = Path(__file__).resolve().parent.parent
FOLDERS = ["summarization_score", "context_utilization"]
DISTRIBUTION = "localjudge-metrics"
# an environment not used for this long is removed when another one is built
UNUSED_DAYS = 1

# One made-up row per metric, as typed into the widget's table: text cells in double quotes, lists as JSON, as
# the widget asks.
EXAMPLES = {
    "summarization_score": {
        "summary": "The council approved a park that opens in May.",
        "contexts": ["The city council approved a new park on Monday. The park will open in May."],
    },
    "context_utilization": {
        "question": "Where is the Eiffel Tower?",
        "answer": "In Paris.",
        "contexts": ["The Eiffel Tower is located in Paris.", "The Brandenburg Gate is located in Berlin."],
    },
}
# what runs inside the Space's environment: the card's "How to Use", on two rows, then where localjudge came from
COMPUTE = """
import json, sys
from importlib.metadata import distribution
import evaluate, localjudge
inputs, folder = json.loads(sys.argv[1]), sys.argv[2]
results = evaluate.load(f"./{folder}").compute(**inputs, cache=False, confidence_level=0.95)
record = distribution("localjudge-metrics").read_text("RECORD")
print(json.dumps({"results": results, "package": localjudge.__file__, "record": record}))
"""


def requirements(folder):
    lines = (REPOSITORY / folder / "requirements.txt").read_text().splitlines()
    return [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]


def card(folder):
    """The metric card's YAML header: the Space's settings."""
    return yaml.safe_load((REPOSITORY / folder / "README.md").read_text().split("---")[1])


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


# ---------------------------------------------------------------- the Space's environment
@pytest.fixture(scope="session")
def wheel(tmp_path_factory):
    """This project's wheel, built from what goes into it alone (so no stale build/ of the checkout can)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("setup.cfg", "pyproject.toml", "README.md"):
        shutil.copy(REPOSITORY / name, source)
    shutil.copytree(REPOSITORY / "localjudge", source / "localjudge", ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path_factory.mktemp("wheels")
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)]
    subprocess.run(pip_wheel, check=True, timeout=600)
    (built,) = wheels.glob("*.whl")
    return built


def wheel_file(wheel, name):
    with zipfile.ZipFile(wheel) as archive:
        (path,) = [path for path in archive.namelist() if path.endswith(f".dist-info/{name}")]
        return archive.read(path).decode()


def package_files(record):
    """The package's files, with their hashes, from a wheel's or an installed distribution's RECORD."""
    return {line for line in record.splitlines() if line.startswith("localjudge/") and "sha256=" in line}


def environment_key(folder, wheel):
    """What decides the environment's contents: Python, the requirements, the Gradio pin and the wheel's own
    name, version and dependencies (not its code, which is installed again on every run, nor its extras'
    dependencies, which a Space does not install)."""
    metadata = wheel_file(wheel, "METADATA").splitlines()
    fields = ("Name:", "Version:", "Requires-Dist:")
    dependencies = [line for line in metadata if line.startswith(fields) and "extra ==" not in line]
    requirements_text = (REPOSITORY / folder / "requirements.txt").read_text()
    parts = [sys.version, requirements_text, card(folder)["sdk_version"], *dependencies]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def pip(python, *arguments):
    subprocess.run([str(python), "-m", "pip", "install", "-q", *arguments], check=True, timeout=1800)


def build_environment(path, folder, wheel):
    """A new virtual environment, installed as the Space installs it: torch first (as requirements.txt asks,
    with LOCALJUDGE_TORCH_PIP_ARGS as in scripts/install.sh), then requirements.txt and the card's Gradio."""
    venv.create(path, with_pip=True)
    python = path / "bin" / "python"
    pip(python, *os.environ.get("LOCALJUDGE_TORCH_PIP_ARGS", "").split(), "torch==2.13.0")
    gradio = f"gradio=={card(folder)['sdk_version']}"
    pip(python, "-r", str(REPOSITORY / folder / "requirements.txt"), gradio, "--find-links", str(wheel.parent))


@pytest.fixture(scope="session")
def space_python(wheel):
    """folder → the python of its Space's environment, with this checkout's wheel installed."""
    root = default_cache_dir() / "space-venvs"
    root.mkdir(parents=True, exist_ok=True)
    built = {}

    def python_for(folder):
        path = root / environment_key(folder, wheel)
        if path not in built:
            complete = path / "complete"
            if not complete.exists():
                shutil.rmtree(path, ignore_errors=True)
                for old in root.glob("*/complete"):
                    if time.time() - old.stat().st_mtime > UNUSED_DAYS * 86400:
                        shutil.rmtree(old.parent)
                build_environment(path, folder, wheel)
            complete.touch()
            # the environment's packages stay; this project's code is this checkout's
            pip(path / "bin" / "python", "--no-deps", "--force-reinstall", str(wheel))
            built[path] = path / "bin" / "python"
        return built[path]

    # Held until the session ends: another test run (another checkout) waits, rather than building into the
    # same directory or installing its own wheel under this run's tests.
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield python_for


def space_env():
    """The Space's process environment: offline, the judge's converted weights from the shared cache (so they are
    not converted again), and nothing of this checkout on the import path."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    offline = {"HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    return {**env, **offline, "LOCALJUDGE_CACHE": str(default_cache_dir())}


def space_folder(tmp_path, folder):
    """The metric folder alone in an empty directory, as a Space holds it."""
    shutil.copytree(REPOSITORY / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / folder


def assert_results(folder, results, rows):
    score = results[folder]
    assert results["num_failed"] == 0
    assert len(results["scores"]) == rows
    assert all(0.0 <= value <= 1.0 for value in [score, *results["scores"]])
    return score


# ---------------------------------------------------------------- evaluate.load in the Space's environment
@pytest.mark.space
@pytest.mark.parametrize("folder", FOLDERS)
def test_the_folder_alone_loads_and_computes_in_a_fresh_environment(tmp_path, space_python, wheel, folder):
    python = space_python(folder)
    space_folder(tmp_path, folder)
    example = EXAMPLES[folder]
    # two rows, so that the confidence interval (and with it scipy, a dependency of the wheel) is exercised
    inputs = {name: [value, value] for name, value in example.items()}
    completed = subprocess.run(
        [str(python), "-c", COMPUTE, json.dumps(inputs), folder],
        cwd=tmp_path,
        env=space_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    output = json.loads(completed.stdout.splitlines()[-1])
    # localjudge came from the built wheel, installed in the environment
    assert Path(output["package"]).is_relative_to(python.parent.parent)
    assert package_files(output["record"]) == package_files(wheel_file(wheel, "RECORD"))
    results = output["results"]
    score = assert_results(folder, results, rows=2)
    low, high = results[f"{folder}_ci"]
    assert low <= score <= high


# ---------------------------------------------------------------- the widget, in a browser
def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_page(url, app, log, timeout=300):
    """Wait until the widget answers at `url`; fail with its log if it exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if app.poll() is not None:
            pytest.fail(f"app.py exited with {app.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(1)
    pytest.fail(f"app.py did not answer at {url} within {timeout} s:\n{log.read_text()[-3000:]}")


@pytest.fixture
def widget(tmp_path, space_python):
    """folder → the URL of its widget, `app.py` run by the Space's python on 127.0.0.1; stopped afterwards."""
    apps = []

    def start(folder):
        port = free_port()
        log = tmp_path / "app.log"
        env = {**space_env(), "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port)}
        with open(log, "w") as output:
            app = subprocess.Popen(
                [str(space_python(folder)), "app.py"],
                cwd=space_folder(tmp_path, folder),
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        apps.append(app)
        url = f"http://127.0.0.1:{port}/"
        wait_for_page(url, app, log)
        return url

    yield start
    for app in apps:
        app.terminate()
        try:
            app.wait(timeout=30)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()


@pytest.fixture
def browser():
    """Headless Chromium from the system's packages (Debian: chromium, chromium-driver), never a downloaded one."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver):
        pytest.skip("needs Chromium and its driver: apt-get install chromium chromium-driver (.ci/run does)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    # --no-sandbox: Chromium's sandbox cannot start as root, which is how CI runs
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,760"):
        options.add_argument(argument)
    session = webdriver.Chrome(service=Service(driver), options=options)
    yield session
    session.quit()


def screenshot_path(tmp_path, folder):
    """Where the scored widget's screenshot goes: LOCALJUDGE_WIDGET_SCREENSHOTS=docs refreshes the cards' images."""
    directory = Path(os.environ.get("LOCALJUDGE_WIDGET_SCREENSHOTS") or tmp_path)
    return (REPOSITORY / directory if not directory.is_absolute() else directory) / f"widget_{folder}.png"


def type_into_cell(browser, row, column, text):
    cell = browser.find_element(By.CSS_SELECTOR, f'[data-testid="cell-{row}-{column}"]')
    ActionChains(browser).double_click(cell).perform()
    # a double click opens the cell's editor, which takes the focus
    editor = WebDriverWait(browser, 10).until(
        lambda page: page.switch_to.active_element if page.switch_to.active_element.tag_name == "textarea" else None
    )
    editor.send_keys(text, Keys.ENTER)


@pytest.mark.space
@pytest.mark.browser
@pytest.mark.parametrize("folder", FOLDERS)
def test_the_widget_scores_an_example_in_a_browser(tmp_path, widget, browser, folder):
    browser.get(widget(folder))
    wait = WebDriverWait(browser, 120)
    wait.until(lambda page: page.find_elements(By.CSS_SELECTOR, "button.add-row-button"))
    # the table starts without rows; its "+" adds one
    browser.find_element(By.CSS_SELECTOR, "button.add-row-button").click()
    for column, value in enumerate(EXAMPLES[folder].values()):
        type_into_cell(browser, 0, column, json.dumps(value))
    browser.find_element(By.XPATH, "//button[normalize-space()='Submit']").click()
    # the output box is labelled with the metric's name
    label = f"//label[span[@data-testid='block-info'][normalize-space()='{folder}']]"
    output = browser.find_element(By.XPATH, f"{label}//textarea[@data-testid='textbox']")
    text = WebDriverWait(browser, 300).until(lambda page: output.get_attribute("value"))
    # the widget shows compute()'s dict as text
    score = assert_results(folder, ast.literal_eval(text), rows=1)
    assert f"'{folder}': {score}" in text
    path = screenshot_path(tmp_path, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(path))
