"""The plain dev pairs (../shared/devset/plain_pairs.jsonl, 64 sources in 5 languages, each with a faithful and a
wrong summary) through the metric's own path, with one alignment verdict: the default judge's shipped one (the
judge with its shipped adapter), or the likelihood verdict it gives without the adapter. No fit saw these pairs.

    python3 benchmarks/plain_pairs.py
    python3 benchmarks/plain_pairs.py --verdict likelihood
"""

import argparse
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from devset import plain_pairs_report  # noqa: E402
from localjudge import DEFAULT_JUDGE, load_judge  # noqa: E402
from localjudge.verdicts import judge_settings, stateless_setting  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verdict", choices=("shipped", "likelihood"), default="shipped")
    verdict = parser.parse_args().verdict
    judge = load_judge(DEFAULT_JUDGE)
    setting = judge_settings(judge, "alignment") if verdict == "shipped" else stateless_setting(judge, "alignment")
    print(f"# {judge!r}, alignment verdict: {verdict}")
    print(plain_pairs_report(judge, setting))


if __name__ == "__main__":
    main()
