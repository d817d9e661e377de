#!/usr/bin/env bash
# CLI behaviour of `ridgeline predict --cluster` (many GPUs): the strategy flags, their errors
# (one message naming the flag and the numbers, non-zero exit), the outputs (table, JSON with
# mfu, bubble_fraction, time_by_stream_us, exposed_comm_us, memory_per_gpu; a trace with a track
# per stage and stream), and that without --cluster nothing changes.
# Usage: test_cli_parallel.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

tiny=examples/models/tiny-llama.json
train=(predict --model "$tiny" --phase train --seq 128 --optimizer adamw --cluster dgx-h100)

# Strategy flags need a cluster; a cluster needs a strategy.
expect "tp without cluster" 1 "--tp: a parallel strategy needs --cluster" -- "$bin" predict --model "$tiny" --phase train --seq 128 --tp 2
expect "cluster without gpus" 1 "--gpus: --cluster needs the number of GPUs" -- "$bin" "${train[@]}" --microbatch 1 --global-batch 8
expect "train needs microbatch" 1 "--microbatch: training on a cluster needs it" -- "$bin" "${train[@]}" --gpus 8 --global-batch 8
expect "train takes no batch" 1 "--batch: training on a cluster takes --microbatch and --global-batch" -- "$bin" "${train[@]}" --gpus 8 --batch 2 --microbatch 1 --global-batch 8
expect "inference takes no global batch" 1 "--global-batch: decode takes --batch" -- "$bin" predict --model "$tiny" --phase decode --kv-len 64 --cluster dgx-h100 --gpus 2 --tp 2 --global-batch 4
expect "gpu comes from the cluster" 1 "--gpu: the GPUs are the cluster's" -- "$bin" "${train[@]}" --gpu h200-sxm --gpus 8 --microbatch 1 --global-batch 8
expect "no csv on a cluster" 1 "--format csv: a prediction on a cluster is table or json" -- "$bin" "${train[@]}" --gpus 8 --microbatch 1 --global-batch 8 --format csv
expect "no top on a cluster" 1 "--top: lists kernels of one GPU" -- "$bin" "${train[@]}" --gpus 8 --microbatch 1 --global-batch 8 --top 3
expect "dp not derivable" 1 "--gpus: 6 GPUs do not divide into --tp x --pp x --cp = 4" -- "$bin" "${train[@]}" --gpus 6 --tp 2 --pp 2 --microbatch 1 --global-batch 8
expect "degrees vs gpus" 1 "--gpus: 8 GPUs, but --tp 2 x --pp 1 x --dp 2 x --cp 1 = 4" -- "$bin" "${train[@]}" --gpus 8 --tp 2 --dp 2 --microbatch 1 --global-batch 8
expect "tp vs heads" 1 "--tp: 8 does not divide tiny-llama's 4 heads" -- "$bin" "${train[@]}" --gpus 8 --tp 8 --microbatch 1 --global-batch 8
expect "pp vs layers" 1 "--pp: tiny-llama's 2 layers do not divide into 4 (stages)" -- "$bin" "${train[@]}" --gpus 8 --pp 4 --microbatch 1 --global-batch 8
expect "pp vs layers: the counted split as a hint" 1 "(counting the embedding and the loss as layers, as Megatron's account_for_*_in_pipeline_split do, would: --pipeline-split-counts embedding,loss)" -- "$bin" "${train[@]}" --gpus 8 --pp 4 --microbatch 1 --global-batch 8
expect "counted split" 0 "PP 4 (split counting the embedding and the loss)" -- "$bin" "${train[@]}" --gpus 4 --pp 4 --pipeline-split-counts embedding,loss --microbatch 1 --global-batch 4
expect "counted split: json" 0 '"pipeline_split_counts": [' -- "$bin" "${train[@]}" --gpus 4 --pp 4 --pipeline-split-counts embedding,loss --microbatch 1 --global-batch 4 --format json
expect "counted split: unknown part" 1 '--pipeline-split-counts: expected embedding, loss or embedding,loss, got "oops"' -- "$bin" "${train[@]}" --gpus 4 --pp 4 --pipeline-split-counts embedding,oops --microbatch 1 --global-batch 4
expect "counted split: twice" 1 '--pipeline-split-counts: "loss" given twice' -- "$bin" "${train[@]}" --gpus 4 --pp 4 --pipeline-split-counts loss,loss --microbatch 1 --global-batch 4
expect "counted split needs a cluster" 1 "--pipeline-split-counts: a parallel strategy needs --cluster" -- "$bin" predict --model "$tiny" --phase train --seq 128 --pipeline-split-counts loss
expect "global batch vs dp" 1 "--global-batch: 6 is not a multiple of --microbatch 1 x --dp 4 = 4" -- "$bin" "${train[@]}" --gpus 8 --tp 2 --microbatch 1 --global-batch 6
expect "tp larger than a node" 1 "--tp: a TP group of 16 is larger than a dgx-h100 node (8 GPUs)" -- "$bin" predict --model llama-3-70b --phase train --seq 128 --cluster dgx-h100 --gpus 16 --tp 16 --microbatch 1 --global-batch 1
expect "vp needs interleaved" 1 "--vp: virtual stages (2) need --schedule interleaved" -- "$bin" "${train[@]}" --gpus 2 --pp 2 --vp 2 --microbatch 1 --global-batch 4
expect "zero out of range" 1 "--zero: a ZeRO stage is 0, 1, 2 or 3, got 5" -- "$bin" "${train[@]}" --gpus 8 --zero 5 --microbatch 1 --global-batch 8
expect "ep on a dense model" 1 "--ep: tiny-llama has no experts" -- "$bin" "${train[@]}" --gpus 8 --ep 2 --microbatch 1 --global-batch 8
expect "unknown schedule" 2 "--schedule" -- "$bin" "${train[@]}" --gpus 8 --schedule zigzag --microbatch 1 --global-batch 8
expect "bad recompute" 2 "--recompute: takes none, selective or full, got most" -- "$bin" "${train[@]}" --gpus 8 --recompute most --microbatch 1 --global-batch 8

