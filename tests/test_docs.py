"""The README and the docs stay true to the code: their Python examples run (the README's print what it shows), the
commands and options they name exist, and their links resolve.

docs/usage.md's examples run in tests/test_integrations.py (with a scripted judge, for exact scores); a block that
cannot run in the suite is marked `<!-- not run: REASON -->` on the line before its fence, and must still compile.
"""

import ast
import re
import shlex
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from localjudge.cli import build_parser

REPOSITORY = Path(__file__).resolve().parents[1]
README = REPOSITORY / "README.md"
DOCS = sorted((REPOSITORY / "docs").glob("*.md"))
CARDS = [REPOSITORY / "summarization_score" / "README.md", REPOSITORY / "context_utilization" / "README.md"]
MODULES = ("summarization_score", "context_utilization")
# the pages whose unmarked Python blocks a test runs; every other page marks each of its Python blocks
RUN_HERE = (README, REPOSITORY / "docs" / "judges.md")
RUN_ELSEWHERE = {REPOSITORY / "docs" / "usage.md": "tests/test_integrations.py::test_usage_doc_runs_with_exact_scores"}

FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
NOT_RUN = re.compile(r"^\s*<!-- not run: (.*?) -->\s*$")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def relative(path):
    return str(path.relative_to(REPOSITORY))


def fenced_blocks(path):
    """Every fenced block of a Markdown file: (language, code dedented, the not-run reason or None, first line)."""
    lines, blocks, index = path.read_text().splitlines(), [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, language = opening.groups()
        end = index + 1
        while not re.match(rf"^{re.escape(indent)}```\s*$", lines[end]):
            end += 1
        mark = NOT_RUN.match(lines[index - 1]) if index else None
        code = textwrap.dedent("\n".join(lines[index + 1 : end])) + "\n"
        blocks.append((language, code, mark.group(1) if mark else None, index + 1))
        index = end + 1
    return blocks


def prose(path):
    """The file's text without its fenced blocks (which may hold `#` lines, brackets or anything)."""
    kept, inside = [], None
    for line in path.read_text().splitlines():
        fence = FENCE.match(line)
        if inside is None and fence:
            inside = fence.group(1)
        elif inside is not None and re.match(rf"^{re.escape(inside)}```\s*$", line):
            inside = None
        elif inside is None:
            kept.append(line)
    return "\n".join(kept)


def inline_code(path):
    """The page's inline code spans (a span may wrap to the next line), whitespace collapsed."""
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose(path))]


# ---------------------------------------------------------------- the Python examples
def test_the_readme_is_short_and_its_first_example_comes_early():
    lines = README.read_text().splitlines()
    assert len(lines) <= 200
    first_block = min(start for language, _, _, start in fenced_blocks(README) if language in ("bash", "python"))
    assert first_block <= 40


@pytest.mark.parametrize("path", [README, *DOCS], ids=relative)
def test_every_python_block_runs_somewhere_or_says_why_not(path):
    for language, code, reason, start in fenced_blocks(path):
        if language != "python":
            continue
        where = f"{relative(path)}:{start}"
        if reason is not None:
            assert reason.strip(), f"{where}: a not-run mark gives its reason"
            compile(code, where, "exec")  # still valid Python
        else:
            assert path in RUN_HERE or path in RUN_ELSEWHERE, f"{where}: no test runs this block; mark it not run"
    if path == README:
        assert all(reason is None for language, _, reason, _ in fenced_blocks(path) if language == "python")


@pytest.mark.parametrize("path", CARDS, ids=relative)
def test_the_cards_python_blocks_compile(path):
    for language, code, _, start in fenced_blocks(path):
        if language != "python":
            continue
        if ">>> " in code:  # a doctest: its statements, without the prompts and the printed values
            code = "\n".join(line[4:] for line in code.splitlines() if line.startswith((">>> ", "... "))) + "\n"
        compile(code, f"{relative(path)}:{start}", "exec")


def same_output(printed, expected, tolerance=0.02):
    """The same text, and numbers within `tolerance`: the README's output came from one dtype, and bf16 and fp32
    verdicts differ in the third decimal."""
    if NUMBER.sub("#", printed.strip()) != NUMBER.sub("#", expected.strip()):
        return False
    pairs = zip(NUMBER.findall(printed), NUMBER.findall(expected))
    return all(abs(float(a) - float(b)) <= tolerance for a, b in pairs)


def test_same_output_compares_text_exactly_and_numbers_within_the_tolerance():
    assert same_output("P: [0.546, 0.118]\n", "P: [0.54, 0.115]")
    assert not same_output("P: [0.546, 0.218]", "P: [0.54, 0.115]")
    assert not same_output("min: [0.667, 0.0]", "ragas: [0.667, 0.0]")
    assert not same_output("[0.1, 0.2]", "[0.1, 0.2, 0.3]")


