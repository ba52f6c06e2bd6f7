"""The texts a new user tries first, scored by the default judge in fp32 and in bf16: the README's example
(examples/quickstart.py) and Ragas' documented fitness-app example.

Prints, per dtype, each summary's claim probabilities and alignment, and each ranking's chunk probabilities and
score. The verdicts must hold in both dtypes: a CPU without AVX512-BF16 runs fp32 by default.

    python3 benchmarks/first_tries.py
    python3 benchmarks/first_tries.py --verdict likelihood   # claims judged by the likelihood verdict (no adapter)
"""

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import quickstart  # noqa: E402  (the README's example)

from localjudge import DEFAULT_JUDGE, load_judge, score_contexts, score_summaries  # noqa: E402
from localjudge.prompts import ALIGNMENT_Q10  # noqa: E402

# other verdicts of claims than the shipped one (the tuned judge's)
VERDICTS = {"likelihood": ALIGNMENT_Q10}

# Ragas' documentation example for SummarizationScore (310-character source, 183-character summary)
RAGAS_SOURCE = (
    "A company is launching a new product, a smartphone app designed to help users track their fitness goals. The "
    "app allows users to set daily exercise targets, log their meals, and track their water intake. It also "
    "provides personalized workout recommendations and sends motivational reminders throughout the day."
)
RAGAS_SUMMARY = (
    "A company is launching a fitness tracking app that helps users set exercise goals, log meals, and track water "
    "intake, with personalized workout suggestions and motivational reminders."
)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verdict", choices=sorted(VERDICTS), help="judge claims by another verdict than the shipped one")
    verdict = parser.parse_args().verdict
    settings = {"alignment": VERDICTS[verdict]} if verdict else None
    summaries = {**quickstart.SUMMARIES, "Ragas fitness app (faithful)": RAGAS_SUMMARY}
    sources = [[quickstart.SOURCE]] * len(quickstart.SUMMARIES) + [[RAGAS_SOURCE]]
    for dtype in ("float32", "bfloat16"):
        judge = load_judge(DEFAULT_JUDGE, dtype=dtype)
        print(f"# {judge!r}")
        rows = score_summaries(judge, list(summaries.values()), sources, final="min", settings=settings, cache=False, progress=False)
        for name, row in zip(summaries, rows):
            claims = [round(claim["p_yes"], 3) for claim in row["claims"]]
            print(f"  {name}: P(claim supported) {claims}, alignment {row['alignment_score']:.2f}")
        questions, answers = [quickstart.QUESTION] * 2, [quickstart.ANSWER] * 2
        rankings = score_contexts(judge, questions, answers, list(quickstart.RANKINGS.values()), cache=False, progress=False)
        for name, row in zip(quickstart.RANKINGS, rankings):
            chunks = [round(chunk["p_useful"], 3) for chunk in row["chunks"]]
            print(f"  {name}: P(useful) {chunks}, score {row['score']:.2f}")


if __name__ == "__main__":
    main()
