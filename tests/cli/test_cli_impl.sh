#!/usr/bin/env bash
# CLI behaviour of kernel implementations as choices: `ridgeline op` takes "impl" on JSONL lines
# and --impl from flags, every view names the implementation that ran, bad names and
# implementations the op kind, dtype or GPU lacks are one clear error each (naming the line and
# JSON path, or the flags), predict takes --attention-backend and names the backend in its kernel
# list, and the held-out accuracy baseline of the implementations holds.
# Usage: test_cli_impl.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

attn="--op attention --batch 1 --heads 32 --kv-heads 8 --head-dim 128 --q-len 2048 --kv-len 2048 --causal"
# shellcheck disable=SC2086
{
expect "op names SDPA's pick on Hopper" 0 "cudnn: 128x128 tiles" -- "$bin" op --gpu h200-sxm $attn
expect "op names SDPA's pick on Ampere" 0 "flash2: " -- "$bin" op --gpu a100-sxm-80gb $attn
expect "op --impl flash2 on Hopper" 0 "flash2: 128x64 tiles" -- "$bin" op --gpu h200-sxm $attn --impl flash2
expect "op --impl math in JSON" 0 '"impl": "math"' -- "$bin" op --gpu h200-sxm $attn --impl math --format json
expect "op --impl efficient in CSV" 0 ",efficient," -- "$bin" op --gpu h200-sxm $attn --impl efficient --format csv
expect "op --impl unknown" 1 'flags: /impl: unknown implementation "flash9"; attention takes cudnn, flash2, flash3, efficient, math' -- "$bin" op --gpu h200-sxm $attn --impl flash9
expect "op --impl flash3 before Hopper" 1 "flags: /impl: flash3 (FlashAttention-3) runs only on Hopper GPUs (sm_90); a100-sxm-80gb is ampere" -- "$bin" op --gpu a100-sxm-80gb $attn --impl flash3
expect "op --impl flash3 on Hopper" 0 "flash3: 128x128 tiles" -- "$bin" op --gpu h100-sxm $attn --impl flash3
expect "op --impl flash2 with head_dim 512" 1 "flags: /head_dim: flash2 supports head_dim up to 256 (efficient and math take more); got 512" -- "$bin" op --gpu h200-sxm --op attention --batch 1 --heads 8 --kv-heads 8 --head-dim 512 --q-len 128 --kv-len 128 --impl flash2
expect "op --impl flash2 in fp32" 1 "flags: /impl: flash2 runs in bf16 or fp16, not fp32" -- "$bin" op --gpu h200-sxm $attn --impl flash2 --dtype fp32
expect "op --impl on a gemm" 1 "flags: /impl: gemm has no implementation choice" -- "$bin" op --gpu h200-sxm --op gemm --m 8 --n 8 --k 8 --impl aten
expect "op --impl of another kind" 1 'flags: /impl: "flash2" is not an implementation of rmsnorm; rmsnorm takes aten, triton' -- "$bin" op --gpu h200-sxm --op rmsnorm --rows 8 --cols 4096 --impl flash2
expect "op norms run ATen by default" 0 "aten: " -- "$bin" op --gpu h200-sxm --op rmsnorm --rows 4096 --cols 4096
expect "op norms --impl triton" 0 "triton: " -- "$bin" op --gpu h200-sxm --op softmax --rows 4096 --cols 4096 --impl triton
expect "op elementwise --impl generic" 0 "generic: " -- "$bin" op --gpu h200-sxm --op elementwise --kind copy --numel 1048576 --impl generic
}

