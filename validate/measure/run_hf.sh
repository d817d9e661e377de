#!/bin/bash
# Runs measure_hf.py on the GPU machine: real transformers models and single kernels by impl.
#   bash run_hf.sh OUTDIR [--smoke] [--budget-s S] ...
# Writes OUTDIR/hf.json (workload records), OUTDIR/hf-kernels.json (single kernels by impl),
# OUTDIR/log-hf.txt and a few gzipped Kineto traces OUTDIR/hf-*.json.gz.
set -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
shift
mkdir -p "$out"
PYTHONUNBUFFERED=1 python3 "$here/measure_hf.py" --out "$out/hf.json" --kernels-out "$out/hf-kernels.json" \
    --trace-dir "$out" "$@" 2>&1 | tee "$out/log-hf.txt"
