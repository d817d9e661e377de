#!/usr/bin/env bash
# CLI behaviour of issue 14's model families: their presets predict prefill, decode and training
# steps, a config that cannot be modelled is refused naming the file and key, and the held-out
# accuracy on real transformers runs of each family holds (validate/accuracy_baseline_h200_families.json).
# Usage: test_cli_families.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

d="predict --gpu h200-sxm --phase decode --batch 8 --kv-len 4096"
expect "qwen3 decodes with QK-norm" 0 "q_norm" -- "$bin" $d --model qwen3-32b --top 40
expect "gemma-3 decodes over sliding and full sections" 0 "decoder_block.sliding" -- "$bin" $d --model gemma-3-27b
expect "gpt-oss runs eager attention with sinks under hf-transformers" 0 "attn.sinks_cat" -- "$bin" $d --model gpt-oss-20b --runtime hf-transformers --top 80
expect "llama-4 maverick interleaves MoE and dense" 0 "decoder_block.chunked.moe" -- "$bin" $d --model llama-4-maverick --ignore-memory
expect "phi-3 prefill" 0 "qkv_proj" -- "$bin" predict --gpu h200-sxm --model phi-3-medium --phase prefill --batch 1 --seq 2048 --top 40
expect "olmo-2 trains" 0 "post_mlp_norm" -- "$bin" predict --gpu h200-sxm --model olmo-2-7b --phase train --batch 1 --seq 2048 --blocks 2 --top 200
expect "gpt-oss with its checkpoint's MXFP4 experts" 0 "weights bf16 (experts mxfp4)" -- "$bin" $d --model gpt-oss-20b --runtime fused --expert-weights mxfp4
expect "mxfp4 experts json" 0 '"expert_weights": "mxfp4"' -- "$bin" $d --model gpt-oss-20b --runtime fused --expert-weights mxfp4 --format json
expect "mxfp4 experts on a dense model" 1 "--expert-weights: mxfp4: llama-3-8b has no experts" -- "$bin" $d --model llama-3-8b --expert-weights mxfp4
expect "an unknown expert format" 2 "--expert-weights" -- "$bin" $d --model gpt-oss-20b --expert-weights nvfp4
sed 's/"quant_method": "mxfp4"/"quant_method": "gptq"/' workloads/models/gpt-oss-20b.json > "$tmp/config.json"
expect "a quantization ridgeline does not model" 1 "config.json: /quantization_config/quant_method: \"gptq\" is not modelled" -- "$bin" $d --model "$tmp/config.json"
expect "a mixed-layer model over pipeline stages" 0 "TP 4, PP 2, DP 1" -- "$bin" predict --cluster dgx-h100 --gpus 8 --tp 4 --pp 2 --model gemma-3-27b --phase decode --batch 8 --kv-len 4096
expect "a mixed-layer model on one stage" 0 "TP 8, PP 1, DP 1" -- "$bin" predict --cluster dgx-h100 --gpus 8 --tp 8 --model gemma-3-27b --phase decode --batch 8 --kv-len 4096
expect "families baseline holds (H200, real transformers runs)" 0 "ok    steps/" -- "$bin" validate --check validate/accuracy_baseline_h200_families.json
expect "the fourth families run holds (all held out, measured after the model changes)" 0 "ok    steps/qwen3-30b-a3b" -- "$bin" validate --check validate/accuracy_baseline_h200_families4.json
expect "the fifth families run holds (H100, all held out, measured after the masked-softmax rule)" 0 "ok    steps/gpt-oss-20b" -- "$bin" validate --check validate/accuracy_baseline_h100_families5.json
finish
