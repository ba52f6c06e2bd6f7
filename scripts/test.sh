#!/usr/bin/env bash
# Install localjudge with the test extras and run the full test suite offline.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh test
# -rs lists skipped tests with their reason (e.g. the widget tests on a machine without Chromium)
HF_HUB_OFFLINE=1 exec python3 -m pytest -q -rs tests "$@"
