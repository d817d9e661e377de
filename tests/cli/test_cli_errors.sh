#!/usr/bin/env bash
# CLI behaviour: each bad input gets one message naming the file and JSON path (or the flag)
# and a non-zero exit; a batch keeps its good lines. Usage: test_cli_errors.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

printf '%s\n' '{"id":"ok1","op":"gemm","m":64,"n":64,"k":64,"dtype":"bf16"}' \
  '{"id":"neg","op":"gemm","m":-1,"n":64,"k":64,"dtype":"bf16"}' \
  '{"id":"ok2","op":"rmsnorm","rows":8,"cols":4096,"dtype":"bf16"}' > "$tmp/mixed.jsonl"
expect "bad line keeps the others" 1 '"id":"ok2","op":"rmsnorm"' -- "$bin" op --input "$tmp/mixed.jsonl"
expect "bad line has an error object" 1 '{"id":"neg","error":"' -- "$bin" op --input "$tmp/mixed.jsonl"
expect "bad line message names file, line and path" 1 "mixed.jsonl line 2: /m: expected an integer >= 1, got -1" -- "$bin" op --input "$tmp/mixed.jsonl"
expect "summary of failed lines" 1 "1 of 3 ops failed" -- "$bin" op --input "$tmp/mixed.jsonl"
expect "good batch exits 0" 0 '"id":"ok1"' -- "$bin" op --input <(head -1 "$tmp/mixed.jsonl")
expect "stdin input" 0 '"id":"ok1"' -- bash -c "head -1 '$tmp/mixed.jsonl' | '$bin' op --input -"
expect "missing input file" 1 "--input $tmp/none.jsonl: cannot open file" -- "$bin" op --input "$tmp/none.jsonl"
expect "unknown gpu" 1 '--gpu: unknown GPU "h100"' -- "$bin" op --gpu h100 --op gemm --m 1 --n 1 --k 1
expect "bad what-if path" 1 "--set memory.hbm.bw=1: /memory/hbm/bw: no such field" -- "$bin" op --set memory.hbm.bw=1 --op gemm --m 1 --n 1 --k 1
expect "bad what-if value" 1 "expected a positive number" -- "$bin" op --set memory.hbm.bandwidth_GBps=-5 --op gemm --m 1 --n 1 --k 1
expect "flag op with a bad dimension" 1 "flags: /k: expected an integer >= 1, got 0" -- "$bin" op --op gemm --m 1 --n 1 --k 0
expect "flag op missing a dimension" 1 "flags: /k: missing" -- "$bin" op --op gemm --m 1 --n 1
expect "flag op heads vs kv heads" 1 "/kv_heads: heads (32) must be a multiple of kv_heads (5)" -- "$bin" op --op attention --batch 1 --heads 32 --kv-heads 5 --head-dim 128 --q-len 1 --kv-len 8
expect "neither --input nor --op" 1 "give either --input FILE or --op KIND" -- "$bin" op
expect "unknown format" 2 "format" -- "$bin" op --op gemm --m 1 --n 1 --k 1 --format yaml
expect "fp8 on a GPU without fp8" 1 "/dtype: a100-sxm-80gb has no fp8 tensor cores" -- "$bin" op --gpu a100-sxm-80gb --op gemm --m 64 --n 64 --k 64 --dtype fp8
echo '{"name": "x", "architecture": "hopper"' > "$tmp/broken.json"
expect "broken GPU file" 1 "broken.json: invalid JSON" -- "$bin" gpus show "$tmp/broken.json"
expect "gpu list" 0 "h100-sxm" -- "$bin" gpus
expect "gpu show with what-if" 0 "what-if: --set memory.hbm.bandwidth_GBps=4800" -- "$bin" gpus show h100-sxm --set memory.hbm.bandwidth_GBps=4800
expect "validate missing data" 1 "cannot open file" -- "$bin" validate --data "$tmp/none.json"
expect "predict runs" 0 "tokens/s" -- "$bin" predict --model llama-3-8b --phase decode --batch 8 --kv-len 512
expect "predict json" 0 '"total_us"' -- "$bin" predict --model llama-3-8b --phase prefill --seq 512 --format json
expect "predict trace" 0 "tokens/s" -- "$bin" predict --model examples/models/tiny-llama.json --phase train --seq 64 --trace "$tmp/trace.json"
expect "trace is JSON with events" 0 '"traceEvents"' -- head -c 200 "$tmp/trace.json"
expect "does not fit says how much" 1 "needs 230.3 GB (weights 141.1 GB, KV cache 85.9 GB" -- "$bin" predict --gpu h200-sxm --model llama-3-70b --phase decode --batch 64 --kv-len 4096 --runtime fused
expect "does not fit says what fits" 1 "the largest batch that fits is 6" -- "$bin" predict --gpu h200-sxm --model llama-3-70b --phase decode --batch 64 --kv-len 4096 --runtime fused
expect "ignore memory" 0 "DOES NOT FIT" -- "$bin" predict --gpu h200-sxm --model llama-3-70b --phase decode --batch 64 --kv-len 4096 --ignore-memory
expect "unknown model" 1 "llama-4" -- "$bin" predict --model llama-4 --phase decode --batch 1 --kv-len 8
expect "decode without kv-len" 1 "--kv-len: decode needs" -- "$bin" predict --model llama-3-8b --phase decode --batch 1
expect "negative batch" 1 "--batch: must be at least 1, got -4" -- "$bin" predict --model llama-3-8b --phase prefill --batch -4 --seq 8
expect "bad model file" 1 "config.json: invalid JSON" -- bash -c "echo '{' > '$tmp/config.json'; '$bin' predict --model '$tmp/config.json' --phase prefill --seq 8"
expect "sweep" 0 "tokens/s" -- "$bin" sweep --model llama-3-8b --phase decode --kv-len 512 --batches 1,4
expect "accuracy baseline holds" 0 "ok    kernels/gemm" -- "$bin" validate --check validate/accuracy_baseline.json
expect "H200 baseline holds (own profile)" 0 "ok    steps/decode-graph" -- "$bin" validate --check validate/accuracy_baseline_h200.json
expect "cross-GPU baseline holds (H200 from the H100 profile)" 0 "profile hardware/profiles/h100-sxm.json (given)" -- "$bin" validate --check validate/accuracy_baseline_h200_from_h100.json
expect "H200 baseline holds (profile from one calibrate run)" 0 "ok    kernels/attention" -- "$bin" validate --check validate/accuracy_baseline_h200_from_run.json
expect "predict with a calibrated profile says which" 0 "(profile validate/profiles/h200-sxm-from-calibrate-run-2026-12-01.json (given))" -- "$bin" predict --gpu h200-sxm --profile validate/profiles/h200-sxm-from-calibrate-run-2026-12-01.json --model llama-3-8b --phase decode --batch 8 --kv-len 512
expect "a missing profile file" 1 "/nope/profile.json: cannot open file" -- "$bin" op --profile /nope/profile.json --op gemm --m 64 --n 64 --k 64
expect "calibrate fit --report to an unwritable path" 1 "--report /nonexistent/r.json: cannot write file" -- "$bin" calibrate fit --gpu h200-sxm --data validate/data/h200-sxm-calibration-quick-2026-12-01.json --report /nonexistent/r.json
expect "a worse GEMM model fails the baseline" 1 "WORSE kernels/gemm" -- "$bin" validate --check validate/accuracy_baseline.json --set model.gemm.tiles.shapes.0.efficiency=0.6
expect "a worse launch cost fails the baseline" 1 "WORSE steps/decode-eager" -- "$bin" validate --check validate/accuracy_baseline.json --set launch.python_eager_us=30
cat > "$tmp/broken-data.json" <<'EOD'
{"meta": {"device_name": "test"}, "records": [
 {"id": "too-fast", "op": "gemm", "m": 8192, "n": 8192, "k": 8192, "dtype": "bf16", "split": "fit", "measured_us": 10.0, "kernels": ["k"], "kernels_per_call": 1},
 {"id": "fine", "op": "gemm", "m": 4096, "n": 4096, "k": 4096, "dtype": "bf16", "split": "fit", "measured_us": 200.0, "kernels": ["k"], "kernels_per_call": 1}]}
