#!/usr/bin/env bash
# Install localjudge and score a few examples with the embedded judge.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh
python3 examples/quickstart.py
