#!/usr/bin/env python3
"""A test-only grid of memory-bound kernels around the rules the model took on 2026-12-01, drawn
up before any of it was measured: torch.sum on both sides of ATen's split (256 values per thread
of a 512-thread block, 131072 elements) and up to many CTAs; single-pass norms and softmax from
one row to many rows per SM (a lone CTA per SM pays its loads and its math, many overlap them);
small elementwise kernels with and without transcendental math. Ids and the fit/holdout split
follow op_grid.py (split_of: a hash of the id).

    python3 memory_grid.py > memory.jsonl
    python3 measure_ops.py --input memory.jsonl --out results.json
"""

from op_grid import elementwise, norm, reduce_op, with_splits, write_jsonl

REDUCE_NUMEL = (1024, 4096, 16384, 32768, 65536, 98304, 130560, 131072, 196608, 262144,
                524288, 1048576, 2097152, 4194304, 8388608)
ROWS = (1, 8, 66, 132, 528, 2112)
COLS = (2048, 8192, 16384, 32768)
EW_NUMEL = (4096, 16384, 65536, 131072, 262144, 1048576)


def grid():
    ops = []
    for dtype in ("bf16", "fp32"):
        for n in REDUCE_NUMEL:
            ops.append(reduce_op("sum", n, dtype))
    for name in ("rmsnorm", "layernorm", "softmax"):
        for rows in ROWS:
            for cols in COLS:
                ops.append(norm(name, rows, cols))
    for kind in ("add", "mul_scalar", "silu", "gelu"):
        for n in EW_NUMEL:
            ops.append(elementwise(kind, n))
    for n in EW_NUMEL:
        ops.append(elementwise("silu", n, "fp32"))
    return with_splits(ops)


if __name__ == "__main__":
    write_jsonl(grid())
