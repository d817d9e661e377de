#!/usr/bin/env bash
# CLI checks of issue 10's "Done when" that the other scripts do not make: a runtime from a JSON
# file alone shows its kernels in a prediction; a bad runtime file (its launch configuration too)
# names the file and JSON path; `predict --trace` has exactly one track per stream (single GPU,
# and per pipeline stage on a cluster); `sweep --format json|csv` write what they say, one row per
# point. (Renaming kernels moves no number: tests/test_roles.cpp.)
# Usage: test_cli_redesign.sh path/to/ridgeline (from the repository root)
set -u
bin=$1
source "$(dirname "$0")/expect.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count NAME EXPECTED ACTUAL: two counts that must agree.
count() {
  if [[ $2 -ne $3 ]]; then echo "FAIL $1: $3, expected $2"; failures=$((failures + 1)); return; fi
  pass=$((pass + 1))
}

tiny=examples/models/tiny-llama.json
run=(predict --model "$tiny" --phase decode --batch 4 --kv-len 256)

# A runtime from a JSON file alone (no C++): its kernels are in the prediction.
rt=examples/runtimes/hf-fused-rope-norm.json
expect "a runtime file's fused norm" 0 "fused_add_input_norm" -- "$bin" "${run[@]}" --runtime $rt --top 40
expect "a runtime file's fused silu_mul" 0 "silu_mul" -- "$bin" "${run[@]}" --runtime $rt --top 40

# A bad runtime file: the file and the JSON path.
sed 's/"max_values_per_thread": 256/"max_values_per_thread": 8/' $rt > "$tmp/order.json"
expect "a reduction launch out of order" 1 \
  "order.json: /launch/reduction/max_values_per_thread: must be at least /launch/reduction/min_values_per_thread (16)" \
  -- "$bin" "${run[@]}" --runtime "$tmp/order.json"
sed 's/"blocks_per_sm": 8/"blocks_per_sm": 2.5/' $rt > "$tmp/frac.json"
expect "a row-kernel launch that is not whole" 1 "frac.json: /launch/row_kernels/blocks_per_sm: expected an integer" \
  -- "$bin" "${run[@]}" --runtime "$tmp/frac.json"
sed 's/"launch": {[^}]*}, "row_kernels": {[^}]*}},//' $rt > "$tmp/nolaunch.json"
expect "a runtime without launch" 1 "nolaunch.json: /launch: missing" -- "$bin" "${run[@]}" --runtime "$tmp/nolaunch.json"

# One track per stream: each stream's name once.
"$bin" "${run[@]}" --launch eager --trace "$tmp/eager.json" > /dev/null
count "one compute-stream track" 1 "$(grep -o '"args":{"name":"compute stream"}' "$tmp/eager.json" | wc -l)"
count "one host track" 1 "$(grep -o '"args":{"name":"host"}' "$tmp/eager.json" | wc -l)"
train=(predict --model "$tiny" --phase train --seq 128 --cluster dgx-h100 --gpus 8 --tp 2 --pp 2 --microbatch 1
  --global-batch 8)
"$bin" "${train[@]}" --trace "$tmp/par.json" > /dev/null
count "a compute track per stage" 2 "$(grep -o '"args":{"name":"compute stream"}' "$tmp/par.json" | wc -l)"
count "a comm track per stage" 2 "$(grep -o '"args":{"name":"comm stream"}' "$tmp/par.json" | wc -l)"

# sweep --format json|csv: parseable, a row per point.
sweep=(sweep --model "$tiny" --phase decode --kv-len 256 --batches 1,4,16)
"$bin" "${sweep[@]}" --format json > "$tmp/sweep.json"
expect "sweep json parses" 0 "" -- python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/sweep.json"
count "sweep json: a row per batch" 3 "$(grep -c '"tokens_per_s"' "$tmp/sweep.json")"
"$bin" "${sweep[@]}" --format csv > "$tmp/sweep.csv"
count "sweep csv: a header and a row per batch" 4 "$(grep -vc '^#' "$tmp/sweep.csv")"
finish
