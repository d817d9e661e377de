#!/usr/bin/env python3
"""One call each of a routed and a balanced grouped GEMM (routed_grouped_grid.py's ops, picked by
--only REGEX), for Nsight Compute: run under
    ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,sm__cycles_active.avg \
        --kernel-name regex:GemmUniversal python3 routed_grouped_ncu.py --only REGEX
to see whether uneven loads re-read expert weights from DRAM (an expert of two row tiles) or only
add tiles. Prints each op's id and row counts in launch order."""

import argparse
import json
import re
import sys

import torch

from routed_grouped_grid import grid
from ridgeline_measure.ops_builders import routed_counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="gpt-oss-20b-gate_up-t1024$")
    args = ap.parse_args()
    for op in grid():
        if not re.search(args.only, op["id"]):
            continue
        e, n, k = op["batch"], op["n"], op["k"]
        counts = routed_counts(op, e) if op.get("routed_tokens") else [op["m"]] * e
        rows = sum(counts)
        offs = torch.tensor(counts, device="cuda", dtype=torch.int32).cumsum(0).to(torch.int32)
        a = torch.randn((rows, k), device="cuda", dtype=torch.bfloat16)
        b = torch.randn((e, n, k), device="cuda", dtype=torch.bfloat16)
        for _ in range(2):
            torch._grouped_mm(a, b.transpose(-2, -1), offs=offs)
        torch.cuda.synchronize()
        print(json.dumps({"id": op["id"], "rows": rows, "max": max(counts), "min": min(counts)}),
              flush=True)
        del a, b


if __name__ == "__main__":
    sys.exit(main())
