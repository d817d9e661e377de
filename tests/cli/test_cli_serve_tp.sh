#!/usr/bin/env bash
# CLI behaviour of multi-GPU serving: `ridgeline serve` and `ridgeline capacity` with --cluster C
# --tp N (a tensor-parallel replica, its all-reduces on the cluster's links), --disaggregate P:D
# (prefill and decode pools, the KV cache sent between them), and one clear message naming the
# flag, with a non-zero exit, for every bad combination. Usage: test_cli_serve_tp.sh ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

work=(--model llama-3-70b --engine vllm --input-len 512 --output-len 64 --requests 100)
tp=(serve --cluster hgx-h200 "${work[@]}")

expect "serve tp2 table" 0 "llama-3-70b on h200-sxm tp2 (hgx-h200)" -- "$bin" "${tp[@]}" --tp 2 --rate 2
expect "serve tp4 json" 0 '"gpu": "h200-sxm tp4 (hgx-h200)"' -- "$bin" "${tp[@]}" --tp 4 --rate 2 --format json
expect "serve tp1 on a cluster" 0 "on h200-sxm (hgx-h200)" -- "$bin" serve --cluster hgx-h200 --model llama-3.1-8b --engine vllm --input-len 512 --output-len 64 --requests 50 --rate 2
# TP 1 on the cluster is the single-GPU replica: the same numbers as --gpu.
"$bin" serve --cluster hgx-h200 --model llama-3.1-8b --engine vllm --input-len 512 --output-len 64 --requests 50 --rate 2 --format csv > "$tmp/c.csv"
"$bin" serve --gpu h200-sxm --model llama-3.1-8b --engine vllm --input-len 512 --output-len 64 --requests 50 --rate 2 --format csv > "$tmp/g.csv"
expect "tp1 on a cluster = one GPU" 0 "" -- cmp "$tmp/c.csv" "$tmp/g.csv"
# TP 2's KV pool is larger than TP 1's could be (70B bf16 does not fit one H200 with room).
expect "tp1 70b bf16 leaves no KV" 1 "leaves no KV block" -- "$bin" "${tp[@]}" --tp 1 --rate 2
expect "serve disaggregated" 0 "disaggregated: 1 prefill + 2 decode replicas of 2 GPU(s)" -- "$bin" "${tp[@]}" --tp 2 --rate 2 --disaggregate 1:2
expect "serve disaggregated json" 0 '"transfer_ms_mean"' -- "$bin" "${tp[@]}" --tp 2 --rate 2 --disaggregate 1:2 --format json
expect "serve disaggregated gpus" 0 '"gpus": 6,' -- "$bin" "${tp[@]}" --tp 2 --rate 2 --disaggregate 1:2 --format json
expect "disaggregated across nodes" 0 "4 prefill + 1 decode replicas of 2 GPU(s)" -- "$bin" "${tp[@]}" --tp 2 --rate 2 --disaggregate 4:1
cap=(capacity --cluster hgx-h200 --model llama-3-70b --engine vllm --input-len 512 --output-len 64 --requests 100 --slo ttft_p99=2s,tpot_p99=100ms --target-rate 10)
expect "capacity tp list" 0 "h200-sxm tp4" -- "$bin" "${cap[@]}" --tp 2,4
expect "capacity tp1 row not met" 0 "not met: the weights leave no KV cache on a GPU" -- "$bin" "${cap[@]}" --tp 1,2
expect "capacity disaggregated" 0 "h200-sxm tp2 1:1" -- "$bin" "${cap[@]}" --tp 2 --disaggregate 1:1,1:2
# The gpu column is as wide as its widest label ("h200-sxm tp2 1:1"), the header with it.
expect "capacity gpu column width" 0 "  gpu              engine   precision" -- "$bin" "${cap[@]}" --tp 2,4 --disaggregate 1:1
expect "capacity priced" 0 '"cost_per_hour"' -- "$bin" "${cap[@]}" --tp 2 --price-per-gpu-hour 3.5 --format json

