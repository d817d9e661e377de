#!/usr/bin/env bash
# Regenerates the golden outputs under tests/golden/ from the current build. Review the diff
# (git diff tests/golden) before committing: every changed number is a changed prediction.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cli/ridgeline}
in=tests/golden/ops.jsonl
"$bin" op --gpu h100-sxm --format jsonl --input "$in" > tests/golden/ops_h100.expected.jsonl 2>/dev/null || true
"$bin" op --gpu h100-sxm --format csv --input "$in" > tests/golden/ops_h100.expected.csv 2>/dev/null || true
"$bin" op --gpu h100-sxm --format table --input "$in" > tests/golden/ops_h100.expected.txt 2>/dev/null || true
tiny=examples/models/tiny-llama.json
"$bin" predict --model $tiny --phase prefill --batch 2 --seq 128 --format csv > tests/golden/predict_tiny_prefill.expected.csv
"$bin" predict --model $tiny --phase decode --batch 4 --kv-len 256 --runtime fused --format csv > tests/golden/predict_tiny_decode_fused.expected.csv
"$bin" predict --model $tiny --phase train --batch 2 --seq 128 --optimizer adamw --recompute --format csv > tests/golden/predict_tiny_train.expected.csv
echo "golden files regenerated; review with: git diff tests/golden"
