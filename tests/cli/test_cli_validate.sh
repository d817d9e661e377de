#!/usr/bin/env bash
# CLI behaviour of validation, calibration and what-ifs without silent defaults: the GPU comes from
# the data file (a contradicting --gpu is refused), a trace's recorded shapes are checked, --set
# keeps and names the profile and takes relative values, compute what-ifs load, and --profile
# takes a built-in profile's name. Usage: test_cli_validate.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

d=validate/data
h200=$d/h200-sxm-ops-2026-11-29.json
expect "validate takes the GPU from the data file" 0 "ridgeline validate: h200-sxm against $h200" -- "$bin" validate --data $h200
expect "validate takes the GPU of whole-model runs" 0 "ridgeline validate: h200-sxm against" -- "$bin" validate --workloads --data $d/h200-sxm-models-2026-11-29.json
expect "validate refuses a --gpu the file contradicts" 1 "--gpu h100-sxm: $h200 (meta/device_name \"NVIDIA H200\") was measured on h200-sxm, not h100-sxm; leave --gpu out or give --gpu h200-sxm" -- "$bin" validate --gpu h100-sxm --data $h200
expect "validate takes a --gpu the file agrees with" 0 "ridgeline validate: h200-sxm against" -- "$bin" validate --gpu h200-sxm --data $h200
expect "validate refuses files of two GPUs" 1 "--data: the files were measured on different GPUs" -- "$bin" validate --data $h200 --data $d/h100-sxm-norms-2026-11-29.json
expect "validate cross-GPU through --profile" 0 "ridgeline validate: h200-sxm against" -- "$bin" validate --data $h200 --profile h100-sxm
printf '{"meta": {"device_name": "NVIDIA H300"}, "records": []}' > "$tmp/h300.json"
expect "validate asks for --gpu for an unknown device" 1 "$tmp/h300.json: /meta/device_name: no GPU preset is a \"NVIDIA H300\"" -- "$bin" validate --data "$tmp/h300.json"
printf '{"meta": {}, "records": []}' > "$tmp/nodevice.json"
expect "validate asks for --gpu when the file names no device" 1 "$tmp/nodevice.json: records no device" -- "$bin" validate --data "$tmp/nodevice.json"
expect "validate --check takes no --gpu" 1 "--gpu: not with --check, whose baseline names its GPU, profile and data sets" -- "$bin" validate --check validate/accuracy_baseline.json --gpu h200-sxm
expect "validate --check takes no workload flag" 1 "--batch: not with --check (the flag describes a --trace workload)" -- "$bin" validate --check validate/accuracy_baseline.json --batch 8
expect "validate --data takes no workload flag" 1 "--kv-len: not with --data (the flag describes a --trace workload)" -- "$bin" validate --data $h200 --kv-len 2048
expect "validate --trace takes no --format" 1 "--format: not with --trace, which compares one trace with one workload in a table" -- "$bin" validate --trace $d/traces/trace-blocks4-decode-b8-kv2048.json --model llama-3-8b --blocks 4 --phase decode --batch 8 --kv-len 2048 --format json
sed 's/"gpu": "h200-sxm"/"gpu": "h100-sxm"/' validate/accuracy_baseline_h200_from_h100.json > "$tmp/baseline.json"
expect "a baseline whose GPU is not its data's" 1 "$tmp/baseline.json: /gpu h100-sxm: validate/data/h200-sxm-ops-2026-11-29.json (meta/device_name \"NVIDIA H200\") was measured on h200-sxm" -- "$bin" validate --check "$tmp/baseline.json"

q=$d/h200-sxm-calibration-quick-2026-12-01.json
expect "calibrate fit takes the GPU from the data file" 0 "ridgeline calibrate fit: h200-sxm from" -- "$bin" calibrate fit --data $q
expect "calibrate fit refuses a --gpu the file contradicts" 1 "--gpu h100-sxm: $q (meta/device/name \"NVIDIA H200\") was measured on h200-sxm, not h100-sxm; leave --gpu out" -- "$bin" calibrate fit --gpu h100-sxm --data $q --force --out "$tmp/wrong.json"
expect "... and writes no profile" 1 "" -- test -e "$tmp/wrong.json"

