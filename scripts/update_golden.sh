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
echo "golden files regenerated; review with: git diff tests/golden"