def test_readme_examples_print_the_output_shown_below_them(monkeypatch, capsys):
    """The README's examples, run with the default judge from the repository root: each prints what the `text`
    block after it shows."""
    monkeypatch.chdir(REPOSITORY)
    blocks = fenced_blocks(README)
    examples = [(index, code) for index, (language, code, _, _) in enumerate(blocks) if language == "python"]
    assert len(examples) == 2  # one per metric
    for index, code in examples:
        language, expected, _, start = blocks[index + 1]
        assert language == "text", f"README.md: the example before line {start} has no output block after it"
        capsys.readouterr()
        exec(compile(code, f"README.md:{blocks[index][3]}", "exec"), {"__name__": "__readme__"})
        printed = capsys.readouterr().out
        assert same_output(printed, expected), f"README.md:{start}: printed\n{printed}\nthe README shows\n{expected}"


def test_judges_doc_examples_run(monkeypatch, capsys):
    monkeypatch.chdir(REPOSITORY)
    path = REPOSITORY / "docs" / "judges.md"
    ran = 0
    for language, code, reason, start in fenced_blocks(path):
        if language == "python" and reason is None:
            exec(compile(code, f"docs/judges.md:{start}", "exec"), {"__name__": "__docs__"})
            ran += 1
    assert ran >= 1
    probabilities = ast.literal_eval(capsys.readouterr().out.strip().splitlines()[-1])  # the Python API's P(yes)
    assert len(probabilities) == 1 and 0.5 < probabilities[0] <= 1  # Paris is in France


# ---------------------------------------------------------------- commands and options that exist
def subcommands():
    parser = build_parser()
    (action,) = [action for action in parser._actions if action.dest == "command"]
    return parser, action.choices


def cli_commands(path):
    """Every `localjudge …` or `python -m localjudge …` command named in the page: inline code, and lines of its
    shell blocks (continuations joined, comments dropped)."""
    texts = list(inline_code(path))
    for language, code, _, _ in fenced_blocks(path):
        if language in ("bash", "sh", "shell", ""):
            texts += [re.sub(r"(^|\s)#.*$", "", line) for line in code.replace("\\\n", " ").splitlines()]
    commands = []
    for text in texts:
        found = re.search(r"(?:^|\s|;)(?:python3? -m )?localjudge (\S.*)$", text)
        if found:
            commands.append(found.group(1).strip())
    return commands


def cli_problems(command):
    """What in one command line (the words after `localjudge`) the real parser does not have."""
    parser, commands = subcommands()
    words = [word for word in shlex.split(command, posix=True) if word not in ("...", "…")]
    if not words or words[0] in ("--version", "-h", "--help"):
        return []
    if words[0] not in commands:
        return [f"no subcommand {words[0]!r}"]
    subparser = commands[words[0]]
    options = {option for action in subparser._actions for option in action.option_strings}
    problems = [f"{words[0]} has no option {word.split('=')[0]}" for word in words[1:]
                if word.startswith("-") and word.split("=")[0] not in options]
    metric = subparser._actions[1] if words[0] == "score" else None
    if metric is not None and len(words) > 1 and not words[1].startswith("-") and words[1].isidentifier():
        if words[1] not in metric.choices and not words[1].isupper():  # METRIC is a placeholder
            problems.append(f"score has no metric {words[1]!r}")
    return problems


def test_cli_problems_finds_what_does_not_exist():
    assert cli_problems("score summarization_score data.jsonl -o scored.csv --judge smollm2-135m --details") == []
    assert cli_problems("score METRIC DATA -o OUT --confidence-level 0.95 --column summary=generated") == []
    assert cli_problems("score summarization_score data.jsonl --judges x") == ["score has no option --judges"]
    assert cli_problems("score faithfulness data.jsonl -o x.csv") == ["score has no metric 'faithfulness'"]
    assert cli_problems("export-adapter --judge qwen2.5-coder-1.5b") == []
    assert cli_problems("serve --port 8000") == ["no subcommand 'serve'"]


@pytest.mark.parametrize("path", [README, *DOCS, *CARDS], ids=relative)
def test_localjudge_commands_exist(path):
    commands = cli_commands(path)
    if path == README:
        assert len(commands) >= 4  # score, demo, judges, export-adapter
    problems = [f"`localjudge {command}`: {problem}" for command in commands for problem in cli_problems(command)]
    assert not problems, f"{relative(path)}:\n" + "\n".join(problems)


