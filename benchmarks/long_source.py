"""A claim supported only by the end of a long source: judged whole, with no character dropped, in time linear in
the source's length.

Made-up sources of N characters (filler sentences about committees and reports, then one sentence that holds
the claim's evidence) are scored through `localjudge.score_summaries` with a supported and a contradicted
claim; the script prints per length the windows, the seconds, both claims' probabilities and verdicts, the
evidence sentence found, and whether any truncation warning was recorded.

With `--blank-runs`, no judge runs: the script times how a source and a summary are read (`read_source` and
`source_sentences`, `claim_sentences`) when a run of N blank characters (spaces, tabs, blank lines) parts their two
sentences, as a PDF's or a web page's text can have; the time should grow linearly with N.

    python benchmarks/long_source.py --lengths 20000 40000 80000
    python benchmarks/long_source.py --blank-runs --lengths 20000 40000 80000
"""

import argparse
import os
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from localjudge import load_judge, score_summaries  # noqa: E402
from localjudge.summarization import window_ranges  # noqa: E402
from localjudge.text import claim_sentences, clean, read_source, source_sentences  # noqa: E402

TOWNS = ("Millbrook", "Dunmere", "Ravenford", "Castleford", "Elmstead", "Harwick", "Tarn", "Brenmoor")
TOPICS = ("bus timetables", "street lighting", "school meals", "park benches", "library hours", "road repairs")
EVIDENCE = "The Harlow Bay pool will reopen on 14 March 2031, after its roof has been rebuilt."
SUPPORTED = "The Harlow Bay pool reopens on 14 March 2031."
CONTRADICTED = "The Harlow Bay pool reopens on 2 June 2029."


def long_source(characters: int) -> str:
    """Filler sentences up to `characters`, then the evidence sentence at the very end."""
    sentences, index = [], 0
    while sum(len(s) + 1 for s in sentences) + len(EVIDENCE) < characters:
        town, topic = TOWNS[index % len(TOWNS)], TOPICS[index % len(TOPICS)]
        sentences.append(f"In session {index + 1}, the {town} committee reviewed {3 + index % 17} reports on {topic}.")
        index += 1
    return " ".join(sentences + [EVIDENCE])


def time_blank_runs(lengths):
    """Print the seconds taken to read a source and a summary of two sentences parted by a run of each length of
    spaces, of tabs and of blank lines."""
    for blank, name in ((" ", "spaces"), ("\t", "tabs"), ("\n", "blank lines")):
        for length in lengths:
            text = f"{SUPPORTED}{blank * length}{EVIDENCE}"
            started = time.perf_counter()
            sentences = source_sentences(read_source(clean(text)))
            as_source = time.perf_counter() - started
            started = time.perf_counter()
            claims = claim_sentences(clean(text))
            as_summary = time.perf_counter() - started
            print(f"{length:>6} {name:<11}: read as a source {as_source:6.2f} s ({len(sentences)} sentences), "
                  f"as a summary {as_summary:6.2f} s ({len(claims)} claims)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", default="qwen2.5-coder-0.5b")
    parser.add_argument("--lengths", type=int, nargs="+", default=[20000, 40000, 80000])
    parser.add_argument("--blank-runs", action="store_true", help="time reading text parted by long blank runs")
    args = parser.parse_args()
    if args.blank_runs:
        return time_blank_runs(args.lengths)
    judge = load_judge(args.judge)
    print(f"# {judge!r}")
    for length in args.lengths:
        source = long_source(length)
        windows = window_ranges(judge, source_sentences(source))
        started = time.time()
        rows = score_summaries(judge, [SUPPORTED, CONTRADICTED], [[source], [source]], cache=False, progress=False)
        seconds = time.time() - started
        supported, contradicted = (row["claims"][0] for row in rows)
        truncated = any("truncated" in warning for row in rows for warning in row["warnings"])
        print(
            f"{len(source):>6} chars, {len(windows):>3} windows, {seconds:6.1f} s: supported p={supported['p_yes']:.3f} "
            f"({supported['supported']}), contradicted p={contradicted['p_yes']:.3f} ({contradicted['supported']}), "
            f"evidence found: {supported['evidence'] == EVIDENCE}, truncated: {truncated}"
        )


if __name__ == "__main__":
    main()