cat > "$tmp/ops.jsonl" <<'JSONL'
{"id":"fa2","op":"attention","batch":1,"heads":32,"kv_heads":8,"head_dim":128,"q_len":1,"kv_len":8192,"causal":false,"dtype":"bf16","impl":"flash2"}
{"id":"bad","op":"layernorm","rows":8,"cols":4096,"dtype":"bf16","impl":"tritonn"}
{"id":"fa3","op":"attention","batch":1,"heads":32,"kv_heads":8,"head_dim":128,"q_len":1,"kv_len":8192,"causal":false,"dtype":"bf16","impl":"flash3"}
JSONL
expect "jsonl line names its impl" 1 '{"id":"fa2","op":"attention","impl":"flash2"' -- "$bin" op --gpu a100-sxm-80gb --input "$tmp/ops.jsonl"
expect "jsonl bad impl names the line and path" 1 "$tmp/ops.jsonl line 2: /impl: unknown implementation \"tritonn\"; layernorm takes aten, triton" -- "$bin" op --gpu a100-sxm-80gb --input "$tmp/ops.jsonl"
expect "jsonl flash3 off Hopper names the line" 1 "$tmp/ops.jsonl line 3: /impl: flash3 (FlashAttention-3) runs only on Hopper GPUs" -- "$bin" op --gpu a100-sxm-80gb --input "$tmp/ops.jsonl"

run="--gpu h200-sxm --model llama-3-8b --phase prefill --batch 1 --seq 2048 --blocks 1 --runtime hf-transformers"
# shellcheck disable=SC2086
{
expect "predict names SDPA's pick in its kernel list" 0 '"impl": "cudnn"' -- "$bin" predict $run --format json
expect "predict --attention-backend flash2" 0 '"impl": "flash2"' -- "$bin" predict $run --attention-backend flash2 --format json
expect "predict CSV names the backend" 0 ",cudnn" -- "$bin" predict $run --format csv
expect "predict --attention-backend unknown" 1 "--attention-backend xformers: unknown attention backend; expected one of sdpa, cudnn, flash2, flash3, efficient, math" -- "$bin" predict $run --attention-backend xformers
expect "predict --attention-backend flash3 before Hopper" 1 "/impl: flash3 (FlashAttention-3) runs only on Hopper GPUs" -- "$bin" predict --gpu a100-sxm-80gb --model llama-3-8b --phase prefill --batch 1 --seq 2048 --blocks 1 --attention-backend flash3
}

expect "impl baseline holds (H200, SDPA backends and ATen norms)" 0 "ok    kernels/attention/flash2" -- "$bin" validate --check validate/accuracy_baseline_h200_impl.json
expect "impl baseline holds on other head shapes (H200, second run)" 0 "ok    kernels/attention/cudnn" -- "$bin" validate --check validate/accuracy_baseline_h200_impl_shapes.json
expect "row-kernel baseline holds (H200, ATen norms and softmax over rows x cols x dtype)" 0 "ok    kernels/softmax/aten" -- "$bin" validate --check validate/accuracy_baseline_h200_rows.json
expect "masked SDPA and odd-width softmax hold (H200, transformers' window masks)" 0 "ok    kernels/attention/sdpa" -- "$bin" validate --check validate/accuracy_baseline_h200_masks.json
expect "masked softmax holds (H200, rows masked to the dtype's min, causal)" 0 "ok    kernels/softmax/aten" -- "$bin" validate --check validate/accuracy_baseline_h200_masked_softmax.json
expect "masked softmax holds on the H100 (nothing fitted there)" 0 "ok    kernels/softmax/aten" -- "$bin" validate --check validate/accuracy_baseline_h100_masked_softmax.json
expect "routed grouped GEMMs hold on the H100 (all held out)" 0 "ok    kernels/gemm" -- "$bin" validate --check validate/accuracy_baseline_h100_routed_grouped.json
expect "the generic path by view dims holds (H200, view-dims and MLA-copy grids)" 0 "ok    kernels/elementwise" -- "$bin" validate --check validate/accuracy_baseline_h200_views.json
expect "validate scores each implementation as a family" 0 "attention/efficient" -- "$bin" validate --data validate/data/h200-sxm-hf-kernels-2026-12-01.json --split holdout
finish
