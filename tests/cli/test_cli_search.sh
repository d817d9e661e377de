#!/usr/bin/env bash
# Strategy search and comparison (`ridgeline search`, `ridgeline compare`) and the published
# training runs (`ridgeline validate --training-runs`): outputs in every format, the progress line,
# and one expectation per error message (each names the flag and the numbers).
# Usage: test_cli_search.sh path/to/ridgeline
set -u
bin=$1
source "$(dirname "$0")/expect.sh"

small=(--model llama-3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --seq 4096)
gpt3=(--model gpt3-175b --cluster dgx-h100 --gpus 1024 --global-batch 1536 --seq 2048)

# search: counts, the ranked table with why each row loses, JSON and CSV, --all, progress
expect "search counts" 0 "strategies 1284 enumerated: 0 refused, 40 do not fit in memory, 1244 ranked" -- "$bin" search "${small[@]}" --max-microbatch 2
expect "search ranks" 0 "rank tp  pp  vp  dp" -- "$bin" search "${small[@]}" --max-microbatch 2
expect "search says why" 0 "behind #1: " -- "$bin" search "${small[@]}" --max-microbatch 2
expect "search json counts" 0 '"enumerated": 1284' -- "$bin" search "${small[@]}" --max-microbatch 2 --format json
expect "search json reason" 0 '"loses_because": {' -- "$bin" search "${small[@]}" --max-microbatch 2 --format json
expect "search csv header" 0 "rank,tp,pp,vp,dp,cp,ep,sp,zero,microbatch,recompute,schedule,total_us" -- "$bin" search "${small[@]}" --max-microbatch 2 --format csv
expect "search --all lists what does not fit" 0 '"not_fitting": [' -- "$bin" search "${small[@]}" --max-microbatch 2 --format json --all
expect "search --all reason" 0 "does not fit: stage" -- "$bin" search "${small[@]}" --max-microbatch 2 --all
expect "search --all csv reason" 0 ',0,,"stage ' -- "$bin" search "${small[@]}" --max-microbatch 2 --format csv --all
expect "search: nothing fits is exit 1 with the reason" 1 "no strategy fits: stage 0 needs" -- "$bin" search --model llama-3-70b --cluster dgx-h100 --gpus 8 --global-batch 8 --seq 4096 --max-microbatch 1
expect "search progress on stderr" 0 "strategies priced" -- "$bin" search "${gpt3[@]}" --top 1 --progress
expect "search top limits rows" 0 "2    " -- "$bin" search "${small[@]}" --max-microbatch 1 --top 2
expect "search MoE: ep tried" 0 '"ep": 8' -- "$bin" search --model mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 256 --seq 4096 --max-microbatch 1 --zero 1 --recompute none,full --format json --top 50
if command -v python3 >/dev/null; then
  expect "search top-1 is the fastest" 0 "ok" -- bash -c "'$bin' search ${small[*]} --max-microbatch 2 --format json --top 100000 | python3 -c 'import json,sys; d=json.load(sys.stdin); t=[round(r[\"total_us\"]) for r in d[\"ranked\"]]; assert t==sorted(t) and len(t)==d[\"counts\"][\"ranked\"]; print(\"ok\")'"
fi

# search: bad input, one clear error naming the flag
expect "search --gpus 0" 1 "--gpus: must be at least 1, got 0" -- "$bin" search --model llama-3-8b --cluster dgx-h100 --gpus 0 --global-batch 64 --seq 4096
expect "search --global-batch 0" 1 "--global-batch: must be at least 1, got 0" -- "$bin" search --model llama-3-8b --cluster dgx-h100 --gpus 8 --global-batch 0 --seq 4096
expect "search --seq 0" 1 "--seq: must be at least 1, got 0" -- "$bin" search --model llama-3-8b --cluster dgx-h100 --gpus 8 --global-batch 8 --seq 0
expect "search --zero 4" 1 '--zero: "4": a ZeRO stage is 0, 1, 2 or 3' -- "$bin" search "${small[@]}" --zero 0,4
expect "search --recompute most" 1 '--recompute: "most": expected none, selective or full' -- "$bin" search "${small[@]}" --recompute most
expect "search --schedule zb" 1 '--schedule: "zb": expected gpipe, 1f1b or interleaved' -- "$bin" search "${small[@]}" --schedule zb
expect "search --max-tp -1" 1 "--max-tp: must be 0 (no limit) or more, got -1" -- "$bin" search "${small[@]}" --max-tp -1
expect "search --max-microbatch 0" 1 "--max-microbatch: must be at least 1, got 0" -- "$bin" search "${small[@]}" --max-microbatch 0
expect "search --top 0" 1 "--top: must be at least 1, got 0" -- "$bin" search "${small[@]}" --top 0
expect "search --format xml" 1 "--format xml: no such format; choose table, json or csv" -- "$bin" search "${small[@]}" --format xml
expect "search --phase decode" 2 "--phase" -- "$bin" search "${small[@]}" --phase decode
expect "search --sp maybe" 2 "--sp" -- "$bin" search "${small[@]}" --sp maybe
expect "search more GPUs than the cluster" 1 "--gpus: 2048 GPUs, but dgx-h100 has at most 1024" -- "$bin" search --model llama-3-8b --cluster dgx-h100 --gpus 2048 --global-batch 2048 --seq 4096 --max-microbatch 1 --zero 1 --recompute none

