#!/usr/bin/env bash
# CLI behaviour of the engine file's KV cache precision ("kv_cache": {"dtype": ...}): under
# --precision fp8, `ridgeline serve --engine sglang` (dtype "activations": SGLang's
# kv_cache_dtype auto) holds a bf16 cache, so the same engine with dtype "weights" holds twice
# the tokens in the same bytes; a bf16 run is the same either way; a bad or missing key is one
# message naming the file and JSON path. Usage: test_cli_kv_dtype.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

src="$(dirname "$0")/../../serve/engines/sglang.json"
sed 's/"dtype": "activations"/"dtype": "weights"/' "$src" > "$tmp/sglang-fp8kv.json"
sed 's/, "dtype": "activations"//' "$src" > "$tmp/no-dtype.json"
sed 's/"dtype": "activations"/"dtype": "fp8"/' "$src" > "$tmp/bad-dtype.json"

run=(serve --gpu h200-sxm --model llama-3.1-8b --input-len 256 --output-len 16 --requests 8 --rate 8)
tokens() {  # the KV line's blocks (of 1 token for SGLang)
  "$bin" "${run[@]}" --engine "$1" --precision "$2" | sed -n 's/^KV cache: \([0-9]*\) blocks.*/\1/p'
}
a=$(tokens sglang fp8)
w=$(tokens "$tmp/sglang-fp8kv.json" fp8)
expect "fp8: the weights' rule holds twice the activations' tokens" 0 "" -- \
  test "$(( (2 * a - w) * 1000 / w ))" -eq 0
ab=$(tokens sglang bf16)
wb=$(tokens "$tmp/sglang-fp8kv.json" bf16)
expect "bf16: both rules hold the same tokens" 0 "" -- test "$ab" -eq "$wb"
expect "missing dtype" 1 "no-dtype.json: /kv_cache/dtype: missing" -- \
  "$bin" "${run[@]}" --engine "$tmp/no-dtype.json"
expect "bad dtype" 1 'bad-dtype.json: /kv_cache/dtype: expected one of weights, activations; got "fp8"' -- \
  "$bin" "${run[@]}" --engine "$tmp/bad-dtype.json"
finish
