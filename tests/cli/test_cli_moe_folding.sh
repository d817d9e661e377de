#!/usr/bin/env bash
# Megatron's MoE parallel folding on a cluster (`predict --cluster ... --ep E --etp 1 --sp`): the
# prediction names it, the JSON strategy carries etp, and one expectation per error message (each
# names the flag and the numbers).
# Usage: test_cli_moe_folding.sh path/to/ridgeline
set -u
bin=$1
source "$(dirname "$0")/expect.sh"

run=(predict --model qwen3-30b-a3b --phase train --seq 4096 --microbatch 1 --global-batch 64 --cluster dgx-h100 --gpus 16)
expect "folding is named" 0 "EP 16 (ETP 1, folded)" -- "$bin" "${run[@]}" --tp 2 --sp --ep 16 --etp 1
expect "etp in the JSON strategy" 0 "\"etp\": 1" -- "$bin" "${run[@]}" --tp 2 --sp --ep 16 --etp 1 --format json
expect "etp in the strategy text" 0 "ep=16,etp=1,sp=1" -- "$bin" "${run[@]}" --tp 2 --sp --ep 16 --etp 1 --format json
expect "etp = tp is the default layout" 0 "EP 8," -- "$bin" "${run[@]}" --tp 2 --sp --ep 8 --etp 2

# errors
expect "etp below 1" 1 "--etp: must be at least 1, got 0" -- "$bin" "${run[@]}" --tp 2 --sp --ep 8 --etp 0
expect "etp neither tp nor 1" 1 "got --etp 4" -- "$bin" "${run[@]}" --tp 2 --sp --ep 8 --etp 4
expect "etp without a cluster" 1 "--etp: a parallel strategy needs --cluster" -- "$bin" predict --model qwen3-30b-a3b --phase train --seq 4096 --etp 1
expect "folding needs sp" 1 "needs --sp" -- "$bin" "${run[@]}" --tp 2 --ep 8 --etp 1
expect "etp on a dense model" 1 "has no experts to split" -- "$bin" predict --model llama-3-8b --phase train --seq 4096 --microbatch 1 --global-batch 64 --cluster dgx-h100 --gpus 16 --tp 2 --sp --etp 1
expect "folded ep beyond tp x cp x dp" 1 "--ep 32 must divide 16" -- "$bin" "${run[@]}" --tp 2 --sp --ep 32 --etp 1
expect "split ep beyond dp, with the hint" 1 "(Megatron's MoE parallel folding, --etp 1 --sp" -- "$bin" "${run[@]}" --tp 2 --sp --ep 16
expect "folding with a smaller HSDP group" 1 "--etp: --etp 1 with an --fsdp-shard group" -- "$bin" "${run[@]}" --tp 2 --sp --ep 1 --etp 1 --zero 3 --fsdp-shard 4
expect "etp in a compared strategy" 1 "etp=0: expected 1 or the tp" -- "$bin" compare --model qwen3-30b-a3b --seq 4096 --global-batch 64 --cluster dgx-h100 --gpus 16 --strategy "tp=2,ep=16,etp=0,sp=1" --strategy "tp=2,ep=8,sp=1"
expect "compare marks a folded strategy" 0 "16f on" -- "$bin" compare --model qwen3-30b-a3b --seq 4096 --global-batch 64 --cluster dgx-h100 --gpus 16 --strategy "tp=2,ep=16,etp=1,sp=1" --strategy "tp=2,ep=8,sp=1"
finish
