#!/usr/bin/env bash
# CLI behaviour of the multi-GPU commands: `ridgeline clusters` (list, show, json),
# `ridgeline collective` from flags and as a JSONL batch (bad lines get {"id","error"}, the rest
# run, the exit status says whether any failed), sizes with suffixes, and each bad flag's message.
# Usage: test_cli_collectives.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

expect "clusters lists presets" 0 "dgx-h100      h100-sxm" -- "$bin" clusters
expect "clusters lists the NVL72 domain" 0 "gb200-nvl72   gb200                  72" -- "$bin" clusters
expect "clusters json" 0 '"nvls_available": true' -- "$bin" clusters --format json
expect "clusters show provenance" 0 "assumed: NCCL 2.30.7 topo.h SM90_NVLINK_BW" -- "$bin" clusters show dgx-h100
expect "clusters show model parameters" 0 "ring/base_us/simple" -- "$bin" clusters show dgx-h100
expect "clusters show json" 0 '"channel_GBps"' -- "$bin" clusters show dgx-h100 --format json
expect "clusters show format before show" 1 "before \`show\` it formats the list" -- "$bin" clusters --format json show dgx-h100
expect "unknown cluster" 1 '--cluster: unknown cluster "dgx-h900"' -- "$bin" collective --cluster dgx-h900 --op all_reduce --gpus 8 --bytes 1
expect "cluster file errors name the path" 1 "bad.json: /scale_up: missing" -- bash -c "echo '{\"name\":\"x\",\"full_name\":\"x\",\"gpu\":\"h100-sxm\",\"gpus_per_node\":{\"value\":8,\"source\":\"assumed: t\"},\"max_nodes\":{\"value\":1,\"source\":\"assumed: t\"},\"scale_out\":{}}' > '$tmp/bad.json'; '$bin' clusters show '$tmp/bad.json'"

# one collective from flags
expect "flags json has the contract fields" 0 '"algorithm": "ring"' -- "$bin" collective --cluster dgx-a100 --op all_reduce --gpus 8 --bytes 1GiB --format json
expect "flags json busbw" 0 '"busbw_GBps"' -- "$bin" collective --cluster dgx-a100 --op all_reduce --gpus 8 --bytes 1073741824 --format json
expect "suffix sizes" 0 '"bytes": 1073741824' -- "$bin" collective --cluster dgx-a100 --op all_reduce --gpus 8 --bytes 1GiB --format json
expect "decimal suffix" 0 '"bytes": 1000000000' -- "$bin" collective --cluster dgx-a100 --op all_gather --gpus 8 --bytes 1GB --format json
expect "NVLS on H100 8 GPUs" 0 '"algorithm": "nvls"' -- "$bin" collective --cluster dgx-h100 --op all_reduce --gpus 8 --bytes 256MiB --format json
expect "multi-node all-to-all" 0 '"nodes": 2' -- "$bin" collective --cluster dgx-h100 --op all_to_all --gpus 16 --bytes 1GiB --format json
expect "gpus per node spreads the group" 0 '"nodes": 4' -- "$bin" collective --cluster dgx-h100 --op all_reduce --gpus 16 --gpus-per-node 4 --bytes 1GiB --format json
expect "table view" 0 "algorithm     proto" -- "$bin" collective --cluster dgx-h100 --op broadcast --gpus 8 --bytes 1MiB
expect "bad size" 1 'flags: /bytes: expected a size in bytes such as 1048576, 64KiB, 1MiB, 1GiB or 1GB, got "1XB"' -- "$bin" collective --cluster dgx-h100 --op all_reduce --gpus 8 --bytes 1XB
expect "missing bytes" 1 "flags: /bytes: missing" -- "$bin" collective --cluster dgx-h100 --op all_reduce --gpus 8
expect "gpus below 1" 1 "flags: /gpus: expected an integer >= 1, got 0" -- "$bin" collective --cluster dgx-h100 --op all_reduce --gpus 0 --bytes 1
expect "unknown op" 1 'flags: /op: expected one of all_reduce, all_gather' -- "$bin" collective --cluster dgx-h100 --op allreduce --gpus 8 --bytes 1
expect "too many GPUs" 1 "ranks: 2048 GPUs at 8 per node need 256 nodes; the cluster has at most 128 (1024 GPUs)" -- "$bin" collective --cluster dgx-h100 --op all_reduce --gpus 2048 --bytes 1
expect "gpus per node above the node" 1 "ranks_per_node: 16 exceeds the cluster's 8 GPUs per node" -- "$bin" collective --cluster dgx-h100 --op all_reduce --gpus 16 --gpus-per-node 16 --bytes 1
expect "gpus per node not dividing" 1 "ranks_per_node: 8 does not divide ranks 12" -- "$bin" collective --cluster dgx-h100 --op all_reduce --gpus 12 --bytes 1
expect "send_recv needs 2" 1 "a send_recv is between 2 ranks, got 4" -- "$bin" collective --cluster dgx-h100 --op send_recv --gpus 4 --bytes 1
expect "neither input nor op" 1 "give either --input FILE or --op OP" -- "$bin" collective --cluster dgx-h100
expect "flag with input" 1 "--gpus: describes one collective from flags" -- "$bin" collective --cluster dgx-h100 --input "$tmp/x.jsonl" --gpus 8
expect "unknown format" 2 "format" -- "$bin" collective --cluster dgx-h100 --op all_reduce --gpus 8 --bytes 1 --format csv