# One message per bad combination.
expect "tp without cluster" 1 "--tp: a multi-GPU replica needs --cluster C" -- "$bin" serve --gpu h200-sxm "${work[@]}" --tp 2 --rate 2
expect "pp without cluster" 1 "--pp: a multi-GPU replica needs --cluster C" -- "$bin" serve --gpu h200-sxm "${work[@]}" --pp 2 --rate 2
expect "gpu with cluster" 1 "--gpu: with --cluster the GPUs are the cluster's" -- "$bin" "${tp[@]}" --gpu h200-sxm --tp 2 --rate 2
expect "neither gpu nor cluster" 1 "--gpu G or --cluster C" -- "$bin" serve "${work[@]}" --rate 2
expect "tp not dividing heads" 1 "--tp: 3 does not divide llama-3-70b's 64 heads" -- "$bin" "${tp[@]}" --tp 3 --rate 2
expect "tp larger than a node" 1 "--tp: a TP group of 16 is larger than a hgx-h200 node" -- "$bin" "${tp[@]}" --tp 16 --rate 2
expect "tp zero" 1 "--tp 0: expected GPUs a replica" -- "$bin" "${tp[@]}" --tp 0 --rate 2
expect "serve tp list" 1 "--tp 2,4: serve runs one replica size" -- "$bin" "${tp[@]}" --tp 2,4 --rate 2
expect "pp runs" 0 "llama-3-70b on h200-sxm tp2 pp2 (hgx-h200), engine vllm" -- "$bin" "${tp[@]}" --tp 2 --pp 2 --rate 2
expect "pp not dividing layers" 1 "--pp: llama-3-70b's 80 layers do not divide into 3 (stages)" -- "$bin" "${tp[@]}" --tp 2 --pp 3 --rate 2
expect "pp under hf-cb refused" 1 "--pp 2: engine hf-cb (transformers' continuous batching) runs the model in one process" -- "$bin" serve --cluster hgx-h200 --model llama-3-8b --engine hf-cb --input-len 512 --output-len 64 --requests 10 --pp 2 --rate 2
expect "pp with dep refused" 1 "--pp 2 with --ep 2: attention data parallelism beside pipeline stages is not simulated" -- "$bin" serve --cluster hgx-h200 --model mixtral-8x7b --engine vllm --input-len 512 --output-len 64 --requests 10 --ep 2 --pp 2 --rate 2
expect "capacity pp under hf-cb refused" 1 "--pp 2: engine hf-cb" -- "$bin" capacity --cluster hgx-h200 --model llama-3-8b --engine vllm,hf-cb --input-len 512 --output-len 64 --requests 10 --pp 2 --slo ttft_p99=2s --target-rate 10
expect "ep with tp refused" 1 "--ep 2 with --tp 2: expert parallelism is served with attention data parallelism over the same ranks" -- "$bin" serve --cluster hgx-h200 --model mixtral-8x7b --engine vllm --input-len 512 --output-len 64 --requests 10 --tp 2 --ep 2 --rate 2
expect "dep runs" 0 "mixtral-8x7b on h200-sxm dep2 (hgx-h200), engine vllm" -- "$bin" serve --cluster hgx-h200 --model mixtral-8x7b --engine vllm --input-len 512 --output-len 64 --requests 10 --ep 2 --rate 2
expect "dep on a dense model refused" 1 "--ep 2: llama-3-8b has no experts to spread" -- "$bin" serve --cluster hgx-h200 --model llama-3-8b --engine vllm --input-len 512 --output-len 64 --requests 10 --ep 2 --rate 2
expect "dep under hf-cb refused" 1 "--engine: a packed_masked attention layout with attention data parallelism (--ep) is not modelled" -- "$bin" serve --cluster hgx-h200 --model mixtral-8x7b --engine hf-cb --input-len 512 --output-len 64 --requests 10 --ep 2 --rate 2
expect "disaggregate without cluster" 1 "--disaggregate 1:1: needs --cluster C" -- "$bin" serve --gpu h200-sxm --model llama-3.1-8b --engine vllm --input-len 512 --output-len 64 --requests 10 --rate 2 --disaggregate 1:1
expect "disaggregate bad split" 1 "--disaggregate 1: expected P:D" -- "$bin" "${tp[@]}" --tp 2 --rate 2 --disaggregate 1
expect "disaggregate too many gpus" 1 "--disaggregate 300:300: 1200 GPUs, more than hgx-h200 has (1024)" -- "$bin" "${tp[@]}" --tp 2 --rate 2 --disaggregate 300:300
expect "disaggregate closed loop" 1 "--disaggregate: needs open-loop arrivals" -- "$bin" "${tp[@]}" --tp 2 --concurrency 4 --disaggregate 1:1
expect "disaggregate warm-up" 1 "--warmup: not with --disaggregate" -- "$bin" "${tp[@]}" --tp 2 --rate 2 --warmup 5 --disaggregate 1:1
expect "disaggregate trace" 1 "--trace: not with --disaggregate" -- "$bin" "${tp[@]}" --tp 2 --rate 2 --trace "$tmp/t.json" --disaggregate 1:1
expect "capacity tp without cluster" 1 "--tp: a multi-GPU replica needs --cluster C" -- "$bin" capacity --gpu h200-sxm --model llama-3.1-8b --engine vllm --input-len 512 --output-len 64 --requests 100 --slo ttft_p99=2s --target-rate 10 --tp 2
expect "capacity tp not dividing" 1 "--tp: 3 does not divide" -- "$bin" "${cap[@]}" --tp 2,3
finish
