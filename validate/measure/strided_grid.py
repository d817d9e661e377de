#!/usr/bin/env python3
"""A grid of the strided elementwise kernels a Hugging Face-style model launches around RoPE
(see build_strided_elementwise in measure_ops.py): q or k as a transposed [T, h, 128] view times
a broadcast cos/sin table, the negated half, and the contiguous copy of such a view, for 128 to
16384 tokens and 32 (q) or 8 (k) heads. Ids and the fit/holdout split follow op_grid.py.

    python3 strided_grid.py > strided.jsonl
    python3 measure_ops.py --input strided.jsonl --out results.json
"""

from op_grid import with_splits, write_jsonl

TOKENS = (128, 512, 2048, 8192, 16384)


def strided(kind, tokens, heads):
    n = tokens * heads * 128 // (2 if kind == "mul_scalar" else 1)
    return {"id": f"ew-{kind}-bf16-n{n}-strided-h{heads}", "op": "elementwise", "kind": kind,
            "numel": n, "dtype": "bf16", "strided": True, "view_heads": heads}


def grid():
    ops = []
    for kind in ("mul", "mul_scalar", "copy"):
        for heads in (32, 8):
            for t in TOKENS:
                ops.append(strided(kind, t, heads))
    return with_splits(ops)


if __name__ == "__main__":
    write_jsonl(grid())