# compare: side by side, why each loses to the first, and every strategy error
expect "compare table" 0 "vs #1; #1 loses by exposed tp comm" -- "$bin" compare "${gpt3[@]}" --strategy "tp=8,pp=16,sp=1,zero=1" --strategy "tp=4,pp=32,sp=1,zero=1"
expect "compare json" 0 '"given": "tp=4,pp=32,sp=1,zero=1"' -- "$bin" compare "${gpt3[@]}" --strategy "tp=8,pp=16,sp=1,zero=1" --strategy "tp=4,pp=32,sp=1,zero=1" --format json
expect "compare csv" 0 "1,8,16,1,8,1,1,1,1,1,none,1f1b," -- "$bin" compare "${gpt3[@]}" --strategy "tp=8,pp=16,sp=1,zero=1" --format csv
expect "compare GPU count" 1 '--strategy "tp=8,pp=2,dp=2": --gpus: 1024 GPUs, but --tp 8 x --pp 2 x --dp 2 x --cp 1 = 32' -- "$bin" compare "${gpt3[@]}" --strategy "tp=8,pp=2,dp=2"
expect "compare TP over a node" 1 "--tp: a TP group of 16 is larger than a dgx-h100 node (8 GPUs)" -- "$bin" compare "${gpt3[@]}" --strategy "tp=16,pp=8"
expect "compare TP not dividing heads" 1 "--tp: 5 does not divide gpt3-175b's 96 heads" -- "$bin" compare --model gpt3-175b --cluster dgx-h100 --gpus 40 --global-batch 40 --seq 2048 --strategy "tp=5,pp=8"
expect "compare PP not dividing layers" 1 "--pp: gpt3-175b's 96 layers do not divide into 5 (stages)" -- "$bin" compare --model gpt3-175b --cluster dgx-h100 --gpus 40 --global-batch 40 --seq 2048 --strategy "tp=8,pp=5"
expect "compare global batch" 1 "--global-batch: 100 is not a multiple of --microbatch 1 x --dp 8 = 8" -- "$bin" compare --model gpt3-175b --cluster dgx-h100 --gpus 1024 --global-batch 100 --seq 2048 --strategy "tp=8,pp=16"
expect "compare EP on a dense model" 1 "--ep: gpt3-175b has no experts to spread over 2 GPUs" -- "$bin" compare "${gpt3[@]}" --strategy "tp=8,pp=16,ep=2"
expect "compare EP not dividing experts" 1 "--ep: 16 does not divide mixtral-8x7b's 8 experts" -- "$bin" compare --model mixtral-8x7b --cluster dgx-h100 --gpus 64 --global-batch 64 --seq 4096 --strategy "tp=4,ep=16"
expect "compare VP without interleaving" 1 "--vp: virtual stages (2) need --schedule interleaved" -- "$bin" compare "${gpt3[@]}" --strategy "tp=8,pp=16,vp=2,schedule=1f1b"
expect "compare SP without TP" 1 "--sp: sequence parallelism splits a TP group's tokens; needs --tp > 1" -- "$bin" compare "${gpt3[@]}" --strategy "tp=1,pp=16,sp=1"
expect "compare text not key=value" 1 '--strategy "tp8": "tp8": expected key=value' -- "$bin" compare "${gpt3[@]}" --strategy "tp8"
expect "compare unknown key" 1 'unknown key "tq"' -- "$bin" compare "${gpt3[@]}" --strategy "tq=8"
expect "compare no strategy" 2 "--strategy" -- "$bin" compare "${gpt3[@]}"

# validate --training-runs: the scorecard, its errors, and the baseline CI guards
runs=validate/data/published-training-runs.json
expect "training runs scorecard" 0 "category" -- "$bin" validate --training-runs $runs
expect "training runs skipped by reason" 0 "fp4 training (NVFP4) not modelled" -- "$bin" validate --training-runs $runs
expect "training runs json" 0 '"split_rule": "held out when FNV-1a 64 of the row id % 3 == 0"' -- "$bin" validate --training-runs $runs --format json
expect "training runs markdown" 0 "| category | held-out rows | held-out MAPE | fit rows | fit MAPE |" -- "$bin" validate --training-runs $runs --format markdown
expect "training runs take no --gpu" 1 "--gpu: not with --training-runs" -- "$bin" validate --training-runs $runs --gpu h100-sxm
expect "training runs take no --split" 1 "--split: not with --training-runs" -- "$bin" validate --training-runs $runs --split fit
expect "training runs --worst with json" 1 "--worst: lists the worst rows in the table; not with --format json" -- "$bin" validate --training-runs $runs --format json --worst 3
expect "training runs not with --collectives" 1 "--training-runs: not with --collectives" -- "$bin" validate --training-runs $runs --collectives validate/data/published-collectives.json
expect "training runs missing file" 1 "nope.json" -- "$bin" validate --training-runs nope.json
expect "training-runs baseline holds" 0 "ok    all" -- "$bin" validate --check validate/accuracy_baseline_training_runs.json
expect "training-runs baseline takes no --set" 1 "--set: a training-runs baseline" -- "$bin" validate --check validate/accuracy_baseline_training_runs.json --set hbm.bandwidth_GBps=1

finish
