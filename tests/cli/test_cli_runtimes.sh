#!/usr/bin/env bash
# CLI behaviour of --runtime: a preset by name, a runtime file by path (its kernels in the
# output, its name in the description), and one message naming the file and JSON path for each
# way a runtime file can be wrong. Usage: test_cli_runtimes.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

tiny=examples/models/tiny-llama.json
hf=examples/runtimes/hf-fused-rope-norm.json
step=(predict --model "$tiny" --phase decode --batch 4 --kv-len 256 --format csv)

expect "preset by name" 0 ',rope_and_cache_write,' -- "$bin" "${step[@]}" --runtime fused
expect "default is pytorch-eager" 0 ',q_rope_neg,' -- "$bin" "${step[@]}"
expect "runtime file by path: its kernels" 0 ',rope,' -- "$bin" "${step[@]}" --runtime "$hf"
expect "runtime file by path: its fused norm" 0 ',fused_add_post_norm,' -- "$bin" "${step[@]}" --runtime "$hf"
expect "runtime file by path: named after the file" 0 'hf-fused-rope-norm on h100-sxm' -- "$bin" predict --model "$tiny" --phase decode --batch 4 --kv-len 256 --runtime "$hf"
expect "runtime file in JSON inputs" 0 '"runtime": "hf-fused-rope-norm"' -- "$bin" predict --model "$tiny" --phase decode --batch 4 --kv-len 256 --runtime "$hf" --format json
expect "sweep takes a runtime file" 0 'hf-fused-rope-norm' -- "$bin" sweep --model "$tiny" --phase decode --kv-len 256 --batches 1,4 --runtime "$hf"

expect "unknown preset" 1 '--runtime: unknown runtime "vllm"; presets: fused, hf-transformers, pytorch-eager, torch-compile' -- "$bin" "${step[@]}" --runtime vllm
expect "missing runtime file" 1 "$tmp/none.json: cannot open file" -- "$bin" "${step[@]}" --runtime "$tmp/none.json"

sed 's/"rope": "fused"/"rope": "fused", "rope_kernel": "triton"/' "$hf" > "$tmp/key.json"
expect "unknown key" 1 "$tmp/key.json: /attention/rope_kernel: unknown key" -- "$bin" "${step[@]}" --runtime "$tmp/key.json"
sed 's/"rope": "fused"/"rope": true/' "$hf" > "$tmp/type.json"
expect "wrong type" 1 "$tmp/type.json: /attention/rope: expected a string, got true" -- "$bin" "${step[@]}" --runtime "$tmp/type.json"
sed 's/"rope": "fused"/"rope": "triton"/' "$hf" > "$tmp/choice.json"
expect "unknown choice" 1 "$tmp/choice.json: /attention/rope: expected one of hf_rotate_half, fused, inductor; got \"triton\"" -- "$bin" "${step[@]}" --runtime "$tmp/choice.json"
sed 's/"update": "copy_per_kv"/"update": "fused_with_rope"/; s/"rope": "fused"/"rope": "hf_rotate_half"/' "$hf" > "$tmp/combo.json"
expect "impossible combination" 1 "$tmp/combo.json: /kv_cache/update: \"fused_with_rope\" writes the cache" -- "$bin" "${step[@]}" --runtime "$tmp/combo.json"
echo '{"description": "x",' > "$tmp/syntax.json"
expect "bad JSON" 1 "$tmp/syntax.json" -- "$bin" "${step[@]}" --runtime "$tmp/syntax.json"

finish
