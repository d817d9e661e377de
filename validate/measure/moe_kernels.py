#!/usr/bin/env python3
"""Read a measure_moe.py data set: a table of every record (time, routing, kernels per step) and,
for the cases given, the kernels of ONE MoE MLP (router GEMM to the last kernel before the
residual add) from the case's full kernel trace. Standard library only (runs anywhere).

    python3 moe_kernels.py validate/data/h200-sxm-moe-2026-12-01.json \
        [mixtral-8x7b-decode-b1-kv1024-graph ...]

A step's trace holds `layers` identical blocks; block 0 is taken, and its MoE MLP is what
follows the block's second RMSNorm (post_attention_layernorm) up to, not including, its last
kernel (the residual add). Kernels are listed in launch order, consecutive launches of one
kernel merged into one line (count, total us).
"""

import json
import re
import sys

NORM = "vectorized_layer_norm_kernel"


def short_name(name, width=96):
    name = re.sub(r"^void ", "", name)
    name = name.replace("at::native::", "").replace("(anonymous namespace)::", "")
    if name.startswith("_ZN7cutlass13device_kernel") and "GroupProblemShape" in name:
        name = "cutlass grouped GEMM (torch._grouped_mm, sm90 GroupProblemShape) " + name[:40]
    return name[:width]


def moe_mlp_kernels(trace, layers):
    kernels = trace["kernels"]
    if len(kernels) % layers:
        raise ValueError(f"{len(kernels)} kernels do not split into {layers} equal blocks")
    block = kernels[:len(kernels) // layers]
    norms = [i for i, (name, _) in enumerate(block) if NORM in name]
    if len(norms) != 2:
        raise ValueError(f"expected 2 RMSNorm kernels in a block, found {len(norms)}")
    return block[norms[1] + 1:-1]


def runs(kernels):
    """Launch order, consecutive launches of one kernel merged: [(name, count, us)]."""
    rows = []
    for name, us in kernels:
        if rows and rows[-1][0] == name:
            rows[-1][1] += 1
            rows[-1][2] += us
        else:
            rows.append([name, 1, us])
    return rows


def print_records(doc):
    print(f"{'id':<42} {'split':<7} {'median ms':>10} {'kernels':>7}  distinct experts / "
          "max tokens per expert, per layer")
    for r in doc["records"]:
        ms = r.get("median_ms")
        print(f"{r['id']:<42} {r['split']:<7} {ms if ms is None else round(ms, 4):>10} "
              f"{r.get('kernel_count', '-'):>7}  {r.get('distinct_experts_per_layer')} / "
              f"{r.get('max_tokens_per_expert_per_layer')}")


def print_layer(doc, case_id):
    rec = next(r for r in doc["records"] if r["id"] == case_id)
    kernels = moe_mlp_kernels(doc["traces"][case_id], rec["layers"])
    total = sum(us for _, us in kernels)
    print(f"\n{case_id}: one MoE MLP, {len(kernels)} kernels, {total:.1f} us "
          f"(layer 0 of {rec['layers']}; experts with tokens {rec['distinct_experts_per_layer'][0]})")
    for name, count, us in runs(kernels):
        print(f"  {count:>3} {us:>8.1f} us  {short_name(name)}")


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        doc = json.load(f)
    print_records(doc)
    for case_id in argv[2:]:
        print_layer(doc, case_id)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
