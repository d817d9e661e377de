#!/usr/bin/env bash
# How validate/data/<gpu>-<name>-<date>.json test sets were taken on a GPU machine: a grid
# script's ops (memory_grid.py -> memory-rules, gemm_layout_grid.py -> gemm-layouts) through
# measure_ops.py (CUDA-graph replay over rotated inputs, as for every op data set), with
# nvidia-smi before and after. Everything goes to $OUT.
#   OUT=out validate/measure/run_grid.sh memory_grid.py memory-rules h200-sxm
# BUDGET_S (default 400) is measure_ops.py's --budget-s.
set -uo pipefail
if [[ $# -ne 3 ]]; then
  echo "usage: validate/measure/run_grid.sh <grid.py> <name> <gpu preset>" >&2
  exit 2
fi
grid=$1 name=$2 gpu=$3
out=${OUT:?set OUT}
day=$(date -u +%F)
here=$(cd "$(dirname "$0")" && pwd)
log=$out/$gpu-$name-$day.log
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv
  python3 "$here/$grid" >"$out/ops.jsonl"
  start=$SECONDS
  python3 "$here/measure_ops.py" --input "$out/ops.jsonl" \
    --out "$out/$gpu-$name-$day.json" --budget-s "${BUDGET_S:-400}"
  echo "measure_ops: exit $?, $((SECONDS - start)) s"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv
} >"$log" 2>&1
rm -f "$out/ops.jsonl"
tail -5 "$log"
