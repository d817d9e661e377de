#!/usr/bin/env python3
"""Deterministic generator of the op grid that ridgeline is validated against.

`python3 op_grid.py > ops.jsonl` prints one JSON object per line, in the
contract format read by measure_ops.py (and by ridgeline's validation code):

    {"id":..., "op":"gemm", ["batch":B,] "m":M, "n":N, "k":K, "dtype":D}
    {"id":..., "op":"attention", "batch":..., "heads":..., "kv_heads":...,
     "head_dim":..., "q_len":..., "kv_len":..., "causal":bool, "dtype":D}
    {"id":..., "op":"elementwise", "kind":K, "numel":N, "dtype":D}
    {"id":..., "op":"reduce", "kind":"sum", "numel":N, "dtype":D}
    {"id":..., "op":"rmsnorm"|"layernorm"|"softmax", "rows":R, "cols":C, "dtype":D}

Sizes are element counts; dtype is one of fp32, tf32, bf16, fp16, fp8.
Elementwise / reduce / norm ops may carry "warm_l2": true, meaning "the
inputs were left in L2 by the previous launch" (measured by replaying on the
same buffers every time).  Every line also carries "split": "fit" or
"holdout"; the split is a pure function of the id (sha256 of the id, mod 10,
< 3 -> holdout), so adding or removing other ops never moves an op between
the fit and holdout sets.

The grid is chosen to expose one effect per section: tile/wave quantisation
and alignment for GEMM, memory- vs compute-bound regimes (square ladder,
skinny decode shapes), real layer shapes (Llama-3 8B/70B), attention prefill
vs decode and GQA, the L2 capacity knee for streaming kernels (warm_l2
sweeps), and launch-latency floors (tiny sizes).

The output order is deterministic (insertion order; duplicates of an id are
dropped, keeping the first).  Options: --stats prints counts per family and
split to stderr; --check validates the grid and exits non-zero on a problem.
"""

import argparse
import collections
import hashlib
import json
import sys

DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")
ELEMENTWISE_KINDS = ("copy", "add", "mul", "mul_scalar", "gelu", "silu", "silu_mul")
NORM_OPS = ("rmsnorm", "layernorm", "softmax")
MIB = 1 << 20

# ---------------------------------------------------------------------------
# Shape lists
# ---------------------------------------------------------------------------

SQUARE_LADDER = (128, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
                 6144, 8192, 12288, 16384)
# (N, K) of the Llama-3-8B and -70B layer GEMMs: QKV, O, gate+up, down.
LLAMA_NK = ((6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336),
            (10240, 8192), (8192, 8192), (57344, 8192), (8192, 28672))
LLAMA_M = (512, 2048, 8192)
# Decode-time (N, K): Llama-3-8B O/QKV-like, gate+up, down, QKV, LM head.
SKINNY_NK = ((4096, 4096), (14336, 4096), (4096, 14336), (6144, 4096),
             (128256, 4096))
SKINNY_M = (1, 2, 4, 8, 16, 32, 64, 128, 256)
BATCHED_MNK = ((2048, 2048, 128), (2048, 128, 2048), (512, 512, 64))
BATCHED_B = (8, 32, 64, 256)
# A few layer shapes for the non-bf16 dtypes.
FEW_LAYER_NK = ((6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336))

ATTN_PREFILL_SEQ = (256, 512, 1024, 2048, 4096, 8192)
ATTN_DECODE_BATCH = (1, 4, 8, 16, 32, 64, 128)
ATTN_DECODE_CTX = (256, 1024, 4096, 16384, 32768)
ATTN_MAX_BYTES = 20e9          # skip attention cases whose q/k/v/o exceed this

POW4_NUMEL = tuple(1 << e for e in range(12, 29, 2))      # 2^12 .. 2^28
FP32_EW_NUMEL = tuple(1 << e for e in range(12, 27, 2)) + (1 << 27,)
# Working set (inputs + output) of the warm-L2 streaming sweeps, in MiB:
# denser between 25 and 90 MiB, where the H100's 50 MiB L2 runs out.
WARM_WORKING_SET_MIB = (2, 4, 8, 12, 16, 20, 25, 30, 35, 40, 45, 50, 55, 60,
                        65, 70, 80, 90, 128, 200)

