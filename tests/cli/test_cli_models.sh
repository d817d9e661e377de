#!/usr/bin/env bash
# CLI conveniences: `ridgeline models` (list and show, table and JSON), --model given a Hugging
# Face folder or hub snapshot, `--version` / `version`, and `gpus --format` with its
# "calibrated" column. Usage: test_cli_models.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

# models: the list, with shape, context and parameters (total, active)
expect "models lists the 3.1 presets" 0 "llama-3.1-8b      llama" -- "$bin" models
expect "models shows 128k context and 8.03B" 0 "    131072      8.03      8.03" -- bash -c "'$bin' models | grep '^llama-3.1-8b '"
expect "models shows MoE active parameters" 0 "         8/2     32768      46.7      12.9" -- bash -c "'$bin' models | grep '^mixtral-8x7b '"
expect "models json" 0 '"active_parameters": 12879925248' -- "$bin" models --format json
if command -v python3 >/dev/null; then
  expect "models json parses" 0 "ok" -- bash -c "'$bin' models --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert any(m[\"name\"]==\"llama-3.3-70b\" and m[\"context\"]==131072 for m in d); print(\"ok\")'"
fi
expect "models bad format" 2 "--format" -- "$bin" models --format csv

# models show: every figure with its source, parameters, KV bytes per token
expect "show: rope scaling, not the kernels" 0 "rope_scaling           llama3                  rope_scaling (RoPE's frequencies, not the kernels)" -- "$bin" models show llama-3.1-8b
expect "show: rope factor" 0 "rope_factor            8                       rope_scaling/factor" -- "$bin" models show llama-3.1-8b
expect "show: head_dim derived" 0 "hidden_size / num_attention_heads (head_dim not given)" -- "$bin" models show llama-3.1-8b
expect "show: head_dim given (3.3)" 0 "head_dim               128                     head_dim" -- "$bin" models show llama-3.3-70b
expect "show: KV bytes per token" 0 "KV cache per token 131.1 KB in bf16 (131072 B), 65.5 KB in fp8 (65536 B)" -- "$bin" models show llama-3.1-8b
expect "show: parameters" 0 "parameters        8.03 B total (8030261248), 8.03 B active per token (8030261248)" -- "$bin" models show llama-3.1-8b
expect "show: provenance" 0 "source: https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json" -- "$bin" models show llama-3.1-8b
expect "show json" 0 '"fp8": 65536.0' -- "$bin" models show llama-3.1-8b --format json
expect "show json figure source" 0 '"source": "num_local_experts"' -- "$bin" models show mixtral-8x7b --format json
expect "show: list --format before show is refused" 1 "--format: before \`show\` it formats the list" -- "$bin" models --format json show llama-3-8b
expect "show: unknown model" 1 '--model: unknown model "llama-4"' -- "$bin" models show llama-4

# --model: a Hugging Face folder or hub snapshot
snap="$tmp/hub/models--meta-llama--Llama-3.1-8B/snapshots/5206a32e0bd3067aef1ce90f5528ade7d866253f"
mkdir -p "$snap" "$tmp/empty"
cp workloads/models/llama-3.1-8b.json "$snap/config.json"
expect "show a hub snapshot" 0 "Llama-3.1-8B: model_type llama" -- "$bin" models show "$snap"
expect "predict a hub snapshot" 0 "Llama-3.1-8B decode, batch 1" -- "$bin" predict --model "$snap" --phase decode --batch 1 --kv-len 128
expect "folder without config.json" 1 "--model $tmp/empty: this folder holds no config.json" -- "$bin" predict --model "$tmp/empty" --phase decode --batch 1 --kv-len 128

# --version and version
expect "--version" 0 "ridgeline 0.1.0" -- "$bin" --version
expect "version" 0 "ridgeline 0.1.0" -- "$bin" version
expect "--version and version agree" 0 "same" -- bash -c "[[ \"\$('$bin' --version)\" == \"\$('$bin' version)\" ]] && echo same"

# gpus: --format and the calibrated column
expect "gpus: own profile" 0 "own" -- bash -c "'$bin' gpus | grep '^h100-sxm '"
expect "gpus: the architecture's profile" 0 "hopper: h100-sxm" -- bash -c "'$bin' gpus | grep '^h100-pcie '"
expect "gpus: no profile" 0 "none" -- bash -c "'$bin' gpus | grep '^a100-sxm-80gb '"
expect "gpus json" 0 '"kind": "architecture"' -- "$bin" gpus --format json
expect "gpus json names the profile's GPU" 0 '"profile_gpu": "h100-sxm"' -- "$bin" gpus --format json
expect "gpus --format before show is refused" 1 "--format: before \`show\` it formats the list" -- "$bin" gpus --format json show h100-sxm
expect "gpus show json still works" 0 '"name": "h200-sxm"' -- "$bin" gpus show h200-sxm --format json

finish
