"""The plain dev pairs (../shared/devset/plain_pairs.jsonl, 64 sources in 5 languages, each with a faithful and a
wrong summary) through the metric's own path, with one alignment verdict: the default judge's shipped one, or
the judge with its shipped adapter. No fit saw these pairs.

    python3 benchmarks/plain_pairs.py --verdict tuned
"""

import argparse
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from devset import plain_pairs_report  # noqa: E402
from localjudge import DEFAULT_JUDGE, load_judge  # noqa: E402
from localjudge.prompts import TUNED_ALIGNMENT  # noqa: E402
from localjudge.verdicts import judge_settings  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verdict", choices=("shipped", "tuned"), default="tuned")
    verdict = parser.parse_args().verdict
    judge = load_judge(DEFAULT_JUDGE)
    setting = judge_settings(judge, "alignment") if verdict == "shipped" else TUNED_ALIGNMENT
    print(f"# {judge!r}, alignment verdict: {verdict}")
    print(plain_pairs_report(judge, setting))


if __name__ == "__main__":
    main()
