#!/usr/bin/env bash
# Regenerates the README's accuracy plots (docs/accuracy/*.html, and *.png screenshots of them
# when chromium is installed): ridgeline and a plain datasheet roofline against the held-out
# measurements, predicted against measured and error against measured time, for single kernels
# and whole steps on each measured GPU. `validate --plot FILE.html` writes the `report validate`
# page (Vega-Lite); the same data and flags as scripts/accuracy_table.sh.
# Usage: scripts/accuracy_plots.sh [bin]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cli/ridgeline}
data=validate/data
mkdir -p docs/accuracy
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

plot() {  # plot NAME validate-flags...
  local out=docs/accuracy/$1.html
  shift
  "$bin" validate --split holdout --format markdown --plot "$out" "$@" >/dev/null
  echo "wrote $out"
  if command -v chromium >/dev/null; then
    timeout 120 chromium --headless --disable-gpu --no-sandbox --no-first-run \
      --user-data-dir="$profile" --virtual-time-budget=30000 --window-size=1200,1800 \
      --screenshot="${out%.html}.png" "file://$PWD/$out" 2>/dev/null
    echo "wrote ${out%.html}.png"
  fi
}

plot h100-kernels --gpu h100-sxm \
  --data $data/h100-sxm-ops-2026-11-29.json --data $data/h100-sxm-norms-2026-11-29.json
plot h100-workloads --gpu h100-sxm --workloads --data $data/h100-sxm-models-2026-11-29.json
plot h200-kernels --gpu h200-sxm --data $data/h200-sxm-ops-2026-11-29.json
plot h200-workloads --gpu h200-sxm --workloads --data $data/h200-sxm-models-2026-11-29.json
