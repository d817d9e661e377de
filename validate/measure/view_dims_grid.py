#!/usr/bin/env python3
"""A grid of ATen's generic (strided) elementwise kernels by how many dims their TensorIterator
keeps after coalescing ("view_dims"), the layouts of build_view_elementwise in
ridgeline_measure/ops_builders.py: copies and muls of views with 1 to 6 dims (128-element runs;
32 and 64 at 2 dims), a slice copied into a slice, an expanded (broadcast) copy, a row-broadcast
weight and a per-row scale (transformers' RMSNorm), bf16 and fp32, 2^18 to 2^26 elements; and
two of the RoPE-view ops of strided_grid.py again, to see drift. Ids and the fit/holdout split
follow op_grid.py.

    python3 view_dims_grid.py > view-dims.jsonl
    python3 measure_ops.py --input view-dims.jsonl --out results.json
"""

from op_grid import with_splits, write_jsonl
from strided_grid import strided

SIZES = (1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26)


def view_op(kind, view, dims, n, dtype="bf16", **extra):
    tag = "".join(f"-{k}{v}" for k, v in sorted(extra.items()))
    return dict({"id": f"ew-{kind}-{dtype}-n{n}-{view}-d{dims}{tag}", "op": "elementwise",
                 "kind": kind, "numel": n, "dtype": dtype, "strided": True, "view_dims": dims,
                 "view": view}, **extra)


def grid():
    ops = []
    for dims in (1, 2, 3, 4, 5, 6):
        for kind in ("copy", "mul"):
            for n in SIZES:
                ops.append(view_op(kind, "permuted", dims, n))
    for dims in (2, 3, 4):
        for n in (1 << 20, 1 << 22, 1 << 24):
            ops.append(view_op("copy", "permuted", dims, n, "fp32"))
    for inner in (32, 64):
        for n in (1 << 22, 1 << 24):
            ops.append(view_op("copy", "permuted", 2, n, inner=inner))
    for n in SIZES:
        ops.append(view_op("copy", "slice_to_slice", 2, n))
        ops.append(view_op("copy", "expand", 3, n, view_heads=128))
        for dtype in ("bf16", "fp32"):
            ops.append(view_op("mul", "row_broadcast", 2, n, dtype))
            ops.append(view_op("mul", "row_scale", 2, n, dtype))
    ops.append(strided("copy", 8192, 32))
    ops.append(strided("mul", 8192, 32))
    return with_splits(ops)


if __name__ == "__main__":
    write_jsonl(grid())
