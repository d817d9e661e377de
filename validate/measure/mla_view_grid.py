#!/usr/bin/env python3
"""A second view grid (after view_dims_grid.py): the three copies of transformers'
DeepseekV3Attention.expand_kv (5.17; build_mla_copy in ridgeline_measure/ops_builders.py) at
DeepSeek-V3's 128 heads, DeepSeek-V2-Lite's 16 and 32, over 512 to 4096 cached tokens, and the
permuted copies of view_dims_grid.py at 2^28 elements (the size those copies reach). Ids and
the fit/holdout split follow op_grid.py.

    python3 mla_view_grid.py > mla-view.jsonl
"""

from op_grid import with_splits, write_jsonl
from view_dims_grid import view_op

SHAPES = ((4, 1025, 128), (16, 2049, 128), (8, 513, 128), (1, 4097, 128), (32, 513, 128),
          (16, 1025, 16), (64, 513, 16), (4, 3073, 16), (8, 2049, 32))


def mla(part, b, kv, h):
    n = b * h * kv * (64 if part == "k_rot" else 128)
    return {"id": f"ew-copy-bf16-n{n}-mla-{part}-b{b}-h{h}-kv{kv}", "op": "elementwise",
            "kind": "copy", "numel": n, "dtype": "bf16", "strided": True,
            "view_dims": 3 if part == "k_rot" else 4, "view": "mla", "part": part,
            "view_batch": b, "view_heads": h, "view_kv": kv}


def grid():
    ops = [mla(part, b, kv, h) for b, kv, h in SHAPES for part in ("k_nope", "v", "k_rot")]
    for dims in (2, 4):
        ops.append(view_op("copy", "permuted", dims, 1 << 28))
    return with_splits(ops)


if __name__ == "__main__":
    write_jsonl(grid())
