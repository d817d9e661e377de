#!/usr/bin/env bash
# NVFP4 from the command line: predict names the weights and runs the dequantising path where
# the GPU has no FP4 tensor cores, serve and capacity take --precision nvfp4 (no interval stated:
# the BF16/FP8 rows' intervals do not hold for NVFP4), op lines take an nvfp4 GEMM, and one
# expectation per error message.
# Usage: test_cli_nvfp4.sh path/to/ridgeline
set -u
bin=$1
source "$(dirname "$0")/expect.sh"

dec=(predict --model llama-3-8b --phase decode --batch 8 --kv-len 1024)
expect "nvfp4 on b200" 0 "weights nvfp4" -- "$bin" "${dec[@]}" --gpu b200 --weights nvfp4
expect "nvfp4 on h100 (dequantising path)" 0 "weights nvfp4" -- "$bin" "${dec[@]}" --gpu h100-sxm --weights nvfp4
expect "nvfp4 training refused" 1 "--weights: nvfp4 weights are for inference" -- "$bin" predict --model llama-3-8b --phase train --seq 1024 --gpu b200 --weights nvfp4
expect "nvfp4 activations refused" 2 "--activations: nvfp4 not in {bf16,fp16,fp32,fp8}" -- "$bin" "${dec[@]}" --gpu b200 --activations nvfp4
expect "nvfp4 with mxfp4 experts refused" 1 "--expert-weights: mxfp4: not with --weights nvfp4" -- "$bin" predict --model mixtral-8x7b --phase decode --batch 8 --kv-len 1024 --gpu b200 --weights nvfp4 --expert-weights mxfp4
srv=(serve --gpu b200 --model llama-3.1-8b --engine trtllm --input-len 1000 --output-len 200 --requests 100 --rate inf)
expect "serve nvfp4" 0 "engine trtllm (nvfp4)" -- "$bin" "${srv[@]}" --precision nvfp4
expect "serve nvfp4 says why it states no interval" 0 "80% intervals  none for nvfp4" -- "$bin" "${srv[@]}" --precision nvfp4
out=$("$bin" "${srv[@]}" --precision nvfp4 2>&1)
if [[ "$out" == *"80% intervals  TTFT"* ]]; then
  echo "FAIL serve nvfp4 states no interval: found one"; failures=$((failures + 1))
else
  pass=$((pass + 1))
fi
expect "serve nvfp4 json says why" 0 '"intervals_note": "none for nvfp4' -- "$bin" "${srv[@]}" --precision nvfp4 --format json
expect "serve fp8 still states its interval" 0 "80% intervals  TTFT" -- "$bin" "${srv[@]}" --precision fp8
expect "serve bad precision" 2 "--precision: int4 not in {bf16,fp16,fp8,nvfp4}" -- "$bin" "${srv[@]}" --precision int4
expect "capacity nvfp4" 0 "nvfp4" -- "$bin" capacity --gpu b200 --model llama-3.1-8b --engine trtllm --precision nvfp4 --input-len 1000 --output-len 200 --requests 100 --slo ttft_p99=2s --target-rate 10
expect "op nvfp4 gemm" 0 '"op":"gemm"' -- bash -c "echo '{\"op\":\"gemm\",\"m\":8192,\"n\":8192,\"k\":8192,\"dtype\":\"nvfp4\"}' | \"$bin\" op --gpu b200 --input -"
expect "op nvfp4 attention refused" 1 "/dtype: attention runs in fp32, bf16, fp16 or fp8; got nvfp4" -- bash -c "echo '{\"op\":\"attention\",\"batch\":1,\"heads\":8,\"kv_heads\":8,\"q_len\":128,\"kv_len\":128,\"head_dim\":128,\"causal\":true,\"dtype\":\"nvfp4\"}' | \"$bin\" op --gpu b200 --input -"
finish
