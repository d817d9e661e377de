#!/usr/bin/env python3
"""A diagnostic of gpt-oss's eager attention kernels at prefill sizes (issue 14). The fit split's
gpt-oss prefill profiles run ATen's register softmax over score rows of kv + 1 (the sinks column)
~20% slower per row than the mask grid measured at 131072 rows, and the max over those rows (a
reduce over a last dim of odd width) at about half of HBM bandwidth. This probe times, on bf16
[rows, cols] tensors, softmax(dim=-1) and amax(dim=-1, keepdim=True) at rows 131072 / 262144 /
524288 and cols 2048 / 2049 / 4096 / 4097, and gpt-oss's own chain at b2 h64 s2048 (cat of the
sinks, max, subtract, softmax, the slice [..., :-1]) each op alone. Each op is captured in a CUDA
graph and replayed (inputs of 0.5-4 GB: nothing stays in L2); 20 replays timed with CUDA events,
median and p10/p90 in us; the kernel each launches from one profiled call.

    python3 row_reduce_probe.py --out $OUT/row-reduce-probe.json
"""

import argparse
import json
import statistics

from ridgeline_measure.environment import device_meta, smi_start_meta, start_meta
from ridgeline_measure.optional import torch


def kernels_of(fn):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return sorted({e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA})


def timed(fn, reps=20):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    g.replay()
    torch.cuda.synchronize()
    us = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        us.append(a.elapsed_time(b) * 1000)
    us.sort()
    return {"median_us": statistics.median(us), "p10_us": us[len(us) // 10],
            "p90_us": us[(9 * len(us)) // 10], "n": reps}


def grid():
    cases = []
    for rows in (131072, 262144, 524288):
        for cols in (2048, 2049, 4096, 4097):
            if rows * cols > 524288 * 2049:  # at most ~2 GB of bf16 input
                continue
            cases.append({"op": "softmax", "rows": rows, "cols": cols})
            cases.append({"op": "amax", "rows": rows, "cols": cols})
    return cases


def run_case(c):
    x = torch.randn(c["rows"], c["cols"], device="cuda", dtype=torch.bfloat16)
    if c["op"] == "softmax":
        out = None
        fn = lambda: torch.softmax(x, dim=-1)  # noqa: E731
    else:
        out = torch.empty(c["rows"], 1, device="cuda", dtype=torch.bfloat16)
        fn = lambda: torch.amax(x, dim=-1, keepdim=True, out=out)  # noqa: E731
    r = dict(c, id=f"{c['op']}-bf16-{c['rows']}x{c['cols']}", dtype="bf16", **timed(fn))
    r["kernels"] = kernels_of(fn)
    del x, out
    torch.cuda.empty_cache()
    return r


def gpt_oss_chain(b=2, h=64, s=2048):
    """transformers' GptOssAttention eager_attention_forward at prefill, op by op."""
    scores = torch.randn(b, h, s, s, device="cuda", dtype=torch.bfloat16)
    sinks = torch.randn(h, device="cuda", dtype=torch.bfloat16).reshape(1, -1, 1, 1).expand(b, -1, s, -1)
    combined = torch.cat([scores, sinks], dim=-1)
    mx = combined.max(dim=-1, keepdim=True).values
    shifted = combined - mx
    probs = torch.softmax(shifted, dim=-1, dtype=shifted.dtype)
    steps = {
        "cat_sinks": lambda: torch.cat([scores, sinks], dim=-1, out=combined),
        "max_keepdim": lambda: torch.max(combined, dim=-1, keepdim=True),
        "sub_max": lambda: torch.sub(combined, mx, out=shifted),
        "softmax": lambda: torch.softmax(shifted, dim=-1, dtype=shifted.dtype),
        "slice_contiguous": lambda: probs[..., :-1].contiguous(),
    }
    out = []
    for name, fn in steps.items():
        r = {"op": f"gpt_oss_{name}", "id": f"gpt-oss-b{b}-h{h}-s{s}-{name}", "batch": b, "heads": h,
             "q_len": s, "kv_len": s, "dtype": "bf16", **timed(fn)}
        r["kernels"] = kernels_of(fn)
        out.append(r)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    meta = start_meta("CUDA graph of one op, replayed 20 times, CUDA events; bf16 randn inputs; "
                      "kernel names from one profiled call (row_reduce_probe.py)")
    device_meta(meta)
    smi_start_meta(meta)
    records = []
    for c in grid():
        records.append(run_case(c))
        print(records[-1]["id"], round(records[-1]["median_us"], 1), flush=True)
    records += gpt_oss_chain()
    for r in records[-5:]:
        print(r["id"], round(r["median_us"], 1), flush=True)
    json.dump({"meta": meta, "records": records}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
