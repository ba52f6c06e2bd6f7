"""Judge load time: cold (first load, empty cache) and warm (cache populated) for the embedded judges.

Each load runs in a NEW Python subprocess with LOCALJUDGE_CACHE pointing at a fresh temporary directory:

* cold: the directory is empty, so the load includes the sha256 check of the embedded files, the GGUF
  de-quantization and saving the converted model;
* warm: the same directory again (already populated), repeated `--repeats` times, median reported; the load
  still includes the sha256 check of the embedded files.

"load s" is measured inside the subprocess around `load_judge(name)` only (torch and transformers are
imported before the timer starts); "wall s" is the whole subprocess, Python start and imports included.

    python3 benchmarks/load_time.py [--judges smollm2-135m qwen2.5-coder-0.5b] [--repeats 3]
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_S = 5.0

CHILD = r"""
import json, sys, time
import torch, transformers
from transformers import AutoModelForCausalLM, AutoTokenizer
import localjudge.judges.local
from localjudge import load_judge
start = time.perf_counter()
judge = load_judge(sys.argv[1])
seconds = time.perf_counter() - start
print(json.dumps({"load_s": seconds, "judge": repr(judge)}))
"""


def run_child(name: str, cache_dir: str) -> dict:
    env = dict(os.environ, LOCALJUDGE_CACHE=cache_dir, HF_HUB_OFFLINE="1")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, name], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"loading {name} failed with exit code {done.returncode}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = wall
    return result


def measure(name: str, repeats: int) -> dict:
    cache_dir = tempfile.mkdtemp(prefix="localjudge-load-time-")
    try:
        cold = run_child(name, cache_dir)
        warm = [run_child(name, cache_dir) for _ in range(repeats)]
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    return {
        "judge": name,
        "cold_load_s": cold["load_s"],
        "cold_wall_s": cold["wall_s"],
        "warm_load_s": statistics.median(run["load_s"] for run in warm),
        "warm_wall_s": statistics.median(run["wall_s"] for run in warm),
        "warm_load_runs": [run["load_s"] for run in warm],
    }


def main():
    from localjudge import EMBEDDED_JUDGES

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judges", nargs="+", default=list(EMBEDDED_JUDGES), choices=list(EMBEDDED_JUDGES))
    parser.add_argument("--repeats", type=int, default=3, help="warm loads per judge (median reported)")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()

    import torch
    import transformers

    print(
        f"# {platform.platform()}, python {platform.python_version()}, torch {torch.__version__}, "
        f"transformers {transformers.__version__}, {os.cpu_count()} CPU cores, "
        f"CUDA {'yes' if torch.cuda.is_available() else 'no'}, load average {os.getloadavg()[0]:.2f}"
    )
    results = []
    for name in args.judges:
        print(f"# measuring {name} ...", flush=True)
        results.append(measure(name, args.repeats))

    header = ("judge", "cold load s", "cold wall s", f"warm load s (median of {args.repeats})", "warm wall s",
              f"warm / {TARGET_S:g} s target")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in results:
        cells = (
            row["judge"],
            f"{row['cold_load_s']:.1f}",
            f"{row['cold_wall_s']:.1f}",
            f"{row['warm_load_s']:.2f}",
            f"{row['warm_wall_s']:.1f}",
            f"{row['warm_load_s'] / TARGET_S:.2f}",
        )
        print("| " + " | ".join(cells) + " |")
    print("# warm load runs: " + "; ".join(f"{r['judge']}: {', '.join(f'{s:.2f}' for s in r['warm_load_runs'])}" for r in results))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
