#!/usr/bin/env bash
# On a lent GPU machine, in the call after the chunks (scripts/stage_gpu.py): install the wheels staged in
# .gpu/final, assemble the judge, convert it once, and run train_judge.py on it in bf16 for about MINUTES.
# Usage: bash scripts/gpu_train.sh MINUTES TRAIN_JUDGE_ARGUMENTS...   (the adapter and its log come back in $OUT)
# One run at a time: two 0.5B runs side by side ran out of an H100's 80 GB (docs/tuning.md, run 20).
set -euo pipefail
MINUTES=$1; shift
SITE=/tmp/site
export LOCALJUDGE_CACHE=/root/localjudge PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false TQDM_MININTERVAL=20
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .gpu/final/whl/*.whl
export PYTHONPATH="$SITE:$PWD"
python3 scripts/stage_gpu.py --assemble "$SITE" "$LOCALJUDGE_CACHE"
python3 scripts/train_judge.py "$@" --minutes "$MINUTES" --output "$OUT/adapter.safetensors" 2>&1 | tee "$OUT/train.log" \
    | grep -E "^(pool|continuing|validation|saved|stopping)|Error"
