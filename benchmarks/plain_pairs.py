"""The plain dev pairs (../shared/devset/plain_pairs.jsonl, 64 sources in 5 languages, each with a faithful and a
wrong summary) through the metric's own path, with one alignment verdict: the default judge's shipped one, its
grounding head, or the judge with its shipped adapter. No fit saw these pairs.

    python3 benchmarks/plain_pairs.py --verdict tuned
"""

import argparse
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from devset import plain_pairs_report  # noqa: E402
from localjudge import DEFAULT_JUDGE, load_judge  # noqa: E402
from localjudge.prompts import TUNED_ALIGNMENT, Verdict  # noqa: E402
from localjudge.verdicts import judge_settings  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verdict", choices=("shipped", "head", "tuned"), default="tuned")
    verdict = parser.parse_args().verdict
    judge = load_judge(DEFAULT_JUDGE)
    shipped = judge_settings(judge, "alignment")
    setting = {"shipped": shipped, "head": Verdict("head", window_tokens=shipped.window_tokens, head=DEFAULT_JUDGE),
               "tuned": TUNED_ALIGNMENT}[verdict]
    print(f"# {judge!r}, alignment verdict: {verdict}")
    print(plain_pairs_report(judge, setting))


if __name__ == "__main__":
    main()