NORM_ROWS = (1, 8, 64, 256, 1024, 4096, 16384, 65536)
NORM_COLS = (1024, 4096, 8192)
MAX_NORM_ELEMS = 1 << 30

BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}


# ---------------------------------------------------------------------------
# Op constructors (one per contract op kind); each returns a dict whose key
# order matches the contract.
# ---------------------------------------------------------------------------

def gemm(m, n, k, dtype="bf16", batch=None):
    if batch:
        op_id = f"bgemm-{dtype}-b{batch}-{m}x{n}x{k}"
        return {"id": op_id, "op": "gemm", "batch": batch, "m": m, "n": n,
                "k": k, "dtype": dtype}
    op_id = f"gemm-{dtype}-{m}x{n}x{k}"
    return {"id": op_id, "op": "gemm", "m": m, "n": n, "k": k, "dtype": dtype}


def attention(batch, heads, kv_heads, head_dim, q_len, kv_len, causal,
              dtype="bf16"):
    shape = f"b{batch}-h{heads}-kv{kv_heads}-d{head_dim}"
    if q_len == kv_len:
        kind = "causal" if causal else "full"
        op_id = f"attn-prefill-{shape}-s{q_len}-{kind}"
    elif q_len == 1:
        op_id = f"attn-decode-{shape}-ctx{kv_len}"
    else:
        kind = "-causal" if causal else ""
        op_id = f"attn-chunk-{shape}-q{q_len}-ctx{kv_len}{kind}"
    if dtype != "bf16":
        op_id += f"-{dtype}"
    return {"id": op_id, "op": "attention", "batch": batch, "heads": heads,
            "kv_heads": kv_heads, "head_dim": head_dim, "q_len": q_len,
            "kv_len": kv_len, "causal": causal, "dtype": dtype}


def elementwise(kind, numel, dtype="bf16", warm_l2=False):
    op_id = f"ew-{kind}-{dtype}-n{numel}" + ("-warm" if warm_l2 else "")
    op = {"id": op_id, "op": "elementwise", "kind": kind, "numel": numel,
          "dtype": dtype}
    if warm_l2:
        op["warm_l2"] = True
    return op


def reduce_op(kind, numel, dtype="bf16", warm_l2=False):
    op_id = f"reduce-{kind}-{dtype}-n{numel}" + ("-warm" if warm_l2 else "")
    op = {"id": op_id, "op": "reduce", "kind": kind, "numel": numel,
          "dtype": dtype}
    if warm_l2:
        op["warm_l2"] = True
    return op


def norm(op_name, rows, cols, dtype="bf16", warm_l2=False):
    op_id = f"{op_name}-{dtype}-{rows}x{cols}" + ("-warm" if warm_l2 else "")
    op = {"id": op_id, "op": op_name, "rows": rows, "cols": cols,
          "dtype": dtype}
    if warm_l2:
        op["warm_l2"] = True
    return op


# ---------------------------------------------------------------------------
# Grid sections
# ---------------------------------------------------------------------------

def gemm_bf16_section():
    ops = [gemm(s, s, s) for s in SQUARE_LADDER]
    # Wave / tile quantisation: N sweep at M=K=4096, fine sweep at 8192.
    ops += [gemm(4096, n, 4096) for n in range(256, 8192 + 1, 256)]
    ops += [gemm(8192, n, 8192) for n in range(3968, 4352 + 1, 32)]
    # Alignment: leading dimensions that are not multiples of 8 / 16 bytes.
    ops += [gemm(4096, n, 4096) for n in (4095, 4097, 4098, 4100, 4104, 4112)]
    ops += [gemm(4096, 4096, k) for k in (4095, 4097, 4100, 4104)]
    # Skinny decode GEMMs (memory bound on the weight).
    ops += [gemm(m, n, k) for (n, k) in SKINNY_NK for m in SKINNY_M]
    # Llama-3 8B / 70B layer shapes.
    ops += [gemm(m, n, k) for (n, k) in LLAMA_NK for m in LLAMA_M]
    # Batched GEMMs (attention-like bmm shapes).
    ops += [gemm(m, n, k, batch=b) for (m, n, k) in BATCHED_MNK
            for b in BATCHED_B]
    return ops