# a JSONL batch
printf '%s\n' '{"id":"a","op":"all_reduce","gpus":8,"bytes":1048576}' \
  '{"id":"bad","op":"all_reduce","gpus":12,"bytes":"1MiB"}' \
  '{"id":"c","op":"all_to_all","gpus":16,"bytes":"1GiB","gpus_per_node":8,"dtype":"fp16"}' \
  '{"id":"d","op":"all_gather","gpus":8,"bytes":1,"colour":"red"}' > "$tmp/mixed.jsonl"
expect "batch keeps good lines" 1 '{"id":"c","op":"all_to_all"' -- "$bin" collective --cluster dgx-h100 --input "$tmp/mixed.jsonl"
expect "batch error object" 1 '{"id":"bad","error":"' -- "$bin" collective --cluster dgx-h100 --input "$tmp/mixed.jsonl"
expect "batch error names line" 1 "mixed.jsonl line 2: all_reduce on dgx-h100: ranks_per_node: 8 does not divide ranks 12" -- "$bin" collective --cluster dgx-h100 --input "$tmp/mixed.jsonl"
expect "batch unknown key" 1 "mixed.jsonl line 4: /colour: unknown key" -- "$bin" collective --cluster dgx-h100 --input "$tmp/mixed.jsonl"
expect "batch summary" 1 "2 of 4 collectives failed" -- "$bin" collective --cluster dgx-h100 --input "$tmp/mixed.jsonl"
expect "batch order" 0 "a c" -- bash -c "'$bin' collective --cluster dgx-h100 --input '$tmp/mixed.jsonl' 2>/dev/null | sed 's/{\"id\":\"\\([a-z]*\\)\".*/\\1/' | grep -v bad | grep -v d | tr '\n' ' '; exit 0"
expect "good batch exits 0" 0 '"id":"a"' -- "$bin" collective --cluster dgx-h100 --input <(head -1 "$tmp/mixed.jsonl")
expect "stdin batch" 0 '"id":"a"' -- bash -c "head -1 '$tmp/mixed.jsonl' | '$bin' collective --cluster dgx-h100 --input -"
expect "missing input file" 1 "--input $tmp/none.jsonl: cannot open file" -- "$bin" collective --cluster dgx-h100 --input "$tmp/none.jsonl"

# validation and the fit on the published tables
data=validate/data/published-collectives.json
expect "validate collectives table" 0 "all                              314" -- "$bin" validate --collectives "$data"
expect "validate collectives json" 0 '"holdout_1MB"' -- "$bin" validate --collectives "$data" --format json
expect "validate collectives bad format" 1 "--format markdown: --collectives prints table or json" -- "$bin" validate --collectives "$data" --format markdown
expect "validate collectives refuses --gpu" 1 "--gpu: not with --collectives" -- "$bin" validate --collectives "$data" --gpu h100-sxm
expect "cluster only with collectives" 1 "--cluster: only with --collectives" -- "$bin" validate --data x.json --cluster dgx-h100
expect "collective baseline check" 0 "collective categories at or below" -- "$bin" validate --check validate/collective_baseline.json
expect "fit-collectives reports" 0 "ridgeline calibrate fit-collectives: dgx-a100 from 193 fit-split rows" -- "$bin" calibrate fit-collectives --data "$data" --cluster dgx-a100
expect "fit-collectives writes a loadable file" 0 "fitted: dgx-a100" -- bash -c "'$bin' calibrate fit-collectives --data '$data' --cluster dgx-a100 --out '$tmp/a100.json' >/dev/null && '$bin' clusters show '$tmp/a100.json'"
expect "validate with a fitted stand-in" 0 "A100/all_reduce/8" -- "$bin" validate --collectives "$data" --cluster "$tmp/a100.json"
expect "fit-collectives no rows" 1 "no fit-split rows measured on cluster \"h100-pcie-8\"" -- "$bin" calibrate fit-collectives --data "$data" --cluster h100-pcie-8
finish