tr=$d/traces/trace-blocks4-decode-b8-kv2048.json
expect "trace without shapes says so" 0 "shapes: the trace records none (profile with record_shapes=True); --batch, --seq and --kv-len not checked against it" -- "$bin" validate --trace $tr --model llama-3-8b --blocks 4 --phase decode --batch 8 --kv-len 2048
expect "trace takes its GPU from the trace" 0 "pytorch-eager on h100-sxm" -- "$bin" validate --trace $tr --model llama-3-8b --blocks 4 --phase decode --batch 8 --kv-len 2048
expect "trace refuses a --gpu it contradicts" 1 "--gpu h200-sxm: $tr (deviceProperties/0/name \"NVIDIA H100 80GB HBM3\") was measured on h100-sxm" -- "$bin" validate --gpu h200-sxm --trace $tr --model llama-3-8b --blocks 4 --phase decode --batch 8 --kv-len 2048
# Real H200 traces taken with record_shapes=True (traces-meta-h200-shapes.json).
sd=$d/traces/trace-h200-shapes-blocks4-decode-b8-kv2048.json
sp=$d/traces/trace-h200-shapes-blocks4-prefill-b1-s2048.json
expect "trace shapes that match" 0 "shapes: aten::scaled_dot_product_attention (batch 8, 1 query and 2049 keys per sequence) match --batch and the lengths" -- "$bin" validate --trace $sd --model llama-3-8b --blocks 4 --phase decode --batch 8 --kv-len 2048
expect "a shaped trace takes its GPU from the trace" 0 "pytorch-eager on h200-sxm" -- "$bin" validate --trace $sd --model llama-3-8b --blocks 4 --phase decode --batch 8 --kv-len 2048
expect "trace of another batch" 1 "--batch 4: $sd ran batch 8" -- "$bin" validate --trace $sd --model llama-3-8b --blocks 4 --phase decode --batch 4 --kv-len 2048
expect "trace of another cache length" 1 "--kv-len 1024: $sd ran over 2048 cached tokens" -- "$bin" validate --trace $sd --model llama-3-8b --blocks 4 --phase decode --batch 8 --kv-len 1024
expect "prefill trace shapes that match" 0 "(batch 1, 2048 queries and 2048 keys per sequence) match" -- "$bin" validate --trace $sp --model llama-3-8b --blocks 4 --phase prefill --seq 2048
expect "prefill trace of another length" 1 "--seq 1024: $sp ran 2048 tokens" -- "$bin" validate --trace $sp --model llama-3-8b --blocks 4 --phase prefill --seq 1024
expect "prefill trace given as decode" 1 "--phase decode: $sp ran 2048 queries per sequence, not one" -- "$bin" validate --trace $sp --model llama-3-8b --blocks 4 --phase decode --batch 1 --kv-len 2048

ops=examples/ops/gemm-what-ifs.jsonl
expect "--set keeps and names the profile" 0 "profile hardware/profiles/h100-sxm.json (own) [what-if memory.hbm.bandwidth_GBps=4800]" -- "$bin" op --gpu h100-sxm --input $ops --format table --set memory.hbm.bandwidth_GBps=4800
expect "a relative what-if shows its value" 0 "[what-if memory.hbm.bandwidth_GBps=+30% (4355)]" -- "$bin" op --gpu h100-sxm --input $ops --format table --set memory.hbm.bandwidth_GBps=+30%
expect "gpus show lists a what-if with its value" 0 "what-if: --set memory.hbm.bandwidth_GBps=1.3x (4355)" -- "$bin" gpus show h100-sxm --set memory.hbm.bandwidth_GBps=1.3x
expect "a compute what-if loads; stated peaks follow" 0 "what-if: derived from --set compute.sm_count=144" -- "$bin" gpus show h100-sxm --set compute.sm_count=144
expect "a clock what-if loads" 0 "derived from --set compute.tensor_clock_MHz=1980" -- "$bin" gpus show h100-sxm --set compute.tensor_clock_MHz=1980
expect "a relative value on a text field" 1 "--set vendor=+30%: /vendor: a relative value (+30%) needs a number field" -- "$bin" gpus show h100-sxm --set vendor=+30%
expect "a relative value leaving nothing" 1 "--set memory.hbm.bandwidth_GBps=-100%: /memory/hbm/bandwidth_GBps/value: expected a positive number, got 0" -- "$bin" gpus show h100-sxm --set memory.hbm.bandwidth_GBps=-100%
expect "--profile takes a built-in profile's name" 0 "profile hardware/profiles/h100-sxm.json (given)" -- "$bin" op --gpu h200-sxm --profile h100-sxm --input $ops --format table
expect "--profile takes the path outputs print" 0 "profile hardware/profiles/h100-sxm.json (given)" -- "$bin" op --gpu h200-sxm --profile hardware/profiles/h100-sxm.json --input $ops --format table
expect "--profile of an unknown name" 1 "--profile h300-sxm: no such profile; built in: h100-sxm, h200-sxm" -- "$bin" op --gpu h200-sxm --profile h300-sxm --input $ops --format table

finish
