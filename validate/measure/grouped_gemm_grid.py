#!/usr/bin/env python3
"""A test grid of grouped GEMMs, the experts' GEMMs of an MoE layer as transformers' grouped_mm
path runs them: torch._grouped_mm over G groups of m rows each (balanced), B per group [n, k]
(ridgeline's C = A B^T contract), bf16, for the gate_up and down projections of Mixtral-8x7B
(28672 x 4096, 4096 x 14336) and of validate/data/models/moe-128x8.json (1536 x 2048,
2048 x 768); G in 1, 2, 8, 32, 128 and m in 1, 4, 16, 64, 256, leaving out the cases whose
operands pass ~8 GB. Alongside, each shape as an ordinary torch.mm at the same m (one expert's
GEMM) for comparison. Ids and the fit/holdout split follow op_grid.py (split_of: a hash of the
id).

    python3 grouped_gemm_grid.py > grouped.jsonl
    python3 measure_ops.py --input grouped.jsonl --out results.json
"""

from op_grid import with_splits, write_jsonl

GROUPS = (1, 2, 8, 32, 128)
ROWS = (1, 4, 16, 64, 256)
# (n, k): Mixtral gate_up, Mixtral down, moe-128x8 gate_up, moe-128x8 down.
SHAPES = ((28672, 4096), (4096, 14336), (1536, 2048), (2048, 768))
MAX_BYTES = 8e9


def grouped(g, m, n, k):
    return {"id": f"gemm-grouped-bf16-g{g}-m{m}-{n}x{k}", "op": "gemm", "m": m, "n": n, "k": k,
            "batch": g, "grouped": True, "dtype": "bf16"}


def grid():
    ops = []
    for n, k in SHAPES:
        for g in GROUPS:
            for m in ROWS:
                if g * (m * k + n * k + m * n) * 2 <= MAX_BYTES:
                    ops.append(grouped(g, m, n, k))
    for n, k in SHAPES:
        for m in ROWS:
            ops.append({"id": f"gemm-bf16-{m}x{n}x{k}", "op": "gemm", "m": m, "n": n, "k": k,
                        "dtype": "bf16"})
    return with_splits(ops)


if __name__ == "__main__":
    write_jsonl(grid())
