#!/usr/bin/env bash
# Prediction intervals at the CLI: predict and op carry an 80% interval (JSON and table), the
# table regenerates from the fit split exactly as committed, and each bad input of `calibrate
# intervals` gets one message naming the flag or the file and JSON path.
# Usage: test_cli_intervals.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

# Outputs
expect "predict json has an interval" 0 '"interval": {' -- "$bin" predict --model llama-3-8b --phase decode --batch 8 --kv-len 512 --format json
expect "predict json interval is of measured steps" 0 '"category": "pytorch-eager/decode-graph"' -- "$bin" predict --model llama-3-8b --phase decode --batch 8 --kv-len 512 --format json
expect "predict table shows the interval" 0 "80% interval" -- "$bin" predict --model llama-3-8b --phase decode --batch 8 --kv-len 512
expect "fused runtime combines kernels" 0 '"category": "kernels combined"' -- "$bin" predict --model llama-3-8b --phase decode --batch 8 --kv-len 512 --runtime fused --format json
expect "own calibration" 0 '"calibration": "own"' -- "$bin" op --gpu h100-sxm --op gemm --m 4096 --n 4096 --k 4096 --format json
expect "architecture calibration" 0 '"calibration": "architecture"' -- "$bin" op --gpu h100-pcie --op gemm --m 4096 --n 4096 --k 4096 --format json
expect "no calibration" 0 '"calibration": "none"' -- "$bin" op --gpu b200 --op gemm --m 4096 --n 4096 --k 4096 --format json
expect "op table column" 0 "80% interval" -- "$bin" op --op rmsnorm --rows 4096 --cols 4096
# Every op of the golden set gets an ordered, positive interval on every kind of GPU
for g in h100-sxm h200-sxm h100-pcie a100-sxm-80gb b200; do
  expect "intervals are ordered on $g" 0 "ok" -- python3 -c "
import json, subprocess
out = subprocess.run(['$bin', 'op', '--gpu', '$g', '--input', 'tests/golden/ops.jsonl'], capture_output=True, text=True).stdout
rows = [l for l in map(json.loads, out.splitlines()) if 'time_us' in l]
bad = [l['id'] for l in rows if not 0 < l['interval']['p10_us'] < l['interval']['p90_us']]
print('ok' if rows and not bad else bad)"
done

# The committed table is what the command writes from the fit split (the date aside)
cmd=$(python3 -c "import json; print(json.load(open('validate/intervals.json'))['provenance']['command'])")
cmd=${cmd% --out *}
expect "regenerate the table" 0 "wrote $tmp/intervals.json" -- $bin ${cmd#ridgeline } --out "$tmp/intervals.json"
expect "regenerated table is the committed one" 0 "same" -- python3 -c "
import json
a, b = json.load(open('validate/intervals.json')), json.load(open('$tmp/intervals.json'))
for d in (a, b): d['provenance'].pop('generated_utc'); d['provenance'].pop('command')
print('same' if a == b else 'differs')"

# Errors
expect "coverage with --baseline" 1 "--baseline: not with --coverage" -- "$bin" calibrate intervals --coverage validate/intervals.json --baseline validate/accuracy_baseline.json
expect "--min without --coverage" 1 "--min: only with --coverage" -- "$bin" calibrate intervals --min 0.5 --baseline validate/accuracy_baseline.json --out "$tmp/x.json"
expect "no baseline" 1 "--baseline: give at least one accuracy baseline" -- "$bin" calibrate intervals --out "$tmp/x.json"
expect "no --out" 1 "--out: say where to write the table" -- "$bin" calibrate intervals --baseline validate/accuracy_baseline.json
expect "--folds without --cross-fit" 1 "--folds: only with --cross-fit" -- "$bin" calibrate intervals --folds 3 --baseline validate/accuracy_baseline.json --out "$tmp/x.json"
expect "--cross-fit with --coverage" 1 "--cross-fit: not with --coverage" -- "$bin" calibrate intervals --coverage validate/intervals.json --cross-fit h100-sxm=a.json
expect "--cross-fit on a file the profile was not fitted on" 1 "h100-sxm.json was not fitted on it" -- "$bin" calibrate intervals --baseline validate/accuracy_baseline.json --cross-fit h100-sxm=validate/data/h200-sxm-ops-2026-11-29.json --out "$tmp/x.json"
expect "a baseline with another profile" 1 "validate/accuracy_baseline_h200_from_h100.json: /profile: an interval baseline predicts its GPU with its own profile" -- "$bin" calibrate intervals --baseline validate/accuracy_baseline_h200_from_h100.json --out "$tmp/x.json"
python3 -c "
import json; d = json.load(open('validate/accuracy_baseline.json')); d['gpu'] = 'b200'; d['op_datasets'] = []; d['workload_datasets'] = []
json.dump(d, open('$tmp/b200.json', 'w'))"
expect "a baseline GPU without a profile" 1 "b200.json: /gpu b200: has no calibrated profile of its own" -- "$bin" calibrate intervals --baseline "$tmp/b200.json" --out "$tmp/x.json"
python3 -c "
import json; d = json.load(open('validate/intervals.json')); d['provenance']['baselines'] = 'all'
json.dump(d, open('$tmp/bad-prov.json', 'w'))"
expect "coverage of a table without its baselines" 1 "bad-prov.json: /provenance/baselines: expected an array of baseline files" -- "$bin" calibrate intervals --coverage "$tmp/bad-prov.json"
python3 -c "
import json; d = json.load(open('validate/intervals.json')); d['provenance']['split'] = 'holdout'
json.dump(d, open('$tmp/bad-split.json', 'w'))"
expect "coverage of a table built from held-out data" 1 "bad-split.json: /provenance/split" -- "$bin" calibrate intervals --coverage "$tmp/bad-split.json"
python3 -c "
import json; d = json.load(open('validate/intervals.json')); d['kernels']['own']['h100-sxm']['gemm']['p10'] = 9
json.dump(d, open('$tmp/bad-q.json', 'w'))"
expect "malformed table names file and path" 1 "bad-q.json: /kernels/own/h100-sxm/gemm/p10: above p50" -- "$bin" calibrate intervals --coverage "$tmp/bad-q.json"
expect "coverage out of range fails" 1 "OUT OF RANGE" -- "$bin" calibrate intervals --coverage validate/intervals.json --min 0.99 --max 1
finish
