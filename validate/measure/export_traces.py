#!/usr/bin/env python3
"""Export PyTorch profiler (Kineto / Chrome trace) files of real Llama-style runs.

These are the traces an engineer already has: `ridgeline validate --trace` matches their
kernels to ridgeline's predicted ops. Each case runs a Llama-3-8B-shaped model from
llama_model.py (random bf16 weights) eagerly, warms up, then profiles one step with
torch.profiler (CPU + CUDA activities) and writes `export_chrome_trace` JSON.

    python3 export_traces.py --out-dir $OUT

Cases: 4 decoder blocks decoding (batch 8, 2048 cached tokens) and 4 decoder blocks
prefilling (batch 1, 2048 tokens). A small meta file records device, versions and clocks.
"""

import argparse
import json
import os
import subprocess
import time

import torch

import llama_model as lm

CASES = [
    {"name": "blocks4-decode-b8-kv2048", "phase": "decode", "batch": 8, "kv_len": 2048},
    {"name": "blocks4-prefill-b1-s2048", "phase": "prefill", "batch": 1, "seq": 2048},
]


def smi():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu",
                               "--format=csv,noheader"], capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception as e:  # noqa: BLE001 - the trace matters more than the meta
        return f"nvidia-smi failed: {e}"


def step_fn(case, model, cfg):
    gen = torch.Generator(device="cuda").manual_seed(1234)
    b = case["batch"]
    if case["phase"] == "decode":
        x = torch.randn(b, 1, cfg.hidden_size, device="cuda", dtype=torch.bfloat16, generator=gen)
        cache = model.new_cache(b, case["kv_len"] + 1)
        return lambda: model(x, cache=cache, pos=case["kv_len"], logits="none")
    x = torch.randn(b, case["seq"], cfg.hidden_size, device="cuda", dtype=torch.bfloat16, generator=gen)
    return lambda: model(x, logits="none")


def export(case, model, cfg, out_dir):
    step = step_fn(case, model, cfg)
    with torch.inference_mode():
        for _ in range(5):
            step()
        torch.cuda.synchronize()
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        # record_shapes: each CPU op's argument shapes, which `ridgeline validate --trace` checks
        # against --batch, --seq and --kv-len.
        with torch.profiler.profile(activities=acts, record_shapes=True) as prof:
            step()
            torch.cuda.synchronize()
    path = os.path.join(out_dir, f"trace-{case['name']}.json")
    prof.export_chrome_trace(path)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out-dir", required=True)
    args = ap.parse_args()
    cfg = lm.LlamaConfig.llama3_8b()
    model = lm.build_model(cfg, num_layers=4, blocks_only=True, device="cuda", dtype=torch.bfloat16,
                           seed=0, rope_len=8192 + 64)
    meta = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "nvidia_smi_start": smi(),
            "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "kernel_paths": lm.kernel_paths(),
            "cases": CASES, "files": []}
    for case in CASES:
        meta["files"].append(export(case, model, cfg, args.out_dir))
        print("wrote", meta["files"][-1], flush=True)
    meta["nvidia_smi_end"] = smi()
    with open(os.path.join(args.out_dir, "traces-meta.json"), "w") as f:
        json.dump(meta, f, indent=2)


if __name__ == "__main__":
    main()
