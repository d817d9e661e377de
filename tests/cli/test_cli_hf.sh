#!/usr/bin/env bash
# CLI behaviour of the hf-transformers runtime (docs/runtimes.md): its cache flags are refused
# where they would be ignored, bad runtime files name the file and JSON path, and the accuracy
# baseline on real transformers runs holds. Usage: test_cli_hf.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

p="predict --gpu h200-sxm --model llama-3-8b --phase decode --batch 1 --kv-len 512"
expect "hf-transformers predicts a decode step" 0 "k_cache_cat" -- "$bin" $p --runtime hf-transformers --top 60
expect "--kv-cache-impl static launches index_copy_" 0 "k_cache_index_copy" -- "$bin" $p --runtime hf-transformers --kv-cache-impl static --top 60
expect "--kv-cache-impl needs transformers' caches" 1 "--kv-cache-impl: runtime pytorch-eager does not use transformers' cache classes" -- "$bin" $p --kv-cache-impl static
expect "--max-cache-len needs a StaticCache" 1 "--max-cache-len: only a StaticCache has a length of its own; runtime hf-transformers" -- "$bin" $p --runtime hf-transformers --max-cache-len 600
expect "--max-cache-len below the step's positions" 1 "--max-cache-len: 100 is shorter than the 513 positions the step reaches" -- "$bin" $p --runtime hf-transformers --kv-cache-impl static --max-cache-len 100
expect "--max-cache-len over them" 0 "k_repeat_kv" -- "$bin" $p --runtime hf-transformers --kv-cache-impl static --max-cache-len 528 --top 80

base=workloads/runtimes/hf-transformers.json
sed 's/"eager_launch": "per_op_kind"/"eager_launch": "gpu_figure"/' $base > "$tmp/a.json"
expect "host/op_us only with per_op_kind" 1 "a.json: /host/op_us: only with /host/eager_launch \"per_op_kind\"" -- "$bin" $p --runtime "$tmp/a.json"
sed 's/"residual_add": "separate"/"residual_add": "fused_into_norm"/' $base > "$tmp/b.json"
expect "a decomposed norm cannot add the residual" 1 "b.json: /norm/residual_add: \"fused_into_norm\" needs a one-kernel norm" -- "$bin" $p --runtime "$tmp/b.json"
sed 's/"rope_tables": "recomputed_per_forward"/"rope_tables": "sometimes"/' $base > "$tmp/c.json"
expect "an unknown rope_tables choice" 1 "c.json: /attention/rope_tables: expected one of cached, recomputed_per_forward" -- "$bin" $p --runtime "$tmp/c.json"
sed 's/"mask": "hf_sdpa"/"mask": "flex"/' $base > "$tmp/d.json"
expect "an unknown mask choice" 1 "d.json: /attention/mask: expected one of none, hf_sdpa" -- "$bin" $p --runtime "$tmp/d.json"
sed 's/"per_block": 0, //' $base > "$tmp/e.json"
expect "a host table without per_block" 1 "e.json: /host/op_us/per_block: missing" -- "$bin" $p --runtime "$tmp/e.json"
sed 's/"moe": [0-9.]*, //' $base > "$tmp/e2.json"
expect "a host table without moe" 1 "e2.json: /host/op_us/moe: missing" -- "$bin" $p --runtime "$tmp/e2.json"
grep -v '"host"' workloads/runtimes/pytorch-eager.json > "$tmp/f.json"
expect "a runtime without host" 1 "f.json: /host: missing" -- "$bin" $p --runtime "$tmp/f.json"

hf=validate/data/h200-sxm-hf-2026-12-01.json
expect "validate takes --runtime with --workloads" 0 "decode-graph" -- "$bin" validate --workloads --data $hf --runtime hf-transformers
expect "validate predicts transformers' records with hf-transformers unless told" 0 "runtime hf-transformers)" -- "$bin" validate --workloads --data $hf
expect "validate names a given runtime" 0 "runtime pytorch-eager)" -- "$bin" validate --workloads --data $hf --runtime pytorch-eager
expect "validate: compiled records with their own runtime beside eager ones" 0 '"runtimes": "torch-compile, hf-transformers"' -- "$bin" validate --workloads --data validate/data/h200-sxm-hf-compile-2026-12-01.json --data $hf --format json
expect "validate: ridgeline's renderings with pytorch-eager" 0 "runtime pytorch-eager)" -- "$bin" validate --workloads --data validate/data/h200-sxm-models-2026-11-29.json
expect "validate refuses --runtime for op data" 1 "--runtime: not with --data" -- "$bin" validate --data $hf --runtime hf-transformers
expect "validate skips what it cannot predict, with the reason" 0 "an optimizer step alone is not a predicted workload" -- "$bin" validate --workloads --data $hf --runtime hf-transformers --format json
expect "hf baseline holds (H200, real transformers runs)" 0 "ok    steps/decode-graph" -- "$bin" validate --check validate/accuracy_baseline_h200_hf.json
expect "generate check baseline holds (H100, all held out)" 0 "ok    steps/generate-per_token" -- "$bin" validate --check validate/accuracy_baseline_h100_generate.json
finish
