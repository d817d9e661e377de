#!/usr/bin/env python3
"""Why gpt-oss's eager softmax runs slower inside the model than alone (issue 14): the fourth
families run profiled it at ~2936 us a call in a 4-layer gpt-oss-20b prefill (b2 s2048), the
same op alone runs ~2432 us (row_reduce_probe.py). This probe runs that prefill (transformers'
GptOssForCausalLM, 4 layers, random bf16 weights, sdpa -> eager attention as the class picks,
DynamicCache, logits_to_keep=1) with nvidia-smi sampling SM clock and power every 50 ms, profiles
3 forwards (each attention kernel's duration by name), then times the softmax, the sinks max and
the sinks cat alone on the same shapes right after (eager, CUDA events, 10 calls), with the
clocks sampled again. A fit-type shape of the fourth run's held-out record: the diagnosis, not a
measurement scored by validate.

    python3 gpt_oss_clock_probe.py --out $OUT/gpt-oss-clock-probe.json
"""

import argparse
import json
import statistics
import subprocess
import threading
import time

import hf_families_models as fm
from ridgeline_measure.environment import device_meta, smi_start_meta, start_meta
from ridgeline_measure.optional import torch


class Clocks:
    """nvidia-smi's SM clock and power every 50 ms while running."""

    def __init__(self):
        self.samples, self.proc, self.thread = [], None, None

    def __enter__(self):
        cmd = ["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu",
               "--format=csv,noheader", "-lms", "50"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        return self

    def _read(self):
        for line in self.proc.stdout:
            self.samples.append([v.strip() for v in line.split(",")])

    def __exit__(self, *exc):
        self.proc.terminate()
        self.thread.join(timeout=2)

    def summary(self):
        mhz = [float(s[1].split()[0]) for s in self.samples if len(s) > 2 and "MHz" in s[1]]
        watts = [float(s[2].split()[0]) for s in self.samples if len(s) > 2 and "W" in s[2]]
        if not mhz:
            return {"samples": 0}
        return {"samples": len(mhz), "sm_mhz_min": min(mhz), "sm_mhz_median": statistics.median(mhz),
                "sm_mhz_max": max(mhz), "power_w_median": statistics.median(watts) if watts else None,
                "power_w_max": max(watts) if watts else None}


def attention_kernels(prof):
    keys = ("SoftMax", "softmax", "MaxOps", "CatArrayBatchedCopy", "gemm", "nvjet", "cutlass")
    out = {}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        if any(k in e.name for k in keys):
            d = out.setdefault(e.name[:160], [])
            d.append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
    return {k: {"calls": len(v), "median_us": statistics.median(v), "max_us": max(v)} for k, v in out.items()}


def alone(b, h, s):
    scores = torch.randn(b, h, s, s, device="cuda", dtype=torch.bfloat16)
    sinks = torch.randn(h, device="cuda", dtype=torch.bfloat16).reshape(1, -1, 1, 1).expand(b, -1, s, -1)
    combined = torch.cat([scores, sinks], dim=-1)
    ops = {"softmax": lambda: torch.softmax(combined, dim=-1, dtype=combined.dtype),
           "max_keepdim": lambda: combined.max(dim=-1, keepdim=True),
           "cat_sinks": lambda: torch.cat([scores, sinks], dim=-1)}
    out = {}
    for name, fn in ops.items():
        fn()
        torch.cuda.synchronize()
        us = []
        for _ in range(10):
            a, z = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            z.record()
            z.synchronize()
            us.append(a.elapsed_time(z) * 1000)
        out[name] = {"median_us": statistics.median(us), "min_us": min(us), "max_us": max(us)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    meta = start_meta("gpt-oss-20b 4 layers, prefill b2 s2048 (random ids), 10 warm-up forwards, "
                      "20 timed (CUDA events), 3 profiled; nvidia-smi -lms 50 throughout; then the "
                      "attention's softmax, max and cat alone (gpt_oss_clock_probe.py)")
    device_meta(meta)
    smi_start_meta(meta)
    model, info = fm.build("gpt-oss-20b", 4)
    ids = torch.randint(0, model.config.vocab_size, (2, 2048), device="cuda")
    rec = {"model_info": {k: v for k, v in info.items() if k != "config"}}

    def forward():
        with torch.inference_mode():
            model(input_ids=ids, use_cache=True, logits_to_keep=1)

    with Clocks() as warm:
        for _ in range(10):
            forward()
        torch.cuda.synchronize()
    rec["clocks_warmup"] = warm.summary()
    with Clocks() as timed:
        ms = []
        for _ in range(20):
            a, z = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            forward()
            z.record()
            z.synchronize()
            ms.append(a.elapsed_time(z))
    rec["forward_ms"] = {"median": statistics.median(ms), "min": min(ms), "max": max(ms)}
    rec["clocks_timed"] = timed.summary()
    with Clocks() as prof_clocks:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(3):
                forward()
            torch.cuda.synchronize()
    rec["in_model_kernels"] = attention_kernels(prof)
    rec["clocks_profiled"] = prof_clocks.summary()
    del model
    fm._BUILT.clear()
    torch.cuda.empty_cache()
    time.sleep(0.5)
    with Clocks() as alone_clocks:
        rec["alone"] = alone(2, 64, 2048)
    rec["clocks_alone"] = alone_clocks.summary()
    print(json.dumps({k: v for k, v in rec.items() if k != "in_model_kernels"}, indent=1)[:3000])
    for k, v in sorted(rec["in_model_kernels"].items(), key=lambda kv: -kv[1]["median_us"] * kv[1]["calls"])[:8]:
        print(round(v["median_us"], 1), v["calls"], k[:100])
    json.dump({"meta": meta, "records": [rec]}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
