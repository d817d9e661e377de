#!/usr/bin/env python3
"""ATen's softmax on masked score rows (issue 14; softmax_values_probe.py found gpt-oss's causally
masked rows ~13% slower than random ones at 2049 columns). A grid for fitting that cost: softmax
(dim=-1) on [rows, cols] in bf16 and fp32 (transformers' eager attention runs it in fp32, gpt-oss
in bf16), each row holding randn values with a fraction f of its columns set to the dtype's min
(the row's last columns: a key-padding or window pattern), f in 0 / 0.25 / 0.5 / 0.75 / 0.9, or
causal (row i of each s x (s + 1) block keeps i + 2 columns: the sinks column and the causal
prefix; the masked fraction ~0.5), or f = 0.5 with -inf. Columns 1025 / 2049 / 4097 / 8192 rows
at 2^27-2^28 elements. Each case's split (fit or holdout, the project's stable 30% hash of its
shape id without the fill) is written before any fit; 10 eager calls timed with CUDA events after
one warm-up, median.

    python3 masked_softmax_grid.py --out $OUT/masked-softmax-grid.json
"""

import argparse
import json
import statistics

from op_grid import split_of
from ridgeline_measure.environment import device_meta, smi_start_meta, start_meta
from ridgeline_measure.optional import torch

FILLS = ("f0", "f0.25", "f0.5", "f0.75", "f0.9", "causal", "f0.5-inf")


def grid():
    cases = []
    for dtype in ("bf16", "fp32"):
        for cols in (1025, 2049, 4097, 8192):
            rows = (1 << 28) // cols if dtype == "bf16" else (1 << 27) // cols
            rows = max(2048, rows // 2048 * 2048)  # whole causal blocks of 2048 rows
            for fill in FILLS:
                shape = f"softmax-{dtype}-{rows}x{cols}"
                cases.append({"id": f"{shape}-{fill}", "split_key": shape, "split": split_of(shape),
                              "op": "softmax", "rows": rows, "cols": cols, "dtype": dtype,
                              "impl": "aten_softmax", "fill": fill})
    return cases


def make_input(c):
    dt = torch.bfloat16 if c["dtype"] == "bf16" else torch.float32
    rows, cols = c["rows"], c["cols"]
    x = torch.randn(rows, cols, device="cuda", dtype=dt)
    low = float("-inf") if c["fill"].endswith("-inf") else torch.finfo(dt).min
    col = torch.arange(cols, device="cuda")
    if c["fill"] == "causal":
        block = 2048  # rows of one causal block: row i keeps its first i + 2 columns
        keep = (torch.arange(rows, device="cuda") % block + 2).clamp(max=cols)
        x.masked_fill_(col[None, :] >= keep[:, None], low)
        c["masked_fraction"] = float(1 - keep.float().mean().item() / cols)
    else:
        f = float(c["fill"].split("-")[0][1:])
        kept = cols - int(round(f * cols))
        if kept < cols:
            x[:, kept:] = low
        c["masked_fraction"] = (cols - kept) / cols
    return x


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
    return {"measured_us": statistics.median(us), "min_us": min(us), "max_us": max(us), "calls": 10}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    meta = start_meta("torch.softmax(dim=-1) on rows x cols with a masked fraction of each row at the "
                      "dtype's min (or -inf); eager, CUDA events, median of 10 after a warm-up "
                      "(masked_softmax_grid.py); split by the hash of the shape id before any fit")
    device_meta(meta)
    smi_start_meta(meta)
    records = []
    for c in grid():
        x = make_input(c)
        c.update(timed(lambda: torch.softmax(x, dim=-1)))
        records.append(c)
        print(c["id"], c["split"], round(c["masked_fraction"], 3), round(c["measured_us"], 1), flush=True)
        del x
        torch.cuda.empty_cache()
    json.dump({"meta": meta, "records": records}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
