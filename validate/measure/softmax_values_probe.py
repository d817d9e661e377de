#!/usr/bin/env python3
"""Does ATen's register softmax take longer on masked score rows? (issue 14, after
gpt_oss_clock_probe.py found gpt-oss's softmax 2937 us inside the model and 2446 us alone at the
same shape, clocks at 1980 MHz throughout.) Times torch.softmax(dim=-1) on bf16 [2, 64, 2048,
2049] filled four ways: randn; gpt-oss's combined logits (randn scores + causal mask of the
dtype's min, the sinks column, minus the row max); the same with -inf for the mask; all zeros.
Eager, CUDA events, 10 calls each after one warm-up.

    python3 softmax_values_probe.py --out $OUT/softmax-values-probe.json
"""

import argparse
import json
import statistics

from ridgeline_measure.environment import device_meta, smi_start_meta, start_meta
from ridgeline_measure.optional import torch


def timed(fn):
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
    return {"median_us": statistics.median(us), "min_us": min(us), "max_us": max(us)}


def inputs(b=2, h=64, s=2048):
    dt = torch.bfloat16
    scores = torch.randn(b, h, s, s, device="cuda", dtype=dt)
    causal = torch.ones(s, s, device="cuda", dtype=torch.bool).tril()
    sinks = torch.randn(h, device="cuda", dtype=dt).reshape(1, -1, 1, 1).expand(b, -1, s, -1)
    yield "randn", torch.cat([scores, sinks], dim=-1)
    for name, fill in (("masked_min", torch.finfo(dt).min), ("masked_inf", float("-inf"))):
        w = scores.masked_fill(~causal, fill)
        c = torch.cat([w, sinks], dim=-1)
        yield name, c - c.max(dim=-1, keepdim=True).values
        del w, c
    yield "zeros", torch.zeros(b, h, s, s + 1, device="cuda", dtype=dt)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    meta = start_meta("torch.softmax(dim=-1, dtype=bf16) on [2, 64, 2048, 2049] bf16 filled four ways; "
                      "eager, CUDA events, median of 10 (softmax_values_probe.py)")
    device_meta(meta)
    smi_start_meta(meta)
    records = []
    for name, x in inputs():
        r = {"id": f"softmax-bf16-2x64x2048x2049-{name}", "fill": name,
             **timed(lambda: torch.softmax(x, dim=-1, dtype=x.dtype))}
        records.append(r)
        print(r["id"], round(r["median_us"], 1), flush=True)
        del x
        torch.cuda.empty_cache()
    json.dump({"meta": meta, "records": records}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
