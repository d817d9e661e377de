#!/usr/bin/env bash
# CLI behaviour of --master-weights and --grad-scaler (workloads/autocast.h): the choice shows in
# the table, JSON and CSV, each impossible combination gets one error naming its flag, and the
# measured fp32amp training records are scored. Usage: test_cli_autocast.sh path/to/ridgeline
set -u
bin=$1
source "$(dirname "$0")/expect.sh"

t="predict --gpu h200-sxm --model llama-3-8b --phase train --batch 1 --seq 2048 --runtime hf-transformers --launch eager"
expect "fp32 master weights: casts in the kernel list" 0 "down_proj.autocast_we" -- "$bin" $t --master-weights fp32 --top 12
expect "the table says master weights fp32" 0 "master weights fp32 (autocast)" -- "$bin" $t --master-weights fp32
expect "JSON says master weights fp32" 0 '"master_weights": "fp32"' -- "$bin" $t --master-weights fp32 --format json
expect "CSV says master weights fp32" 0 'master_weights' -- "$bin" $t --master-weights fp32 --format csv
expect "none: no casts" 0 "precision  weights bf16, activations bf16, KV cache bf16" -- "$bin" $t --master-weights none
expect "grad scaler with fp16 master weights" 0 "grad scaler" -- "$bin" $t --weights fp16 --activations fp16 --master-weights fp32 --optimizer adamw --grad-scaler --ignore-memory
expect "--master-weights takes none or fp32" 2 "--master-weights: fp16 not in {none,fp32}" -- "$bin" $t --master-weights fp16
expect "--master-weights only in training" 1 "--master-weights: master weights belong to training (--phase train)" -- "$bin" predict --gpu h200-sxm --model llama-3-8b --phase prefill --seq 512 --master-weights fp32
expect "--master-weights over fp32 weights" 1 "--master-weights: autocast casts the fp32 parameters to --weights bf16 or fp16, got fp32" -- "$bin" $t --master-weights fp32 --weights fp32 --activations fp32
expect "--master-weights with another activation dtype" 1 "--master-weights: autocast computes in one dtype" -- "$bin" $t --master-weights fp32 --activations fp16
expect "--grad-scaler only in training" 1 "--grad-scaler: loss scaling belongs to training" -- "$bin" predict --gpu h200-sxm --model llama-3-8b --phase prefill --seq 512 --weights fp16 --activations fp16 --grad-scaler
expect "--grad-scaler with bf16" 1 "--grad-scaler: loss scaling is for fp16 (--weights fp16); bf16" -- "$bin" $t --master-weights fp32 --optimizer adamw --grad-scaler --ignore-memory
expect "--grad-scaler over fp16 parameters" 1 "--grad-scaler: GradScaler refuses fp16 gradients" -- "$bin" $t --weights fp16 --activations fp16 --optimizer adamw --grad-scaler --ignore-memory
expect "--grad-scaler without an optimizer" 1 "--grad-scaler: GradScaler unscales in scaler.step(optimizer)" -- "$bin" $t --weights fp16 --activations fp16 --master-weights fp32 --grad-scaler
expect "--master-weights with --cluster" 1 "--master-weights: autocast over fp32 parameters is modelled on one GPU" -- "$bin" predict --model llama-3-8b --phase train --seq 2048 --cluster dgx-h100 --gpus 8 --microbatch 1 --global-batch 8 --master-weights fp32

hf=validate/data/h200-sxm-hf-2026-12-01.json
expect "validate scores the fp32amp training records" 0 "train-fp32amp-eager" -- "$bin" validate --workloads --data $hf --runtime hf-transformers
finish
