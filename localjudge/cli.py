"""The `localjudge` command line. Subcommands register themselves in `build_parser`.

localjudge judges                                   # the embedded judges
localjudge score summarization_score data.jsonl -o scored.jsonl --judge smollm2-135m
localjudge score context_utilization data.jsonl -o scored.jsonl --judge http://127.0.0.1:8000/v1
localjudge demo                                     # two tiny examples per metric
localjudge export-adapter                           # the tuned judge's adapter, for vLLM --lora-modules
python -m localjudge judges                         # the same, where the script is not on PATH
"""

import argparse
import sys
from pathlib import Path

from . import __version__
from .integrations import METRICS, input_columns, map_scorer, summary_table
from .judges.served import JudgeServerError
from .judges.registry import DEFAULT_JUDGE, EMBEDDED_JUDGES, JudgeFileError, resolve_judge
from .maths import check_confidence_level

JUDGE_HELP = (
    f"judge name, path, hub id, or a vLLM server's address http://HOST:PORT/v1[#MODEL] (default: {DEFAULT_JUDGE})"
)
# the `datasets` builder that reads each extension
READERS = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}
# the Dataset method (and its arguments) that writes each extension
WRITERS = {".jsonl": ("to_json", {"lines": True}), ".csv": ("to_csv", {"index": False}), ".parquet": ("to_parquet", {})}
# the values vLLM's LoRAConfig accepts for --max-lora-rank
VLLM_MAX_LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)

# Made-up examples for `localjudge demo`: a faithful and an unfaithful summary of one source, and one
# answer's chunks retrieved with the useful chunk first and then last.
DEMO_SOURCE = (
    "The town of Westvale opened its first public library on Saturday. The building was paid for by the "
    "Harlow family. It holds twelve thousand books and a small cinema."
)
DEMO_CHUNKS = [
    "The Westvale library opened on Saturday and holds twelve thousand books.",
    "Westvale's football club won the regional cup last spring.",
]
DEMO_ROWS = {
    "summarization_score": {
        "summary": [
            "Westvale opened its first public library on Saturday.",
            "The Harlow family closed the Westvale cinema.",
        ],
        "contexts": [[DEMO_SOURCE], [DEMO_SOURCE]],
    },
    "context_utilization": {
        "question": ["How many books does the Westvale library hold?"] * 2,
        "answer": ["It holds twelve thousand books."] * 2,
        "contexts": [DEMO_CHUNKS, DEMO_CHUNKS[::-1]],
    },
}


class InputError(Exception):
    """A problem with what the user gave the command, reported in one line without a traceback."""


def _judges(args) -> int:
    """Print the embedded judges: name, model, size, license."""
    rows = [("name", "model", "size", "license")]
    for judge in EMBEDDED_JUDGES.values():
        name = judge.name + (" (default)" if judge.name == DEFAULT_JUDGE else "")
        rows.append((name, judge.model, judge.size, judge.license))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    return 0


def _scorer(metric_name, judge, **kwargs):
    """`map_scorer`, with a judge that cannot be found or loaded reported as an input error."""
    try:
        return map_scorer(metric_name, judge=judge, **kwargs)
    except (JudgeFileError, OSError, ValueError) as error:
        raise InputError(str(error)) from error


def _read(path: Path):
    import datasets

    if path.suffix.lower() not in READERS:
        raise InputError(f"cannot read '{path}': unsupported extension; use one of {', '.join(READERS)}")
    if not path.is_file():
        raise InputError(f"no such file: '{path}'")
    if path.stat().st_size == 0:
        raise InputError(f"'{path}' is empty")
    builder = READERS[path.suffix.lower()]
    # the builders fail in many ways on a bad file (a DatasetGenerationError wrapping the parser's error,
    # ArrowInvalid, ...): whichever it is, the file could not be read
    try:
        return datasets.load_dataset(builder, data_files=str(path), split="train")
    except Exception as error:
        raise InputError(f"cannot read '{path}' as {builder}: {error.__cause__ or error}") from error


def _score(args) -> int:
    """Score a data file with `map_scorer`, write it with the score columns added, print the means."""
    data, out = Path(args.data), Path(args.output)
    if out.suffix.lower() not in WRITERS:
        raise InputError(f"cannot write '{out}': unsupported extension; use one of {', '.join(WRITERS)}")
    columns = dict(args.column)
    dataset = _read(data)
    if args.limit is not None:
        dataset = dataset.select(range(min(args.limit, len(dataset))))
    try:
        input_columns(args.metric, dataset.column_names, columns)
    except ValueError as error:
        raise InputError(f"{data}: {error}") from error
    scorer = _scorer(args.metric, args.judge, columns=columns, details=args.details, settings=args.settings, progress=True)
    scored = dataset.map(scorer, batched=True, batch_size=args.batch_size, desc=f"Scoring {args.metric}")
    method, options = WRITERS[out.suffix.lower()]
    getattr(scored, method)(str(out), **options)
    frame = scored.select_columns(list(METRICS[args.metric].per_row)).to_pandas()
    heading = f"Wrote {len(scored)} rows to {out} (judge: {scorer.judge.name}). Means over the scored rows"
    if args.confidence_level is not None:
        heading += f", with the {args.confidence_level * 100:g}% bootstrap interval of the {args.metric} mean"
    print(heading + ":")
    table = summary_table(frame, confidence_level=args.confidence_level)
    print(table.to_string(index=False, float_format="{:.4f}".format))
    return 0