# Outputs.
expect "table" 0 "MFU" -- "$bin" "${train[@]}" --gpus 8 --tp 2 --pp 2 --microbatch 1 --global-batch 8
expect "table memory" 0 "memory per GPU (stage 0)" -- "$bin" "${train[@]}" --gpus 8 --tp 2 --pp 2 --microbatch 1 --global-batch 8
expect "json mfu" 0 '"mfu":' -- "$bin" "${train[@]}" --gpus 8 --tp 2 --pp 2 --microbatch 1 --global-batch 8 --format json
expect "json bubble" 0 '"bubble_fraction":' -- "$bin" "${train[@]}" --gpus 8 --tp 2 --pp 2 --microbatch 1 --global-batch 8 --format json
expect "json streams" 0 '"time_by_stream_us":' -- "$bin" "${train[@]}" --gpus 8 --tp 2 --pp 2 --microbatch 1 --global-batch 8 --format json
expect "json exposed" 0 '"exposed_comm_us":' -- "$bin" "${train[@]}" --gpus 8 --tp 2 --pp 2 --microbatch 1 --global-batch 8 --format json
expect "json memory" 0 '"memory_per_gpu":' -- "$bin" "${train[@]}" --gpus 8 --tp 2 --pp 2 --microbatch 1 --global-batch 8 --format json
expect "json parallel inputs" 0 '"schedule": "interleaved"' -- "$bin" "${train[@]}" --gpus 2 --pp 2 --vp 1 --schedule interleaved --microbatch 1 --global-batch 4 --format json
expect "dp derived" 0 '"dp": 4' -- "$bin" "${train[@]}" --gpus 8 --tp 2 --microbatch 1 --global-batch 8 --format json
expect "decode on a cluster" 0 "tokens/s" -- "$bin" predict --model llama-3-70b --phase decode --batch 8 --kv-len 1024 --cluster dgx-h100 --gpus 8 --tp 8
expect "trace" 0 "MFU" -- "$bin" "${train[@]}" --gpus 8 --tp 2 --pp 2 --microbatch 1 --global-batch 8 --trace "$tmp/par.json"
expect "trace has a track per stage and stream" 0 '"name":"stage 1 (h100-sxm)"' -- cat "$tmp/par.json"
expect "trace comm stream" 0 '"comm stream"' -- cat "$tmp/par.json"

# Memory: what does not fit says what would.
expect "does not fit names a change" 1 "try --" -- "$bin" predict --model gpt3-175b --phase train --seq 2048 --optimizer adamw --cluster dgx-h100 --gpus 64 --tp 8 --microbatch 1 --global-batch 64
expect "ignore memory" 0 "does NOT fit" -- "$bin" predict --model gpt3-175b --phase train --seq 2048 --optimizer adamw --cluster dgx-h100 --gpus 64 --tp 8 --microbatch 1 --global-batch 64 --ignore-memory

# Without --cluster: one GPU, as before; a bare --recompute is full recomputation.
expect "bare recompute is full" 0 "recompute.input_norm" -- "$bin" predict --model "$tiny" --phase train --seq 64 --recompute --format csv
expect "selective recompute" 0 "recompute.attention" -- "$bin" predict --model "$tiny" --phase train --seq 64 --recompute selective --format csv
finish
