#!/usr/bin/env bash
# FP8 training on a cluster (`predict --cluster ... --phase train --precision fp8`): the
# prediction names its recipe and beats bf16 on a compute-bound step, and one expectation per
# error message (each names the flag, and the GPU file where the GPU is at fault).
# Usage: test_cli_fp8.sh path/to/ridgeline
set -u
bin=$1
source "$(dirname "$0")/expect.sh"

run=(predict --model llama-3-8b --phase train --seq 4096 --microbatch 1 --global-batch 64 --gpus 8 --tp 1)
expect "fp8 names its recipe" 0 "FP8 delayed" -- "$bin" "${run[@]}" --cluster dgx-h100 --precision fp8
expect "fp8 in the JSON inputs" 0 "\"fp8_recipe\": \"delayed\"" -- "$bin" "${run[@]}" --cluster dgx-h100 --precision fp8 --format json
expect "fp8 current scaling" 0 "FP8 current" -- "$bin" "${run[@]}" --cluster dgx-h100 --precision fp8 --fp8-recipe current
expect "fp8 parameter gather" 0 "(fp8 parameter gather)" -- "$bin" "${run[@]}" --cluster dgx-h100 --precision fp8 --zero 1 --fp8-param-gather
expect "mxfp8 on B200" 0 "FP8 mxfp8" -- "$bin" "${run[@]}" --cluster dgx-b200 --precision fp8 --fp8-recipe mxfp8
if command -v python3 >/dev/null; then
  expect "fp8 faster than bf16 (compute-bound)" 0 "ok" -- bash -c "a=\$('$bin' ${run[*]} --cluster dgx-h100 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"total_us\"])'); b=\$('$bin' ${run[*]} --cluster dgx-h100 --precision fp8 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"total_us\"])'); python3 -c \"assert \$b < \$a / 1.2; print('ok')\""
fi

# errors
expect "fp8 on A100" 1 "--precision fp8: a100-sxm-80gb has no fp8 tensor cores (" -- "$bin" "${run[@]}" --cluster dgx-a100 --precision fp8
expect "fp8 on A100 names the file" 1 "a100-sxm-80gb.json)" -- "$bin" "${run[@]}" --cluster dgx-a100 --precision fp8
expect "mxfp8 on Hopper" 1 "--fp8-recipe mxfp8: microscaling FP8 needs Blackwell tensor cores; h100-sxm is hopper" -- "$bin" "${run[@]}" --cluster dgx-h100 --precision fp8 --fp8-recipe mxfp8
expect "unknown recipe" 2 "--fp8-recipe: hybrid not in {delayed,current,blockwise,mxfp8}" -- "$bin" "${run[@]}" --cluster dgx-h100 --precision fp8 --fp8-recipe hybrid
expect "unknown precision" 2 "--precision: fp16 not in {bf16,fp8}" -- "$bin" "${run[@]}" --cluster dgx-h100 --precision fp16
expect "recipe without fp8" 1 "--fp8-recipe: only with --precision fp8" -- "$bin" "${run[@]}" --cluster dgx-h100 --fp8-recipe current
expect "param gather without fp8" 1 "--fp8-param-gather: only with --precision fp8" -- "$bin" "${run[@]}" --cluster dgx-h100 --zero 1 --fp8-param-gather
expect "param gather without ZeRO" 1 "--fp8-param-gather: the distributed optimizer's parameter all-gather runs with --zero 1 or 2" -- "$bin" "${run[@]}" --cluster dgx-h100 --precision fp8 --fp8-param-gather
expect "fp8 without a cluster" 1 "--precision fp8: FP8 training is predicted on a cluster" -- "$bin" predict --model llama-3-8b --phase train --seq 128 --precision fp8
expect "fp8 outside training" 1 "--precision fp8: Transformer Engine FP8 is a training precision; --phase prefill" -- "$bin" predict --model llama-3-8b --phase prefill --seq 128 --cluster dgx-h100 --gpus 8 --precision fp8
finish