EOD
expect "calibrate refuses broken data" 1 "no profile written" -- "$bin" calibrate fit --gpu h100-sxm --data "$tmp/broken-data.json" --out "$tmp/p.json"
expect "calibrate names the broken measurement" 1 "too-fast: faster than the datasheet roofline" -- "$bin" calibrate fit --gpu h100-sxm --data "$tmp/broken-data.json" --out "$tmp/p.json"
expect "calibrate fits committed data" 0 "wrote $tmp/h100.json" -- "$bin" calibrate fit --gpu h100-sxm --data validate/data/h100-sxm-ops-2026-11-29.json --data validate/data/h100-sxm-norms-2026-11-29.json --out "$tmp/h100.json"
expect "calibrate run without the suite" 1 "calibrate run: /nonexistent/bench failed (exit 127)" -- "$bin" calibrate run --bench /nonexistent/bench --out "$tmp/m.json"
expect "calibrate fit reads the suite's measurements" 0 "0.930   (no data: kept)" -- "$bin" calibrate fit --gpu h100-sxm --data validate/data/h100-sxm-gpubench-2026-11-29.json
tr=validate/data/traces
expect "trace decode matched kernel for kernel" 0 "matched 104 predicted ops to 128 of 128 kernels; 0 ops and 0 kernels unmatched" -- "$bin" validate --trace $tr/trace-blocks4-decode-b8-kv2048.json --model llama-3-8b --blocks 4 --phase decode --batch 8 --kv-len 2048 --launch eager
expect "trace names the slowest kernels and why" 0 "attention         attention" -- "$bin" validate --trace $tr/trace-blocks4-decode-b8-kv2048.json --model llama-3-8b --blocks 4 --phase decode --batch 8 --kv-len 2048
expect "trace prefill matched" 0 "0 ops and 0 kernels unmatched" -- "$bin" validate --trace $tr/trace-blocks4-prefill-b1-s2048.json --model llama-3-8b --blocks 4 --phase prefill --seq 2048
expect "trace without a workload" 1 "--trace: say which workload" -- "$bin" validate --trace $tr/trace-blocks4-prefill-b1-s2048.json
expect "not a chrome trace" 1 "/traceEvents: missing; not a Chrome trace" -- "$bin" validate --trace validate/accuracy_baseline.json --model llama-3-8b --phase prefill --seq 8
expect "validate plot to an unwritable path" 1 "--plot $tmp/no-such-dir/p.html: cannot write file" -- "$bin" validate --data validate/data/h100-sxm-norms-2026-11-29.json --plot "$tmp/no-such-dir/p.html"
expect "validate plot of whole steps" 0 "wrote $tmp/steps.html" -- "$bin" validate --workloads --data validate/data/h100-sxm-models-2026-11-29.json --plot "$tmp/steps.html"
expect "the plot is the report page" 0 "<!DOCTYPE html>" -- head -c 300 "$tmp/steps.html"
for f in examples/*.sh; do
  expect "example $f" 0 "" -- env RIDGELINE="$bin" bash "$f"
done
for f in examples/ops/*.jsonl; do
  expect "example $f" 0 '"time_us"' -- "$bin" op --gpu h100-sxm --input "$f"
done
for f in examples/gpus/*.json; do
  expect "example GPU $f" 0 "Figures" -- "$bin" gpus show "$f"
done

# calibrate run's orchestration without a GPU: a stand-in suite (copies a committed suite file)
# and a stand-in python3 whose torch probe succeeds and whose measure_ops.py writes a subset of a
# committed PyTorch data set; the run must merge both into one file that calibrate fit reads.
fake=$tmp/fake
mkdir -p "$fake/bin" "$fake/scripts"
printf '#!/bin/bash\ncp %q "$2"\n' "$PWD/validate/data/h200-sxm-gpubench-2026-11-29.json" > "$fake/bin/suite"
printf '#!/bin/bash\n[ "$1" = "-c" ] && exit 0\nexec %q "$@"\n' "$(command -v python3)" > "$fake/bin/python3"
chmod +x "$fake/bin/suite" "$fake/bin/python3"
cat > "$fake/scripts/op_grid.py" <<'PY'
print('{"id": "stand-in grid"}')
PY
cat > "$fake/scripts/measure_ops.py" <<PY
import json, re, sys
a = sys.argv
only = re.compile(a[a.index("--only") + 1])
d = json.load(open("$PWD/validate/data/h200-sxm-ops-2026-11-29.json"))
d["records"] = [r for r in d["records"] if only.search(r["id"])]
json.dump(d, open(a[a.index("--out") + 1], "w"))
PY
if command -v python3 >/dev/null; then
expect "calibrate run merges the suite and PyTorch's kernels" 0 "measurements in $tmp/run.json" -- env PATH="$fake/bin:$PATH" "$bin" calibrate run --bench "$fake/bin/suite" --scripts "$fake/scripts" --pytorch on --out "$tmp/run.json"
expect "the merged file holds both" 0 "211 records, 199 benchmarks" -- python3 -c "import json; d = json.load(open('$tmp/run.json')); print(len(d['records']), 'records,', len(d['benchmarks']), 'benchmarks', 'pytorch' in d['meta'])"
expect "calibrate fit reads the merged file" 0 "from 326 measured kernels" -- "$bin" calibrate fit --gpu h200-sxm --data "$tmp/run.json"
fi

finish
