#!/usr/bin/env bash
# How validate/data/<gpu>-moe-<date>.json and <gpu>-grouped-gemm-<date>.json were taken on a GPU
# machine, in one go: measure_moe.py (MoE decoder blocks through measure_models.py's harness, full
# kernel traces of every case) with nvidia-smi before and after, then grouped_gemm_grid.py through
# run_grid.sh (measure_ops.py). Everything goes to $OUT.
#   OUT=out validate/measure/run_moe.sh h200-sxm
set -uo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: validate/measure/run_moe.sh <gpu preset>" >&2
  exit 2
fi
gpu=$1
out=${OUT:?set OUT}
day=$(date -u +%F)
here=$(cd "$(dirname "$0")" && pwd)
log=$out/$gpu-moe-$day.log
smi() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv
}
{
  smi
  start=$SECONDS
  PYTHONUNBUFFERED=1 python3 "$here/measure_moe.py" --out "$out/$gpu-moe-$day.json" \
    --budget-s "${MOE_BUDGET_S:-150}" --trace .
  echo "measure_moe: exit $?, $((SECONDS - start)) s"
  smi
} >"$log" 2>&1
tail -12 "$log"
BUDGET_S=${GEMM_BUDGET_S:-200} "$here/run_grid.sh" grouped_gemm_grid.py grouped-gemm "$gpu"
