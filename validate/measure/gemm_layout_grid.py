#!/usr/bin/env python3
"""A test grid of GEMMs in the three layouts of a training step, on the shapes of a
Llama-3-8B-sized layer: the forward X W^T ("nt", as every other GEMM in these data sets), its
dgrad dY W ("nn": B not transposed) and its wgrad dY^T X ("tn": A transposed), for 512 to 8192
tokens. Ids and the fit/holdout split follow op_grid.py (split_of: a hash of the id).

    python3 gemm_layout_grid.py > gemm_layouts.jsonl
    python3 measure_ops.py --input gemm_layouts.jsonl --out results.json
"""

from op_grid import with_splits, write_jsonl

TOKENS = (512, 2048, 8192)
# (out, in) of q/o, k/v, gate/up and down projections.
WEIGHTS = ((4096, 4096), (1024, 4096), (14336, 4096), (4096, 14336))


def gemm(m, n, k, layout):
    op_id = f"gemm-bf16-{m}x{n}x{k}" + ("" if layout == "nt" else f"-{layout}")
    op = {"id": op_id, "op": "gemm", "m": m, "n": n, "k": k, "dtype": "bf16"}
    if layout != "nt":
        op["layout"] = layout
    return op


def grid():
    ops = []
    for t in TOKENS:
        for out_f, in_f in WEIGHTS:
            ops.append(gemm(t, out_f, in_f, "nt"))     # forward: [t,in] x [out,in]^T
            ops.append(gemm(t, in_f, out_f, "nn"))     # dgrad: [t,out] x [out,in]
            ops.append(gemm(out_f, in_f, t, "tn"))     # wgrad: [t,out]^T x [t,in]
    for size in (1024, 2048, 4096, 8192):
        for layout in ("nt", "nn", "tn"):
            ops.append(gemm(size, size, size, layout))
    return with_splits(ops)


if __name__ == "__main__":
    write_jsonl(grid())
