#!/usr/bin/env bash
# Output-level prediction intervals at the CLI (validate/intervals.h outputs): the committed table
# carries split-conformal quantiles per output kind with their provenance, predict --cluster and
# serve print intervals from them, the coverage check fails when they are shrunk, and each bad
# input gets one message naming the flag or the file and JSON path.
# Usage: test_cli_cover.sh path/to/ridgeline (run from the source root).
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

# The committed table: every output kind from fit rows, with data, split, count and method.
expect "outputs carry their provenance" 0 "ok" -- python3 -c "
import json
o = json.load(open('validate/intervals.json'))['outputs']
kinds = {'cluster_step', 'serving_output_tokens_per_s', 'serving_ttft', 'serving_tpot'}
ok = set(o) == kinds and all(e['split'] == 'fit' and e['data'] and e['count'] >= 10 and
    'split-conformal' in e['method'] and e['p10'] <= e['p50'] <= e['p90'] for e in o.values())
print('ok' if ok else o)"
expect "predict --cluster uses the cluster_step entry" 0 '"calibration": "whole-output"' -- "$bin" predict --model examples/models/tiny-llama.json --phase train --seq 128 --cluster dgx-h100 --gpus 8 --tp 2 --microbatch 1 --global-batch 8 --format json
expect "serve uses the serving entries" 0 'split-conformal 80% of measured / predicted over the fit rows' -- "$bin" serve --gpu h100-sxm --model llama-3-8b --engine vllm --input-len 512 --output-len 64 --rate inf --requests 20

# Shrunk quantiles fail the coverage check (the cluster_step entry cut to its median; the
# provenance cut to one baseline and no serving data to keep the check short).
python3 -c "
import json; d = json.load(open('validate/intervals.json'))
e = d['outputs']['cluster_step']; e['p10'] = e['p90'] = e['p50']
p = d['provenance']; p['baselines'] = ['validate/accuracy_baseline_h200_moe.json']
for k in ('collectives', 'serving_data', 'engine_for'): p.pop(k)
json.dump(d, open('$tmp/shrunk.json', 'w'))
e['p10'], e['p90'] = json.load(open('validate/intervals.json'))['outputs']['cluster_step']['p10'], json.load(open('validate/intervals.json'))['outputs']['cluster_step']['p90']
json.dump(d, open('$tmp/unshrunk.json', 'w'))"
expect "committed cluster quantiles pass the check" 0 "cluster_step" -- "$bin" calibrate intervals --coverage "$tmp/unshrunk.json"
expect "shrunk output quantiles fail the check" 1 "TOO LOW for 80%" -- "$bin" calibrate intervals --coverage "$tmp/shrunk.json"

# Errors
expect "--serving-data not with --coverage" 1 "--serving-data: not with --coverage (the table names its data)" -- "$bin" calibrate intervals --coverage validate/intervals.json --serving-data validate/data/published-serving.json
expect "--engine-for without --serving-data" 1 "--engine-for: only with --serving-data" -- "$bin" calibrate intervals --baseline validate/accuracy_baseline.json --engine-for a=b --out "$tmp/x.json"
expect "malformed --engine-for" 1 "--engine-for trtllm: expected FAMILY=ENGINE" -- "$bin" calibrate intervals --baseline validate/accuracy_baseline.json --serving-data validate/data/published-serving.json --engine-for trtllm --out "$tmp/x.json"
python3 -c "
import json; d = json.load(open('validate/intervals.json')); d['provenance']['serving_data'] = 'published-serving.json'
json.dump(d, open('$tmp/bad-prov.json', 'w'))"
expect "provenance serving_data not an array" 1 "bad-prov.json: /provenance/serving_data: expected an array of serving data files" -- "$bin" calibrate intervals --coverage "$tmp/bad-prov.json"
python3 -c "
import json; d = json.load(open('validate/intervals.json')); d['outputs']['serving_ttft']['split'] = 'held_out'
json.dump(d, open('$tmp/bad-split.json', 'w'))"
expect "outputs entry from held-out rows" 1 "bad-split.json: /outputs/serving_ttft/split" -- "$bin" calibrate intervals --coverage "$tmp/bad-split.json"
python3 -c "
import json; d = json.load(open('validate/intervals.json')); d['outputs']['cluster_steps'] = d['outputs'].pop('cluster_step')
json.dump(d, open('$tmp/bad-kind.json', 'w'))"
expect "unknown output kind" 1 "bad-kind.json: /outputs/cluster_steps: unknown output kind" -- "$bin" calibrate intervals --coverage "$tmp/bad-kind.json"
finish
