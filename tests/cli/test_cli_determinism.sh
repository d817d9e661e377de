#!/usr/bin/env bash
# Deterministic output: the same inputs give byte-identical output, run after run, whatever the
# environment's locale, thread-count or timezone variables say. (Across build types: the goldens
# are compared byte for byte under both the Release build and the Debug ASan/UBSan build in CI,
# so -O0 and -O2 floating point give the same bytes.) Usage: test_cli_determinism.sh RIDGELINE_BIN
bin=$1
source "$(dirname "$0")/expect.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

same() {  # same NAME -- command...: two runs, the second under other environment settings
  local name=$1
  shift 2
  "$@" >"$tmp/a" 2>&1
  LC_ALL=C.UTF-8 LANG=de_DE.UTF-8 TZ=Asia/Kolkata OMP_NUM_THREADS=7 "$@" >"$tmp/b" 2>&1
  if cmp -s "$tmp/a" "$tmp/b" && [[ -s "$tmp/a" ]]; then
    pass=$((pass + 1))
  else
    echo "FAIL $name: two runs differ (or printed nothing)"; diff "$tmp/a" "$tmp/b" | head -5
    failures=$((failures + 1))
  fi
}

same predict-json -- "$bin" predict --gpu h100-sxm --model llama-3-8b --phase decode --batch 32 \
  --kv-len 2048 --format json
same predict-train-csv -- "$bin" predict --gpu h200-sxm --model mixtral-8x7b --phase train \
  --batch 1 --seq 2048 --blocks 2 --format csv
same predict-trace -- "$bin" predict --gpu h100-sxm --model llama-3-8b --phase prefill --batch 1 \
  --seq 512 --blocks 1 --trace /dev/stdout
same op-jsonl -- "$bin" op --gpu h200-sxm --input tests/golden/ops.jsonl --format jsonl
same sweep-json -- "$bin" sweep --gpu h100-sxm --model llama-3-8b --phase decode --kv-len 1024 \
  --batch 1,8,64 --format json
same validate -- "$bin" validate --data validate/data/h100-sxm-ops-2026-11-29.json
finish
