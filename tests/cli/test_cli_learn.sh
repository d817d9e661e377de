#!/usr/bin/env bash
# `ridgeline runtime learn` on the committed real traces (transformers 5.17 on an H200,
# validate/data/traces/hf-llama3-8b-L8-*.json.gz): the learned runtime reproduces hf-transformers'
# kernel list, predicts the other measured records (validate/data/h200-sxm-hf-2026-12-01.json)
# within the committed bound (validate/learned_runtime_bound_h200_hf.json, through validate
# --check), and every bad input gets one message naming the file or flag.
# Usage: test_cli_learn.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

traces=validate/data/traces
sed 's/"num_hidden_layers": 32/"num_hidden_layers": 8/' workloads/models/llama-3-8b.json > "$tmp/llama8.json"
m="--model $tmp/llama8.json"
dec="$m --phase decode --batch 1 --kv-len 512"
dtrace=$traces/hf-llama3-8b-L8-decode-b1-kv512-dynamic-eager.json.gz
# The record's host_median_ms (the step's host time without the profiler), in us.
# Prefill first (it shows transformers' mask), then decode from that: what decode cannot show
# (the mask, whose decode kernels only a StaticCache launches) stays as prefill learned it.
expect "learn from the prefill trace" 0 "unmatched trace kernels: none" -- "$bin" runtime learn --trace $traces/hf-llama3-8b-L8-prefill-b1-s2048-dynamic-eager.json.gz $m --phase prefill --seq 2048 --host-step-us 8422.8 --out "$tmp/pre.json"
expect "prefill shows the mask" 0 "attention/mask             hf_sdpa" -- "$bin" runtime show "$tmp/pre.json"
expect "learn from the decode trace" 0 "matched 388 of 388" -- "$bin" runtime learn --trace $dtrace $dec --host-step-us 5138.1 --runtime "$tmp/pre.json" --out "$tmp/dec.json"
expect "decode keeps the mask it cannot see" 0 "attention/mask             hf_sdpa                 not seen in this trace" -- "$bin" runtime learn --trace $dtrace $dec --host-step-us 5138.1 --runtime "$tmp/pre.json" --out "$tmp/dec2.json"
expect "the decode trace shows the decomposed norm" 0 "norm/impl                  hf_fp32_decomposed" -- "$bin" runtime show "$tmp/dec.json"
expect "the file names its trace and sha256" 0 "sha256 $(sha256sum $dtrace | cut -c1-64)" -- "$bin" runtime show "$tmp/dec.json"
expect "without --host-step-us the costs are as profiled, and it says so" 0 "the profiler inflates CPU spans" -- "$bin" runtime learn --trace $dtrace $dec --out "$tmp/raw.json"

# The learned runtimes launch hf-transformers' kernels (their count) at other sizes.
kernels() { "$bin" predict --gpu h200-sxm "$@" --launch eager --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kernels"])'; }
for rt in dec; do
  for w in "--phase decode --batch 8 --kv-len 2048" "--phase prefill --batch 4 --seq 512" "--phase decode --batch 32 --kv-len 512 --kv-cache-impl static"; do
    want=$(kernels $m $w --runtime hf-transformers)
    expect "$rt: kernel count as hf-transformers ($w)" 0 "$want" -- kernels $m $w --runtime "$tmp/$rt.json"
  done
done

# Accuracy on the measured records (the held-out split), against the committed bound.
sed "s|@LEARNED_RUNTIME@|$tmp/dec.json|" validate/learned_runtime_bound_h200_hf.json > "$tmp/bound.json"
expect "the decode-learned runtime holds its bound" 0 "ok    steps/decode-eager" -- "$bin" validate --check "$tmp/bound.json"
# A what-if on a GPU the trace did not run on (no H100 measurement of this exists).
expect "the learned runtime predicts the H100" 0 "h100-sxm" -- "$bin" predict --gpu h100-sxm $m --phase decode --batch 8 --kv-len 2048 --launch eager --runtime "$tmp/dec.json"

# Bad input, one message each.
echo '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "nvjet_a", "ts": 1, "dur": 2}]}' > "$tmp/chrome.json"
expect "not a PyTorch profiler trace" 1 "chrome.json: not a PyTorch profiler trace (no /schemaVersion" -- "$bin" runtime learn --trace "$tmp/chrome.json" $dec --out "$tmp/x.json"
echo '{"displayTimeUnit": "ms"}' > "$tmp/notrace.json"
expect "no traceEvents" 1 "notrace.json: /traceEvents: missing; not a PyTorch profiler trace" -- "$bin" runtime learn --trace "$tmp/notrace.json" $dec --out "$tmp/x.json"
echo 'not json' > "$tmp/text.json"
expect "not JSON" 1 "text.json" -- "$bin" runtime learn --trace "$tmp/text.json" $dec --out "$tmp/x.json"
echo '{"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]}' > "$tmp/nokernels.json"
expect "a trace with no kernels" 1 "nokernels.json: no GPU kernels in the trace" -- "$bin" runtime learn --trace "$tmp/nokernels.json" $dec --out "$tmp/x.json"
python3 -c '
import json,sys
ev=[{"ph":"X","cat":"kernel","name":"my_fft_radix4_kernel","ts":i,"dur":1} for i in range(50)]
json.dump({"schemaVersion":1,"traceEvents":ev},open(sys.argv[1],"w"))' "$tmp/other.json"
expect "kernels that match no part of the step" 1 "other.json: only 0.0% of its 50 kernels match a part of llama8's decode step" -- "$bin" runtime learn --trace "$tmp/other.json" $dec --out "$tmp/x.json"
head -c 20000 $dtrace > "$tmp/cut.json.gz"
expect "a gzip file cut short" 1 "cut.json.gz: not a readable gzip file" -- "$bin" runtime learn --trace "$tmp/cut.json.gz" $dec --out "$tmp/x.json"
expect "a trace file that is not there" 1 "missing.json: cannot read the file" -- "$bin" runtime learn --trace "$tmp/missing.json" $dec --out "$tmp/x.json"
expect "--out missing" 2 "--out is required" -- "$bin" runtime learn --trace $dtrace $dec
expect "--out that cannot be written" 1 "--out $tmp/no/dir/x.json: cannot write file" -- "$bin" runtime learn --trace $dtrace $dec --out "$tmp/no/dir/x.json"
expect "--host-step-us not positive" 1 "--host-step-us: expected a positive number" -- "$bin" runtime learn --trace $dtrace $dec --host-step-us 0 --out "$tmp/x.json"
expect "--launch is read from the trace" 2 "--launch" -- "$bin" runtime learn --trace $dtrace $dec --launch eager --out "$tmp/x.json"
expect "sizes the trace contradicts" 1 "--kv-len" -- "$bin" runtime learn --trace $dtrace $m --phase decode --batch 1 --kv-len 1024 --out "$tmp/x.json"
expect "no file left behind by a failed learn" 2 "No such file" -- ls "$tmp/x.json"
sed 's/"match_score": [0-9.]*/"match_score": 1.5/' "$tmp/dec.json" > "$tmp/bad.json"
expect "a learned file's score out of range" 1 "bad.json: /learned/match_score: expected a score in [0, 1]" -- "$bin" runtime show "$tmp/bad.json"
expect "runtime show of an unknown preset" 1 "--runtime: unknown runtime \"nope\"" -- "$bin" runtime show nope
finish