def gemm_other_dtypes_section():
    ops = [gemm(s, s, s, "fp16") for s in SQUARE_LADDER if 512 <= s <= 8192]
    ops += [gemm(2048, n, k, "fp16") for (n, k) in FEW_LAYER_NK]
    for dt in ("fp32", "tf32"):
        ops += [gemm(s, s, s, dt) for s in SQUARE_LADDER if 256 <= s <= 8192]
        ops += [gemm(2048, n, k, dt) for (n, k) in FEW_LAYER_NK]
    ops += [gemm(s, s, s, "fp8") for s in SQUARE_LADDER if s >= 512]
    ops += [gemm(m, n, k, "fp8") for (n, k) in LLAMA_NK for m in (128, 2048, 8192)]
    ops += [gemm(m, n, k, "fp8") for (n, k) in SKINNY_NK for m in (16, 64)]
    return ops


def attention_bytes(op):
    b, d = op["batch"], op["head_dim"]
    q_o = 2 * b * op["heads"] * op["q_len"] * d
    k_v = 2 * b * op["kv_heads"] * op["kv_len"] * d
    return (q_o + k_v) * BYTES[op["dtype"]]


def attention_section():
    ops = []
    for b in (1, 4, 8):
        seqs = ATTN_PREFILL_SEQ + ((16384,) if b == 1 else ())
        for kvh in (8, 32):
            for s in seqs:
                for causal in (True, False):
                    ops.append(attention(b, 32, kvh, 128, s, s, causal))
    # head_dim 64 subset (16 heads, GQA 4:1 and MHA).
    for kvh in (4, 16):
        for s in (512, 2048, 8192):
            for causal in (True, False):
                ops.append(attention(1, 16, kvh, 64, s, s, causal))
    # Decode: one query token against a KV cache.
    for b in ATTN_DECODE_BATCH:
        for ctx in ATTN_DECODE_CTX:
            ops.append(attention(b, 32, 8, 128, 1, ctx, False))
    # Chunked-prefill-like: 128 new tokens against a 4096-token context.
    for b in (1, 4, 8):
        ops.append(attention(b, 32, 8, 128, 128, 4096, False))
    return [op for op in ops if attention_bytes(op) <= ATTN_MAX_BYTES]


