#!/usr/bin/env bash
# HSDP on a cluster (`predict --cluster ... --zero 3 --fsdp-shard N`): the prediction names its
# shard group and replicas, holds more state per GPU than ZeRO-3 over all dp ranks, and
# one expectation per error message (each names the flag and the numbers); a Nemotron-shaped
# config (hidden_act relu2) predicts with its relu2 kernel.
# Usage: test_cli_fsdp.sh path/to/ridgeline
set -u
bin=$1
source "$(dirname "$0")/expect.sh"

run=(predict --model llama-3-8b --phase train --seq 4096 --microbatch 1 --global-batch 64 --cluster dgx-h100)
expect "hsdp names its groups" 0 "ZeRO 3 sharded over 8 dp ranks x 2 replicas (HSDP)" -- "$bin" "${run[@]}" --gpus 16 --zero 3 --fsdp-shard 8
expect "hsdp in the JSON strategy" 0 "\"fsdp_shard\": 8" -- "$bin" "${run[@]}" --gpus 16 --zero 3 --fsdp-shard 8 --format json
if command -v python3 >/dev/null; then
  mem='python3 -c "import json,sys; print(json.load(sys.stdin)[\"memory_per_gpu\"][\"total_bytes\"])"'
  total='python3 -c "import json,sys; print(json.load(sys.stdin)[\"total_us\"])"'
  expect "a shard group of 8 holds more state per GPU than one of 16" 0 "ok" -- bash -c "a=\$('$bin' ${run[*]} --gpus 16 --zero 3 --format json | $mem); b=\$('$bin' ${run[*]} --gpus 16 --zero 3 --fsdp-shard 8 --format json | $mem); python3 -c \"assert \$b > \$a; print('ok')\""
  expect "a shard group of all dp ranks is ZeRO-3" 0 "ok" -- bash -c "a=\$('$bin' ${run[*]} --gpus 16 --zero 3 --format json | $total); b=\$('$bin' ${run[*]} --gpus 16 --zero 3 --fsdp-shard 16 --format json | $total); python3 -c \"assert \$b == \$a; print('ok')\""
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/nemotron.json" <<'JSON'
{"model_type": "nemotron", "hidden_size": 4096, "num_hidden_layers": 4, "num_attention_heads": 32,
 "num_key_value_heads": 8, "intermediate_size": 16384, "vocab_size": 256000,
 "max_position_embeddings": 4096, "hidden_act": "relu2", "partial_rotary_factor": 0.5}
JSON
expect "nemotron's relu2 kernel" 0 "relu2" -- "$bin" predict --model "$tmp/nemotron.json" --phase prefill --batch 1 --seq 1024 --gpu h100-sxm --top 40
expect "nemotron on a cluster" 0 "HSDP" -- "$bin" predict --model "$tmp/nemotron.json" --phase train --seq 4096 --microbatch 1 --global-batch 32 --cluster dgx-h100 --gpus 16 --zero 3 --fsdp-shard 8

# errors
expect "shard 0" 1 "--fsdp-shard: a shard group of at least 1 data-parallel rank, got 0" -- "$bin" "${run[@]}" --gpus 16 --zero 3 --fsdp-shard 0
expect "shard without ZeRO-3" 1 "--fsdp-shard: shards the parameters over part of the data-parallel group: needs --zero 3, got --zero 1" -- "$bin" "${run[@]}" --gpus 16 --zero 1 --fsdp-shard 8
expect "shard not dividing dp" 1 "--fsdp-shard: 3 does not divide --dp 16 into replicas of the shard group" -- "$bin" "${run[@]}" --gpus 16 --zero 3 --fsdp-shard 3
expect "shard without a cluster" 1 "--fsdp-shard: a parallel strategy needs --cluster" -- "$bin" predict --model llama-3-8b --phase train --seq 128 --fsdp-shard 8
expect "shard in inference" 1 "--zero: ZeRO shards training state; inference has none" -- "$bin" predict --model llama-3-8b --phase prefill --seq 128 --cluster dgx-h100 --gpus 8 --zero 3 --fsdp-shard 4
expect "shard with experts" 1 "--fsdp-shard: a shard group (4) smaller than --dp 8 with --ep 2" -- "$bin" predict --model mixtral-8x7b --phase train --seq 4096 --microbatch 1 --global-batch 64 --cluster dgx-h100 --gpus 64 --tp 8 --zero 3 --ep 2 --fsdp-shard 4
finish
