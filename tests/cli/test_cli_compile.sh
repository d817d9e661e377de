#!/usr/bin/env bash
# CLI behaviour of issue 11's compile area: `predict --phase generate` (TTFT, per token, total in
# every format, and one error per bad flag combination), the torch-compile runtime and the
# mixed-precision training flags. Usage: test_cli_compile.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

p="predict --gpu h200-sxm --model llama-3-8b"
g="$p --phase generate --seq 512 --new-tokens 64"
expect "generate: table" 0 "time to first token" -- "$bin" $g
expect "generate: table per token" 0 "(decode over 512..574 cached tokens, priced at 543" -- "$bin" $g
expect "generate: json" 0 '"per_token_us":' -- "$bin" $g --format json
expect "generate: csv" 0 "ttft_us,per_token_us,total_us,tokens_per_s,memory_bytes,fits" -- "$bin" $g --format csv
expect "generate: any runtime" 0 '"runtime": "hf-transformers"' -- "$bin" $g --runtime hf-transformers --launch eager --format json
expect "generate: one new token" 0 "per token            -" -- "$bin" $p --phase generate --seq 512 --new-tokens 1
expect "--new-tokens without generate" 1 "--new-tokens: the tokens of a generate() call; only with --phase generate" -- "$bin" $p --phase decode --kv-len 512 --new-tokens 4
expect "generate without --seq" 1 "--seq: --phase generate needs the prompt's tokens (>= 1)" -- "$bin" $p --phase generate --new-tokens 4
expect "generate without --new-tokens" 1 "--new-tokens: --phase generate needs the tokens to generate" -- "$bin" $p --phase generate --seq 512
expect "generate with --new-tokens 0" 1 "--new-tokens: generate needs at least one new token, got 0" -- "$bin" $p --phase generate --seq 512 --new-tokens 0
expect "generate past the model's positions" 1 "--new-tokens: 512 prompt tokens and 8000 new tokens reach 8511 positions" -- "$bin" $p --phase generate --seq 512 --new-tokens 8000
expect "generate refuses --top" 1 "--top: shows the kernels of one step; not with --phase generate" -- "$bin" $g --top 5
expect "generate refuses --trace" 1 "--trace: shows the kernels of one step; not with --phase generate" -- "$bin" $g --trace "$tmp/t.json"
expect "generate refuses --cluster" 1 "--phase generate: a generate() call on one GPU; not with --cluster" -- "$bin" $g --cluster dgx-h200 --gpus 8
expect "generate too big for memory" 1 "at its last step but h200-sxm has" -- "$bin" $p --phase generate --seq 4096 --new-tokens 4096 --batch 512
expect "sweep refuses generate" 1 "--phase generate: sweep prices single steps (prefill, decode, train); predict prices generate()" -- "$bin" sweep --model llama-3-8b --phase generate --seq 512 --new-tokens 4 --batches 1,2
expect "sweep refuses --new-tokens" 1 "--new-tokens: the tokens of a generate() call; only with --phase generate" -- "$bin" sweep --model llama-3-8b --phase prefill --seq 512 --new-tokens 4 --batches 1,2

# torch-compile (workloads/runtimes/torch-compile.json, workloads/inductor_kernels.cpp)
d="$p --phase decode --batch 1 --kv-len 512 --runtime torch-compile"
expect "torch-compile: k's RoPE writes the cache" 0 "k_rope_cache_write" -- "$bin" $d --top 60
expect "torch-compile: repeat_kv and the mask" 0 "k_repeat_kv" -- "$bin" $d --top 60
expect "torch-compile: --max-cache-len" 0 "step " -- "$bin" $d --max-cache-len 528
expect "torch-compile: --launch graph (reduce-overhead)" 0 "graph launch" -- "$bin" $d --launch graph
expect "torch-compile: no --kv-cache-impl" 1 "--kv-cache-impl: runtime torch-compile does not use transformers' cache classes" -- "$bin" $d --kv-cache-impl static
base=workloads/runtimes/torch-compile.json
sed 's/"mask": "inductor_sdpa"/"mask": "hf_sdpa"/' $base > "$tmp/a.json"
expect "torch-compile: Inductor's set goes together" 1 "a.json: /attention: rope \"inductor\", rope_tables \"inline_per_forward\" and mask \"inductor_sdpa\" are TorchInductor's compiled set" -- "$bin" $p --phase decode --batch 1 --kv-len 512 --runtime "$tmp/a.json"
sed 's/"update": "none"/"update": "copy_per_kv"/' $base > "$tmp/b.json"
expect "torch-compile: Inductor writes the cache itself" 1 "b.json: /kv_cache/update: rope \"inductor\" writes the cache itself" -- "$bin" $p --phase decode --batch 1 --kv-len 512 --runtime "$tmp/b.json"
c=validate/data/h200-sxm-hf-compile-2026-12-01.json
expect "validate: compiled records with torch-compile" 0 "decode-compile-ro" -- "$bin" validate --workloads --data $c --runtime torch-compile --split all
expect "validate: compiled records need torch-compile" 0 "a torch.compile run is predicted with --runtime torch-compile" -- "$bin" validate --workloads --data $c --runtime hf-transformers --split all --format json
expect "torch-compile baseline holds (H200)" 0 "ok    steps/" -- "$bin" validate --check validate/accuracy_baseline_h200_compile.json
expect "torch-compile long-cache baseline holds (H200, second run)" 0 "ok    steps/decode-compile-ro" -- "$bin" validate --check validate/accuracy_baseline_h200_compile_long.json
expect "torch-compile fourth-run baseline holds (H100)" 0 "ok    steps/decode-compile-ro" -- "$bin" validate --check validate/accuracy_baseline_h100_compile4.json
expect "torch-compile: reduce-overhead waits the graph replay lead" 0 "launch 9%" -- "$bin" $d --launch graph
finish