def test_readme_options_named_alone_exist():
    """The README lists the command line's options as `--name`: each is an option of a subcommand."""
    _, commands = subcommands()
    options = {option for subparser in commands.values() for action in subparser._actions for option in action.option_strings}
    named = [span for span in inline_code(README) if re.fullmatch(r"--[a-z][a-z-]*", span)]
    assert named, "the README names the command line's options"
    assert set(named) <= options, set(named) - options


def function_parameters(path, name):
    """The parameter names of function `name` in a Python file, read without importing it."""
    (function,) = [node for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.FunctionDef) and node.name == name]
    return {argument.arg for argument in function.args.args + function.args.kwonlyargs} - {"self"}


def compute_keywords():
    return {module: function_parameters(REPOSITORY / module / f"{module}.py", "_compute") for module in MODULES}


def known_keywords():
    """Every keyword the README may name: the modules' `compute`, `map_scorer`, `calibrate` and `load_judge`."""
    package = REPOSITORY / "localjudge"
    return set().union(
        *compute_keywords().values(),
        function_parameters(package / "integrations.py", "map_scorer"),
        function_parameters(package / "calibration.py", "calibrate"),
        function_parameters(package / "judges" / "registry.py", "load_judge"),
    )


def readme_keyword_problems(text):
    """Keywords of the README's text that nothing accepts: `compute(...)` calls of its Python blocks (checked against
    the module the variable was loaded from) and every `name=value` of its inline code."""
    problems, known, modules = [], known_keywords(), compute_keywords()
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    for code in blocks:
        tree, loaded = ast.parse(code), {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.args:
                source = node.value.args[0]
                if isinstance(source, ast.Constant) and str(source.value).strip("./") in modules:
                    loaded[node.targets[0].id] = str(source.value).strip("./")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "compute":
                owner = getattr(node.func.value, "id", None)
                accepted = modules[loaded[owner]] if owner in loaded else known
                problems += [f"compute({keyword.arg}=...)" for keyword in node.keywords if keyword.arg not in accepted]
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.DOTALL))
    for span in spans:
        if re.match(r"(python3? |localjudge |bash |pip )", span):
            continue  # a command line: its `INPUT=COLUMN` values are not keywords
        problems += [f"`{span}`: {name}" for name in re.findall(r"\b(\w+)=(?!=)", span) if name not in known]
    return problems


def test_readme_names_only_keywords_that_exist():
    text = README.read_text()
    assert readme_keyword_problems(text) == []
    # the check can fail: a keyword that no module has, in an example and in the prose
    assert readme_keyword_problems(text.replace('final="min", return_details', 'final="min", explain')) == [
        "compute(explain=...)"
    ]
    assert readme_keyword_problems(text + "\n- `temperature=0.2`\n") == ["`temperature=0.2`: temperature"]


def test_readme_benchmark_commands_exist():
    """`python3 benchmarks/….py --option` in the README: the script exists and takes each option."""
    commands = re.findall(r"python3 ((?:benchmarks|scripts|examples)/\S+\.py)([^`;]*)", prose(README).replace("\n", " "))
    assert commands
    for script, arguments in commands:
        source = (REPOSITORY / script).read_text()
        for option in re.findall(r"(--[a-z][a-z-]*)", arguments):
            assert f'"{option}"' in source, f"README: {script} has no option {option}"


# ---------------------------------------------------------------- links
def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path):
    seen, found = Counter(), set()
    for heading in re.findall(r"^#{1,6} (.+)$", prose(path), re.MULTILINE):
        base = slug(heading)
        found.add(base if not seen[base] else f"{base}-{seen[base]}")
        seen[base] += 1
    return found


def test_slug_is_githubs():
    assert slug("Is the new checkpoint better? Confidence intervals") == "is-the-new-checkpoint-better-confidence-intervals"
    assert slug("Inside a `Trainer`: `compute_metrics`") == "inside-a-trainer-compute_metrics"
    assert slug("Summary claims (alignment): fitted, measured, **not shipped**") == (
        "summary-claims-alignment-fitted-measured-not-shipped"
    )


@pytest.mark.parametrize("path", [README, *DOCS, *CARDS], ids=relative)
def test_relative_links_resolve(path):
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`\n]*`", "", prose(path))):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and anchor not in anchors(linked):
            broken.append(f"{target}: no such heading in {relative(linked)}")
    assert not broken, f"{relative(path)}:\n" + "\n".join(broken)


def test_benchmarks_and_tuning_open_with_what_ships():
    for name in ("benchmarks.md", "tuning.md"):
        lines = (REPOSITORY / "docs" / name).read_text().splitlines()
        heading = lines.index("## What ships")
        table = next(number for number, line in enumerate(lines) if number > heading and line.startswith("|"))
        assert table < 60, f"docs/{name}: the shipped table starts on line {table + 1}"
