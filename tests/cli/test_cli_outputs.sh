#!/usr/bin/env bash
# CLI behaviour of issue 18's fixes: outputs that say what they predicted (every input in JSON
# and CSV, totals, the precision and what-ifs in the table), sweep rows for bad points, flags
# that are rejected instead of ignored, memory errors naming the flag to change, MoE routing.
# Usage: test_cli_outputs.sh path/to/ridgeline (from the repository root)
set -u
bin=$1
source "$(dirname "$0")/expect.sh"

tiny=examples/models/tiny-llama.json
pj=("$bin" predict --model "$tiny" --phase decode --batch 4 --kv-len 256 --kv-cache fp8 --format json)
expect "predict json records the batch" 0 '"batch": 4' -- "${pj[@]}"
expect "predict json records the kv_len" 0 '"kv_len": 256' -- "${pj[@]}"
expect "predict json records the KV-cache dtype" 0 '"kv_cache": "fp8"' -- "${pj[@]}"
expect "predict json records the what-ifs" 0 '"memory.hbm.bandwidth_GBps=4000"' -- "${pj[@]}" --set memory.hbm.bandwidth_GBps=4000
expect "predict csv records its inputs" 0 '# kv_len,256' -- "$bin" predict --model "$tiny" --phase decode --batch 4 --kv-len 256 --format csv
expect "predict csv has a total row" 0 'total,-1,step,step,0,' -- "$bin" predict --model "$tiny" --phase decode --batch 4 --kv-len 256 --format csv
expect "predict table names the precisions" 0 'precision  weights fp8, activations bf16, KV cache fp8' -- "$bin" predict --model "$tiny" --phase decode --batch 4 --kv-len 256 --weights fp8 --kv-cache fp8
expect "predict table names the what-ifs" 0 'what-ifs   memory.hbm.bandwidth_GBps=4000' -- "$bin" predict --model "$tiny" --phase decode --batch 4 --kv-len 256 --set memory.hbm.bandwidth_GBps=4000
expect "sweep keeps going past a bad point" 1 'bf16    4       0        256      ' -- "$bin" sweep --model "$tiny" --phase decode --kv-len 256 --batches 0,4
expect "sweep names the bad point's flag" 1 'error: --batch: must be at least 1, got 0' -- "$bin" sweep --model "$tiny" --phase decode --kv-len 256 --batches 0,4
expect "sweep counts failed points" 1 '1 of 2 points failed' -- "$bin" sweep --model "$tiny" --phase decode --kv-len 256 --batches 0,4
expect "sweep json" 0 '"tokens_per_s"' -- "$bin" sweep --model "$tiny" --phase decode --kv-len 256 --batches 1,4 --format json
expect "sweep csv" 0 'phase,runtime,launch,weights' -- "$bin" sweep --model "$tiny" --phase decode --kv-len 256 --batches 1,4 --format csv
expect "sweep takes no --trace" 2 '--trace' -- "$bin" sweep --model "$tiny" --phase decode --kv-len 256 --trace /tmp/x.json
expect "--blocks 0 is rejected" 2 '--blocks' -- "$bin" predict --model "$tiny" --phase prefill --seq 8 --blocks 0
expect "--top -1 is rejected" 2 '--top' -- "$bin" predict --model "$tiny" --phase prefill --seq 8 --top -1
expect "--top with json is rejected" 1 '--top: lists kernels in the table' -- "$bin" predict --model "$tiny" --phase prefill --seq 8 --top 3 --format json
expect "--logits in training is rejected" 1 '--logits: training computes logits for every position' -- "$bin" predict --model "$tiny" --phase train --seq 8 --logits all
expect "--activations int8 is rejected" 2 '--activations' -- "$bin" predict --model "$tiny" --phase prefill --seq 8 --activations int8
expect "prefill of a chunk over a cached prefix" 0 'seq 256 over 1024 cached' -- "$bin" predict --model "$tiny" --phase prefill --seq 256 --kv-len 1024
expect "memory error names --batch when a smaller batch fits" 1 'error: --batch: llama-3-70b decode, batch 64' -- "$bin" predict --gpu h200-sxm --model llama-3-70b --phase decode --batch 64 --kv-len 4096 --runtime fused
expect "memory error names --model when the weights do not fit" 1 'error: --model: llama-3-70b decode' -- "$bin" predict --model llama-3-70b --phase decode --batch 1 --kv-len 128
expect "memory error names --seq when the length does not fit" 1 'error: --seq: llama-3-8b train' -- "$bin" predict --model llama-3-8b --phase train --batch 1 --seq 4096 --optimizer adamw
expect "an impossible MoE imbalance names the largest" 1 '--moe-imbalance: 8 is impossible for top-2 of 8 experts' -- "$bin" predict --gpu h200-sxm --model mixtral-8x7b --phase decode --batch 64 --kv-len 2048 --moe-imbalance 8
expect "MoE decode of one token reads two experts" 0 'experts.gate_up_proj  gemm' -- "$bin" predict --gpu h200-sxm --model mixtral-8x7b --phase decode --batch 1 --kv-len 2048 --runtime fused
expect "MoE baseline holds (H200, grouped GEMMs and MoE blocks)" 0 "ok    steps/decode-graph" -- "$bin" validate --check validate/accuracy_baseline_h200_moe.json
# 128 experts, top-8, batch 8: a few dozen kernels a layer, not one set per expert.
kernels=$("$bin" predict --gpu h200-sxm --model validate/data/models/moe-128x8.json --phase decode --batch 8 --kv-len 2048 --blocks 1 --format json | grep -c '"name"')
if [[ $kernels -gt 60 ]]; then echo "FAIL 128-expert block launches $kernels kernels"; failures=$((failures + 1)); else pass=$((pass + 1)); fi

finish
