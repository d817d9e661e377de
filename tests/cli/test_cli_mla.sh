#!/usr/bin/env bash
# CLI behaviour of DeepSeek-V2/V3 (multi-head latent attention, workloads/mla_config.h): the
# presets show their MLA figures, both MLA forms predict, what is not priced yet is refused with
# the file and field, and the accuracy baseline on transformers' DeepseekV3 (H200) holds.
# Usage: test_cli_mla.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

expect "models show: the latent cache" 0 "576 per token" -- "$bin" models show deepseek-v3
expect "models show: the checkpoint's FP8 blocks" 0 "fp8 e4m3 128x128" -- "$bin" models show deepseek-v3
expect "V2-Lite has no q LoRA" 0 "none (q_proj)" -- "$bin" models show deepseek-v2-lite
p="predict --gpu h200-sxm --model deepseek-v3 --blocks 4 --phase decode --batch 16 --kv-len 2048 --top 80"
expect "hf-transformers decompresses the cache" 0 "kv_b_proj" -- "$bin" $p --runtime hf-transformers
expect "fused runs the absorbed form" 0 "q_absorb_uk" -- "$bin" $p --runtime fused
expect "a prefill" 0 "moe_block" -- "$bin" predict --gpu h200-sxm --model deepseek-v3 --blocks 4 --phase prefill --seq 2048 --runtime fused --top 80
expect "dense + MoE layers over pipeline stages, each stage its own" 0 "PP 3, DP 1" -- "$bin" predict --cluster dgx-h100 --gpus 3 --pp 3 --model deepseek-v2-lite --phase decode --batch 8 --kv-len 1024
expect "dense + MoE layers on one stage, tensor and expert parallel" 0 "TP 2, PP 1, DP 4, EP 4" -- "$bin" predict --cluster dgx-h100 --gpus 8 --tp 2 --dp 4 --ep 4 --model deepseek-v2-lite --phase decode --batch 8 --kv-len 1024
sed 's/"qk_rope_head_dim": 64/"qk_rope_head_dim": 64, "qk_head_dim": 190/' workloads/models/deepseek-v3.json > "$tmp/ds.json"
expect "inconsistent head dims name the file and field" 1 "ds.json: /qk_head_dim: 190 is not qk_nope_head_dim + qk_rope_head_dim (128 + 64)" -- "$bin" models show "$tmp/ds.json"
expect "deepseek baseline holds (H200, transformers' DeepseekV3)" 0 "ok    steps/deepseek-v3" -- "$bin" validate --check validate/accuracy_baseline_h200_families.json
finish