def _round_down(x, multiple):
    return max(multiple, (x // multiple) * multiple)


def elementwise_section():
    ops = [elementwise(kind, n) for kind in ELEMENTWISE_KINDS
           for n in POW4_NUMEL]
    ops += [elementwise(kind, n, "fp32") for kind in ("copy", "add", "silu")
            for n in FP32_EW_NUMEL]
    # Warm-L2 sweeps: tensors per element (inputs + output) x 2 bytes (bf16).
    for kind, tensors in (("copy", 2), ("add", 3)):
        for ws_mib in WARM_WORKING_SET_MIB:
            numel = _round_down(ws_mib * MIB // (tensors * 2), 1024)
            ops.append(elementwise(kind, numel, "bf16", warm_l2=True))
    return ops


def reduce_section():
    return [reduce_op("sum", n, dt) for dt in ("bf16", "fp32")
            for n in POW4_NUMEL]


def norm_section():
    ops = []
    for op_name in NORM_OPS:
        for cols in NORM_COLS:
            for rows in NORM_ROWS:
                if rows * cols <= MAX_NORM_ELEMS:
                    ops.append(norm(op_name, rows, cols))
    ops += [norm("softmax", rows, 32768) for rows in NORM_ROWS if rows <= 4096]
    warm = (("rmsnorm", 256, 4096), ("rmsnorm", 1024, 4096),
            ("rmsnorm", 4096, 4096), ("layernorm", 1024, 4096),
            ("layernorm", 4096, 4096), ("softmax", 1024, 4096),
            ("softmax", 4096, 4096))
    ops += [norm(name, r, c, warm_l2=True) for (name, r, c) in warm]
    return ops


# ---------------------------------------------------------------------------
# Assembly, split, validation
# ---------------------------------------------------------------------------

def split_of(op_id):
    """'holdout' for ~30% of ids, chosen by a stable hash of the id."""
    h = int(hashlib.sha256(op_id.encode("utf-8")).hexdigest(), 16)
    return "holdout" if h % 10 < 3 else "fit"


def family_of(op):
    """Coarse family name used in counts: gemm-<dtype>, attention, ..."""
    if op["op"] == "gemm":
        return f"gemm-{op['dtype']}" + ("-batched" if op.get("batch") else "")
    if op["op"] == "elementwise":
        return "elementwise" + ("-warm" if op.get("warm_l2") else "")
    return op["op"] + ("-warm" if op.get("warm_l2") else "")


def with_splits(ops):
    """The ops with ids unique (the first of each kept, in order), each given its split."""
    by_id = collections.OrderedDict()
    for op in ops:
        by_id.setdefault(op["id"], op)
    out = list(by_id.values())
    for op in out:
        op["split"] = split_of(op["id"])
    return out


def write_jsonl(ops, stream=None):
    """One compact JSON object a line (to stdout by default): the input measure_ops.py reads."""
    stream = stream or sys.stdout
    for op in ops:
        stream.write(json.dumps(op, separators=(",", ":")) + "\n")


def build_grid():
    """Returns the list of op dicts, ids unique, each with its split."""
    sections = (gemm_bf16_section(), gemm_other_dtypes_section(),
                attention_section(), elementwise_section(), reduce_section(),
                norm_section())
    return with_splits(op for section in sections for op in section)


def validate(ops):
    """Returns a list of problems (empty if the grid is consistent)."""
    problems = []
    ids = [op["id"] for op in ops]
    dup = [i for i, c in collections.Counter(ids).items() if c > 1]
    if dup:
        problems.append(f"duplicate ids: {dup[:5]}")
    for op in ops:
        if op.get("dtype") not in DTYPES:
            problems.append(f"{op['id']}: bad dtype")
        if op.get("split") not in ("fit", "holdout"):
            problems.append(f"{op['id']}: bad split")
        if op["op"] == "gemm" and op["dtype"] == "fp8":
            if any(op[d] % 16 for d in ("n", "k")) or (op["m"] % 16 and op["m"] > 16):
                problems.append(f"{op['id']}: fp8 dims must be multiples of 16")
        if op["op"] == "attention":
            if op["causal"] and op["q_len"] != op["kv_len"]:
                problems.append(f"{op['id']}: causal needs q_len == kv_len")
            if op["heads"] % op["kv_heads"]:
                problems.append(f"{op['id']}: heads % kv_heads != 0")
        if op["op"] == "elementwise" and op["kind"] not in ELEMENTWISE_KINDS:
            problems.append(f"{op['id']}: bad elementwise kind")
        if op["op"] in NORM_OPS and op["rows"] * op["cols"] > MAX_NORM_ELEMS:
            problems.append(f"{op['id']}: too many elements")
    return problems


def stats(ops):
    """Returns {family: Counter(split)} in first-seen order."""
    out = collections.OrderedDict()
    for op in ops:
        out.setdefault(family_of(op), collections.Counter())[op["split"]] += 1
    return out


def print_stats(ops, stream):
    total = collections.Counter(op["split"] for op in ops)
    for fam, c in stats(ops).items():
        print(f"{fam:<22} {sum(c.values()):>4}  (holdout {c['holdout']})",
              file=stream)
    n = len(ops)
    print(f"{'total':<22} {n:>4}  (holdout {total['holdout']}, "
          f"{100.0 * total['holdout'] / max(n, 1):.1f}%)", file=stream)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stats", action="store_true",
                    help="print counts per family and split to stderr")
    ap.add_argument("--check", action="store_true",
                    help="validate the grid; exit 1 on a problem")
    args = ap.parse_args(argv)
    ops = build_grid()
    if args.check:
        problems = validate(ops)
        for p in problems:
            print("problem:", p, file=sys.stderr)
        print_stats(ops, sys.stderr)
        return 1 if problems else 0
    try:
        write_jsonl(ops)
        sys.stdout.flush()
    except BrokenPipeError:          # e.g. `op_grid.py | head`
        return 0
    if args.stats:
        print_stats(ops, sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
