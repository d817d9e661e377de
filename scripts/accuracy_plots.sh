#!/usr/bin/env bash
# Regenerates the README's accuracy plots (docs/accuracy/*.svg): ridgeline and a plain datasheet
# roofline against the held-out measurements, predicted against measured and error against
# measured time, for single kernels and whole steps on each measured GPU. The same data and
# flags as scripts/accuracy_table.sh. Usage: scripts/accuracy_plots.sh [bin]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cli/ridgeline}
data=validate/data
mkdir -p docs/accuracy

plot() {  # plot OUT.svg validate-flags...
  local out=$1
  shift
  "$bin" validate --split holdout --format markdown --plot "$out" "$@" >/dev/null
  echo "wrote $out"
}

plot docs/accuracy/h100-kernels.svg --gpu h100-sxm \
  --data $data/h100-sxm-ops-2026-11-29.json --data $data/h100-sxm-norms-2026-11-29.json
plot docs/accuracy/h100-workloads.svg --gpu h100-sxm --workloads \
  --data $data/h100-sxm-models-2026-11-29.json
plot docs/accuracy/h200-kernels.svg --gpu h200-sxm --data $data/h200-sxm-ops-2026-11-29.json
plot docs/accuracy/h200-workloads.svg --gpu h200-sxm --workloads \
  --data $data/h200-sxm-models-2026-11-29.json
