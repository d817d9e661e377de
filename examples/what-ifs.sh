#!/usr/bin/env bash
# Engineer doing what-ifs: decode throughput from batch 1 to 256, bf16 against fp8 weights,
# and what 30% faster HBM would give.
set -euo pipefail
bin=${RIDGELINE:-build/cli/ridgeline}
"$bin" sweep --gpu h100-sxm --model llama-3-8b --phase decode --kv-len 2048 --batches 1,16,64,256 --weight-dtypes bf16,fp8
"$bin" sweep --gpu h100-sxm --set memory.hbm.bandwidth_GBps=4355 --model llama-3-8b --phase decode --kv-len 2048 \
  --batches 1,16,64,256
"$bin" op --gpu h100-sxm --input examples/ops/gemm-what-ifs.jsonl --format table
# Relative and compute what-ifs: 30% faster HBM, and 12 more SMs (the stated peaks follow).
"$bin" predict --gpu h100-sxm --set memory.hbm.bandwidth_GBps=+30% --model llama-3-8b --phase decode --batch 64 --kv-len 2048 --top 3
"$bin" predict --gpu h100-sxm --set compute.sm_count=144 --model llama-3-8b --phase prefill --batch 1 --seq 4096 --top 3
