#!/usr/bin/env bash
# Regenerates the README's accuracy table: ridgeline and a plain datasheet roofline against the
# held-out H100 measurements (never used to set a parameter). Usage: scripts/accuracy_table.sh [bin]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cli/ridgeline}
echo "Single kernels (held-out):"
"$bin" validate --gpu h100-sxm --split holdout --format markdown \
  --data validate/data/h100-sxm-ops-2026-11-29.json --data validate/data/h100-sxm-norms-2026-11-29.json
echo
echo "Whole steps, Llama-3-8B-shaped PyTorch models (held-out):"
"$bin" validate --gpu h100-sxm --split holdout --format markdown --workloads \
  --data validate/data/h100-sxm-models-2026-11-29.json
