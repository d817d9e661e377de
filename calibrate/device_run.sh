#!/usr/bin/env bash
# How validate/data/<gpu>-calibration-<date>.json was taken on a GPU machine: builds the CUDA
# suite with the toolkit alone (cmake -S calibrate), then runs `ridgeline calibrate run` (the
# suite, plus attention and PyTorch's row kernels through validate/measure/measure_ops.py) and
# `ridgeline calibrate fit` on its file alone, full and --quick, timing each. Everything goes to
# $OUT. The ridgeline binary comes from this checkout (RIDGELINE=..., a static build where the
# GPU machine lacks the project's C++ packages).
#   OUT=out calibrate/device_run.sh h200-sxm
set -uo pipefail
gpu=${1:?usage: calibrate/device_run.sh <gpu preset>}
out=${OUT:?set OUT}
bin=${RIDGELINE:-build-dev/cli/ridgeline}
day=$(date -u +%F)
{ cmake -S calibrate -B build-cal -DCMAKE_BUILD_TYPE=Release && cmake --build build-cal -j; } \
  >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
for mode in full quick; do
  flag=""; [[ $mode == quick ]] && flag=--quick
  m=$out/$gpu-calibration-$mode-$day.json
  start=$SECONDS
  "$bin" calibrate run $flag --bench build-cal/ridgeline-gpu-bench --scripts validate/measure \
    --out "$m" >"$out/run-$mode.log" 2>&1
  echo "calibrate run $flag: exit $?, $((SECONDS - start)) s" | tee -a "$out/run-$mode.log"
  start=$SECONDS
  "$bin" calibrate fit --gpu "$gpu" --data "$m" --force --out "$out/$gpu-profile-$mode-$day.json" \
    >>"$out/run-$mode.log" 2>&1
  echo "calibrate fit: exit $?, $((SECONDS - start)) s" | tee -a "$out/run-$mode.log"
  tail -5 "$out/run-$mode.log"
done
