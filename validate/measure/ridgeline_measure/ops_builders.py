"""measure_ops.py's op builders: for each op of the grid, how to make one
independent input/output set on the device (torch.randn, never zeros) and the
candidate implementations that call the op (out= variants first, so the timed
region launches only the op's own kernels).
"""

import hashlib

from .optional import F, torch

from .environment import tf32_matmul
from . import device
from .ops_bench import Bench, elem_bytes, empty, randn, torch_dtype  # noqa: F401
from .ops_elementwise import build_elementwise  # noqa: F401
from .ops_triton import triton_layernorm, triton_rmsnorm, triton_softmax


# ---------------------------------------------------------------------------
# TF32 switch for the fp32 / tf32 GEMMs
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Op builders: how to make one input/output set and how to call the op (Bench and the tensor
# helpers in ops_bench.py, the elementwise builders in ops_elementwise.py)
# ---------------------------------------------------------------------------

def build_gemm(op):
    m, n, k, dt = op["m"], op["n"], op["k"], op["dtype"]
    batch = op.get("batch")
    if op.get("grouped"):
        return build_grouped_gemm(m, n, k, batch, dt, op)
    if dt == "fp8":
        if batch:
            raise ValueError("batched fp8 GEMM is not supported")
        return build_gemm_fp8(m, n, k)
    tdt = torch_dtype(dt)
    lead = (batch,) if batch else ()
    nbytes = (batch or 1) * (m * k + n * k + m * n) * elem_bytes(tdt)
    flags = None
    if dt in ("fp32", "tf32"):
        flags = lambda: tf32_matmul(dt == "tf32")   # noqa: E731
    layout = op.get("layout", "nt")
    if layout != "nt":
        # C = op(A) op(B) with A stored [m,k] (n) or [k,m] (t) and B stored [k,n] (n) or
        # [n,k] (t): "nt" is a forward pass X W^T, "nn" its dgrad dY W, "tn" its wgrad dY^T X.
        if batch or layout not in ("nn", "tn"):
            raise ValueError(f"layout {layout!r} is not supported here")
        a_shape = (m, k) if layout[0] == "n" else (k, m)

        def make_set_layout():
            return (randn(a_shape, tdt), randn((k, n), tdt), empty((m, n), tdt))

        def call(s):
            a = s[0] if layout[0] == "n" else s[0].t()
            return torch.mm(a, s[1], out=s[2])

        return Bench(make_set_layout, [("torch.mm(out=) " + layout, call)], nbytes, flags=flags)

    def make_set():
        return (randn(lead + (m, k), tdt), randn(lead + (n, k), tdt),
                empty(lead + (m, n), tdt))

    if batch:
        candidates = [
            ("torch.bmm(out=)", lambda s: torch.bmm(s[0], s[1].transpose(1, 2), out=s[2])),
            ("torch.bmm", lambda s: torch.bmm(s[0], s[1].transpose(1, 2))),
        ]
    else:
        candidates = [
            ("torch.mm(out=)", lambda s: torch.mm(s[0], s[1].t(), out=s[2])),
            ("torch.matmul", lambda s: torch.matmul(s[0], s[1].t())),
        ]
    return Bench(make_set, candidates, nbytes, flags=flags)


def routed_counts(op, groups):
    """Rows per expert of a routed op (routed_tokens tokens, each to top_k distinct experts of
    `groups`, chosen uniformly at random: the top_k of a uniform random score per expert), drawn
    with a generator seeded by the op's id, so a rerun draws the same loads."""
    seed = int(hashlib.sha256(op["id"].encode("utf-8")).hexdigest(), 16) % (2 ** 31)
    gen = torch.Generator().manual_seed(seed)
    scores = torch.rand((op["routed_tokens"], groups), generator=gen)
    ids = scores.topk(op["top_k"], dim=1).indices.flatten()
    return torch.bincount(ids, minlength=groups).tolist()


def build_grouped_gemm(m, n, k, groups, dt, op=None):
    """torch._grouped_mm as an MoE layer runs it (transformers' grouped_mm experts): A [rows, k],
    B [G, n, k] (C = A B^T per group, B passed transposed as torch._grouped_mm wants), int32 end
    offsets; out [rows, n] (no out=: the op allocates it, from the graph's pool when captured).
    Balanced: every group m rows (offsets m, 2m, ..., G*m). Routed (op has routed_tokens and
    top_k): each group's rows a random routing's load (routed_counts), recorded in op["counts"]."""
    if dt != "bf16":
        raise ValueError("grouped GEMM is measured in bf16 only")
    if not groups or groups < 1:
        raise ValueError("grouped GEMM needs batch (the group count) >= 1")
    if not hasattr(torch, "_grouped_mm"):
        raise RuntimeError(f"torch._grouped_mm is missing in torch {torch.__version__}")
    tdt = torch.bfloat16
    counts = [m] * groups
    if op is not None and op.get("routed_tokens"):
        counts = routed_counts(op, groups)
        op["counts"] = counts
    rows = sum(counts)
    nbytes = (rows * k + groups * n * k + rows * n) * elem_bytes(tdt)
    ends = [0] * groups
    acc = 0
    for i, c in enumerate(counts):
        acc += c
        ends[i] = acc
    offsets = torch.tensor(ends, device=device.DEVICE, dtype=torch.int32)

    def make_set():
        return (randn((rows, k), tdt), randn((groups, n, k), tdt))

    def call(s):
        return torch._grouped_mm(s[0], s[1].transpose(-2, -1), offs=offsets)

    return Bench(make_set, [("torch._grouped_mm(A, B.transpose(-2, -1), offs=)", call)], nbytes)


def build_gemm_fp8(m, n, k):
    f8 = torch.float8_e4m3fn
    one = torch.ones((), device=device.DEVICE, dtype=torch.float32)   # unit scales

    def make_set():
        a = randn((m, k), torch.bfloat16).to(f8)   # [m, k] row-major
        b = randn((n, k), torch.bfloat16).to(f8)   # [n, k] row-major: b.t() is column-major
        return (a, b, empty((m, n), torch.bfloat16))

    candidates = [
        ("aten._scaled_mm.out", lambda s: torch.ops.aten._scaled_mm.out(
            s[0], s[1].t(), one, one, out_dtype=torch.bfloat16, out=s[2])),
        ("torch._scaled_mm", lambda s: torch._scaled_mm(
            s[0], s[1].t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)),
    ]
    nbytes = m * k + n * k + 2 * m * n
    return Bench(make_set, candidates, nbytes)


def build_attention(op):
    b, h, kvh, d = op["batch"], op["heads"], op["kv_heads"], op["head_dim"]
    ql, kl, causal = op["q_len"], op["kv_len"], bool(op["causal"])
    tdt = torch_dtype(op["dtype"])
    gqa = kvh != h

    def make_set():
        return (randn((b, h, ql, d), tdt), randn((b, kvh, kl, d), tdt),
                randn((b, kvh, kl, d), tdt))

    candidates = [("F.scaled_dot_product_attention",
                   lambda s: F.scaled_dot_product_attention(
                       s[0], s[1], s[2], is_causal=causal, enable_gqa=gqa))]
    if not gqa:   # for an older torch without enable_gqa
        candidates.append(("F.scaled_dot_product_attention(no enable_gqa)",
                           lambda s: F.scaled_dot_product_attention(
                               s[0], s[1], s[2], is_causal=causal)))
    nbytes = (2 * b * h * ql * d + 2 * b * kvh * kl * d) * elem_bytes(tdt)
    return Bench(make_set, candidates, nbytes)


def build_reduce(op):
    if op["kind"] != "sum":
        raise ValueError(f"unknown reduce kind {op['kind']!r}")
    n = op["numel"]
    tdt = torch_dtype(op["dtype"])

    def make_set():
        return (randn((n,), tdt), empty((), tdt))

    candidates = [
        ("torch.sum(dim=0,out=)", lambda s: torch.sum(s[0], dim=0, out=s[1])),
        ("Tensor.sum", lambda s: s[0].sum()),
    ]
    return Bench(make_set, candidates, (n + 1) * elem_bytes(tdt))


def build_norm(op):
    kind, rows, cols = op["op"], op["rows"], op["cols"]
    tdt = torch_dtype(op["dtype"])
    es = elem_bytes(tdt)

    def make_set():
        return (randn((rows, cols), tdt), empty((rows, cols), tdt))

    weight = randn((cols,), tdt)      # shared by all sets (tiny)
    alt = ()
    if kind == "rmsnorm":
        candidates = [("F.rms_norm", lambda s: F.rms_norm(s[0], (cols,), weight, eps=1e-6))]
        alt = [("triton_rmsnorm", lambda s: triton_rmsnorm(s[0], weight, s[1], 1e-6))]
        nbytes = 2 * rows * cols * es + cols * es
    elif kind == "layernorm":
        bias = randn((cols,), tdt)
        candidates = [("F.layer_norm", lambda s: F.layer_norm(
            s[0], (cols,), weight, bias, eps=1e-5))]
        alt = [("triton_layernorm",
                lambda s: triton_layernorm(s[0], weight, bias, s[1], 1e-5))]
        nbytes = 2 * rows * cols * es + 2 * cols * es
    elif kind == "softmax":
        candidates = [
            ("aten._softmax.out", lambda s: torch.ops.aten._softmax.out(s[0], -1, False, out=s[1])),
            ("torch.softmax", lambda s: torch.softmax(s[0], dim=-1)),
        ]
        alt = [("triton_softmax", lambda s: triton_softmax(s[0], s[1]))]
        nbytes = 2 * rows * cols * es
    else:
        raise ValueError(f"unknown norm op {kind!r}")
    return Bench(make_set, candidates, nbytes, alt_candidates=alt)


BUILDERS = {"gemm": build_gemm, "attention": build_attention,
            "elementwise": build_elementwise, "reduce": build_reduce,
            "rmsnorm": build_norm, "layernorm": build_norm, "softmax": build_norm}


def build_bench(op):
    if op.get("op") not in BUILDERS:
        raise ValueError(f"unknown op {op.get('op')!r}")
    return BUILDERS[op["op"]](op)
