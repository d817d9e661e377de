#!/usr/bin/env bash
# How validate/data/<gpu>-memory-rules-<date>.json was taken on a GPU machine: the memory-bound
# test grid of memory_grid.py through measure_ops.py (CUDA-graph replay over rotated inputs, as
# for every op data set), with nvidia-smi before and after. Everything goes to $OUT.
#   OUT=out validate/measure/run_memory_grid.sh h200-sxm
set -uo pipefail
gpu=${1:?usage: validate/measure/run_memory_grid.sh <gpu preset>}
out=${OUT:?set OUT}
day=$(date -u +%F)
here=$(cd "$(dirname "$0")" && pwd)
log=$out/$gpu-memory-rules-$day.log
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv
  python3 "$here/memory_grid.py" >"$out/memory.jsonl"
  start=$SECONDS
  python3 "$here/measure_ops.py" --input "$out/memory.jsonl" \
    --out "$out/$gpu-memory-rules-$day.json" --budget-s 400
  echo "measure_ops: exit $?, $((SECONDS - start)) s"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv
} >"$log" 2>&1
rm -f "$out/memory.jsonl"
tail -5 "$log"