def _demo(args) -> int:
    """Score the built-in examples of each metric and print them with their scores."""
    import datasets

    for metric_name, rows in DEMO_ROWS.items():
        scorer = _scorer(metric_name, args.judge)
        scored = datasets.Dataset.from_dict(rows).map(scorer, batched=True).remove_columns("contexts")
        print(f"\n{metric_name} (judge: {scorer.judge.name})")
        print(scored.to_pandas().to_string(max_colwidth=48, float_format="{:.3f}".format))
    return 0


def vllm_max_lora_rank(rank: int) -> int:
    """The `--max-lora-rank` that serves an adapter of LoRA rank `rank`: vLLM takes only some values (an adapter of
    r 4, the 1.5B judge's, is served under 8)."""
    return min(value for value in VLLM_MAX_LORA_RANKS if value >= rank)


def _export_adapter(args) -> int:
    """Write a judge's shipped adapter as a peft directory and print how to serve it with vLLM beside its model."""
    from .learned.tuning import export_adapter, shipped_adapter  # torch and peft: imported only here

    try:
        adapter = shipped_adapter(args.judge)
    except (FileNotFoundError, ValueError) as error:  # no adapter ships for that judge, or its file is altered
        raise InputError(str(error)) from None
    directory, rank = export_adapter(args.judge, args.output), vllm_max_lora_rank(adapter.config["lora"]["r"])
    print(f"adapter written to {directory}\nserve it beside its judge's model (the judge's address is the model's; a "
          "tuned verdict asks for the adapter by itself):")
    print(f"vllm serve {resolve_judge(args.judge).source} --served-model-name {args.judge} --enable-lora "
          f"--max-lora-rank {rank} --lora-modules {args.judge}-tuned={directory}")
    return 0


def _column_pair(text):
    name, separator, column = text.partition("=")
    if not (separator and name and column):
        raise argparse.ArgumentTypeError(f"expected INPUT=COLUMN, e.g. summary=generated; got {text!r}")
    return name, column


def _confidence_level(text):
    # checked here, before any row is scored, rather than when the interval is computed after all of them
    level = float(text)
    try:
        check_confidence_level(level)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error
    return level


def _positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="localjudge", description="LLM-as-judge metrics on a local model.")
    parser.add_argument("--version", action="version", version=f"localjudge {__version__}")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND")

    judges = subcommands.add_parser("judges", help="list the embedded judges")
    judges.set_defaults(handler=_judges)

    score = subcommands.add_parser(
        "score",
        help="score a jsonl/json/csv/parquet file and write it with score columns",
        description="Score every row of DATA and write it, with the metric's score columns added, to OUT "
        "(jsonl, csv or parquet, by extension). Input columns are found by the metric's input names, by "
        "Ragas' or Mastra's names for them, or by --column.",
    )
    score.add_argument("metric", choices=list(METRICS))
    score.add_argument("data", metavar="DATA", help="a .jsonl, .json, .csv or .parquet file")
    score.add_argument("-o", "--output", metavar="OUT", required=True, help="the output file: .jsonl, .csv or .parquet")
    score.add_argument("--judge", metavar="NAME", default=DEFAULT_JUDGE, help=JUDGE_HELP)
    score.add_argument("--limit", metavar="N", type=_positive, help="score only the first N rows")
    score.add_argument("--details", action="store_true", help="add per-row details (reason, error, ...) as JSON text")
    score.add_argument(
        "--settings", metavar="FILE", help="verdict settings fitted to your labels (a JSON file from localjudge.calibrate)"
    )
    score.add_argument(
        "--batch-size", metavar="N", type=_positive, default=64, help="rows given to the judge together (default: 64)"
    )
    score.add_argument(
        "--confidence-level",
        metavar="LEVEL",
        type=_confidence_level,
        help="also print a bootstrap confidence interval of the score's mean at LEVEL, e.g. 0.95",
    )
    score.add_argument(
        "--column",
        type=_column_pair,
        action="append",
        default=[],
        metavar="INPUT=COLUMN",
        help="read an input from another column, e.g. --column summary=generated (repeatable)",
    )
    score.set_defaults(handler=_score)

    demo = subcommands.add_parser("demo", help="score two tiny built-in examples per metric")
    demo.add_argument("--judge", metavar="NAME", default=DEFAULT_JUDGE, help=JUDGE_HELP)
    demo.set_defaults(handler=_demo)

    export = subcommands.add_parser(
        "export-adapter",
        help="write a judge's tuned adapter for a vLLM server (--enable-lora) and print the command that serves it",
    )
    export.add_argument("--judge", metavar="NAME", default=DEFAULT_JUDGE, help=f"an embedded judge (default: {DEFAULT_JUDGE})")
    export.add_argument(
        "-o", "--output", metavar="DIR", help="where to write it (default: <cache>/adapters/<judge>-adapter-<fingerprint>)"
    )
    export.set_defaults(handler=_export_adapter)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    try:
        return args.handler(args)
    except (InputError, JudgeServerError) as error:  # a served judge's server found unfit while scoring
        print(f"localjudge: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
