#!/usr/bin/env python3
"""Grouped GEMMs with routed (uneven) rows against their balanced twins: the experts' GEMMs of
the MoE families at prefill-sized token counts, as transformers' grouped_mm experts run them
(torch._grouped_mm, bf16). Each routed op sends `routed_tokens` tokens to `top_k` of E experts at
random (ops_builders.routed_counts: a seeded draw, the counts recorded) and its twin gives every
expert the mean rows exactly. Written 2026-12-07 to check ridgeline's rule that a grouped GEMM's
row tiles are the expectation of each expert's own ceil(rows / tile) over the routing draw
(model/gemm_cost.cpp), after the rule was written; every op is held out (nothing is fitted).

    python3 routed_grouped_grid.py > routed.jsonl
    python3 measure_ops.py --input routed.jsonl --out raw.json
    python3 routed_grouped_grid.py --convert raw.json out.json   # the op contract's "groups"
"""

import json
import sys

# (name, experts, top_k, hidden, expert intermediate): the families' MoE layers.
MODELS = (("gpt-oss-20b", 32, 4, 2880, 2880), ("qwen3-30b-a3b", 128, 8, 2048, 768),
          ("deepseek-v2-lite", 64, 6, 2048, 1408), ("mixtral-8x7b", 8, 2, 4096, 14336),
          ("qwen2-57b-a14b", 64, 8, 3584, 2560))
TOKENS = (1024, 2048, 4096, 8192)


def grid():
    ops = []
    for name, e, k, h, i in MODELS:
        for proj, n, kk in (("gate_up", 2 * i, h), ("down", h, i)):
            for t in TOKENS:
                mean = (t * k + e - 1) // e
                base = {"op": "gemm", "m": mean, "n": n, "k": kk, "batch": e, "grouped": True,
                        "dtype": "bf16", "split": "holdout"}
                ops.append(dict(base, id=f"grouped-routed-{name}-{proj}-t{t}", routed_tokens=t,
                                top_k=k))
                if t * k % e == 0:
                    ops.append(dict(base, id=f"grouped-even-{name}-{proj}-t{t}"))
    return ops


def convert(raw_path, out_path):
    """measure_ops.py's "batch": G with "grouped": true as the op contract's "groups": G."""
    doc = json.load(open(raw_path))
    for r in doc["records"]:
        if r.pop("grouped", False):
            r["groups"] = r.pop("batch")
    doc["meta"]["format_note"] = ("ridgeline's op contract names a grouped GEMM by \"groups\": G; "
                                  "the raw harness wrote \"batch\": G with \"grouped\": true, "
                                  "converted by routed_grouped_grid.py --convert")
    json.dump(doc, open(out_path, "w"), indent=1)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--convert":
        convert(sys.argv[2], sys.argv[3])
    else:
        for op in grid():
            sys.stdout.write(json.dumps(op, separators=(",", ":")) + "\n")
