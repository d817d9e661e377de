#!/usr/bin/env bash
# Capacity planner: "What decode throughput does Llama-3-70B give on one H200 (which we don't
# own), and how large a batch fits?" In bf16 the weights alone take 141 GB, so fp8 weights and
# KV cache; then the same on a B200, and Llama-3-8B on a GPU described by hand.
set -euo pipefail
bin=${RIDGELINE:-build/cli/ridgeline}
fp8="--weights fp8 --kv-cache fp8 --runtime fused"
"$bin" predict --gpu h200-sxm --model llama-3-70b --phase decode --batch 64 --kv-len 4096 $fp8 --top 5
"$bin" sweep --gpu h200-sxm --model llama-3-70b --phase decode --kv-len 4096 $fp8 --batches 1,16,64,128,256
"$bin" predict --gpu b200 --model llama-3-70b --phase decode --batch 64 --kv-len 4096 $fp8 --format json \
  | grep -E '"(total_us|tokens_per_s)"'
"$bin" predict --gpu examples/gpus/h100-fast-hbm.json --model llama-3-8b --phase decode --batch 32 --kv-len 2048 --top 3
# An MoE model: only the experts that receive tokens read their weights, so decode cost grows
# with the batch until every expert is busy.
"$bin" sweep --gpu h200-sxm --model mixtral-8x7b --phase decode --kv-len 2048 --runtime fused --batches 1,4,16,64,256
