"""measure_ops.py's op builders: for each op of the grid, how to make one
independent input/output set on the device (torch.randn, never zeros) and the
candidate implementations that call the op (out= variants first, so the timed
region launches only the op's own kernels).
"""

import contextlib

from .optional import F, torch

from .environment import tf32_matmul
from . import device
from .ops_triton import (triton_layernorm, triton_rmsnorm, triton_silu_mul,
                         triton_softmax)


# ---------------------------------------------------------------------------
# TF32 switch for the fp32 / tf32 GEMMs
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Op builders: how to make one input/output set and how to call the op
# ---------------------------------------------------------------------------

class Bench:
    """One op: a set factory, candidate implementations, bytes per set."""

    def __init__(self, make_set, candidates, bytes_per_set, flags=None,
                 alt_candidates=()):
        self.make_set = make_set                # () -> tuple of tensors
        self.candidates = candidates            # [(name, fn(set))], first that works
        self.bytes_per_set = int(bytes_per_set)  # bytes one call reads + writes
        self.flags = flags or contextlib.nullcontext
        self.alt_candidates = alt_candidates    # optional second implementation


def torch_dtype(name):
    table = {"fp32": torch.float32, "tf32": torch.float32,
             "bf16": torch.bfloat16, "fp16": torch.float16}
    if name not in table:
        raise ValueError(f"dtype {name!r} not supported for this op")
    return table[name]


def elem_bytes(dtype):
    return torch.empty((), dtype=dtype).element_size()


def randn(shape, dtype):
    return torch.randn(tuple(shape), device=device.DEVICE, dtype=dtype)


def empty(shape, dtype):
    return torch.empty(tuple(shape), device=device.DEVICE, dtype=dtype)


def build_gemm(op):
    m, n, k, dt = op["m"], op["n"], op["k"], op["dtype"]
    batch = op.get("batch")
    if op.get("grouped"):
        return build_grouped_gemm(m, n, k, batch, dt)
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


def build_grouped_gemm(m, n, k, groups, dt):
    """torch._grouped_mm as an MoE layer runs it (transformers' grouped_mm experts): A [G*m, k]
    (every group m rows, balanced), B [G, n, k] (C = A B^T per group, B passed transposed as
    torch._grouped_mm wants), int32 end offsets m, 2m, ..., G*m; out [G*m, n] (no out=: the op
    allocates it, from the graph's pool when captured)."""
    if dt != "bf16":
        raise ValueError("grouped GEMM is measured in bf16 only")
    if not groups or groups < 1:
        raise ValueError("grouped GEMM needs batch (the group count) >= 1")
    if not hasattr(torch, "_grouped_mm"):
        raise RuntimeError(f"torch._grouped_mm is missing in torch {torch.__version__}")
    tdt = torch.bfloat16
    nbytes = groups * (m * k + n * k + m * n) * elem_bytes(tdt)
    offsets = torch.arange(1, groups + 1, device=device.DEVICE, dtype=torch.int32) * m

    def make_set():
        return (randn((groups * m, k), tdt), randn((groups, n, k), tdt))

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


ELEMENTWISE_INPUTS = {"copy": 1, "add": 2, "mul": 2, "mul_scalar": 1,
                      "gelu": 1, "silu": 1, "silu_mul": 2}


def elementwise_candidates(kind):
    """[(name, fn(set))] for set = (inputs..., out)."""
    if kind == "copy":
        return [("Tensor.copy_", lambda s: s[1].copy_(s[0]))]
    if kind == "add":
        return [("torch.add(out=)", lambda s: torch.add(s[0], s[1], out=s[2]))]
    if kind == "mul":
        return [("torch.mul(out=)", lambda s: torch.mul(s[0], s[1], out=s[2]))]
    if kind == "mul_scalar":
        return [("torch.mul(1.5,out=)", lambda s: torch.mul(s[0], 1.5, out=s[1]))]
    if kind == "gelu":
        return [("aten.gelu.out", lambda s: torch.ops.aten.gelu.out(s[0], out=s[1])),
                ("F.gelu", lambda s: F.gelu(s[0]))]
    if kind == "silu":
        return [("aten.silu.out", lambda s: torch.ops.aten.silu.out(s[0], out=s[1])),
                ("F.silu", lambda s: F.silu(s[0]))]
    if kind == "silu_mul":
        return [("triton_silu_mul", lambda s: triton_silu_mul(s[0], s[1], s[2]))]
    raise ValueError(f"unknown elementwise kind {kind!r}")


def build_elementwise(op):
    kind, n = op["kind"], op["numel"]
    tdt = torch_dtype(op["dtype"])
    if kind not in ELEMENTWISE_INPUTS:
        raise ValueError(f"unknown elementwise kind {kind!r}")
    n_in = ELEMENTWISE_INPUTS[kind]
    if op.get("strided"):
        return build_strided_elementwise(op, kind, n, tdt)

    def make_set():
        return tuple(randn((n,), tdt) for _ in range(n_in)) + (empty((n,), tdt),)

    alt = ()
    if kind == "silu_mul":   # what an unfused framework would do: 2 kernels
        alt = [("torch_silu_then_mul_unfused",
                lambda s: torch.mul(F.silu(s[0]), s[1], out=s[2]))]
    nbytes = (n_in + 1) * n * elem_bytes(tdt)
    return Bench(make_set, elementwise_candidates(kind), nbytes,
                 alt_candidates=alt)


def build_strided_elementwise(op, kind, n, tdt):
    """RoPE's kernels in a Hugging Face model: q = proj(x).view(T, h, 128).transpose(0, 1) is a
    strided view; mul: q * cos with cos [T, 128] broadcast over the heads; mul_scalar: -q[..., 64:]
    (numel counts the half); copy: q.contiguous() (the gradient copies before the q/k/v GEMMs).
    view_heads (measurement only) is h; outputs are contiguous. An op with a "view" field
    (measurement only) is one of build_view_elementwise's layouts instead."""
    if "view" in op:
        return build_view_elementwise(op, kind, n, tdt)
    h, d = int(op.get("view_heads", 32)), 128
    rows = 2 * n if kind == "mul_scalar" else n
    if rows % (h * d):
        raise ValueError(f"numel {n} is not a whole number of [T, {h}, {d}] rows")
    t = rows // (h * d)
    es = elem_bytes(tdt)
    if kind == "mul":
        def make_set():
            return (randn((t, h, d), tdt), randn((t, d), tdt), empty((h, t, d), tdt))
        call = lambda s: torch.mul(s[0].transpose(0, 1), s[1], out=s[2])   # noqa: E731
        nbytes = (2 * n + t * d) * es
    elif kind == "mul_scalar":
        def make_set():
            return (randn((t, h, d), tdt), empty((h, t, d // 2), tdt))
        call = lambda s: torch.neg(s[0].transpose(0, 1)[..., d // 2:], out=s[1])  # noqa: E731
        nbytes = 2 * n * es
    elif kind == "copy":
        def make_set():
            return (randn((t, h, d), tdt), empty((h, t, d), tdt))
        call = lambda s: s[1].copy_(s[0].transpose(0, 1))   # noqa: E731
        nbytes = 2 * n * es
    else:
        raise ValueError(f"no strided {kind!r} here")
    return Bench(make_set, [(f"strided {kind} (RoPE view)", call)], nbytes)


def _split_rows(rows, parts):
    """rows (a power of two) as `parts` powers of two, as equal as they go, each >= 2."""
    e = rows.bit_length() - 1
    if rows != 1 << e or e < parts:
        raise ValueError(f"{rows} rows do not split into {parts} dims of >= 2")
    return [1 << (e // parts + (1 if i < e % parts else 0)) for i in range(parts)]


def build_view_elementwise(op, kind, n, tdt):
    """ATen's generic elementwise path over views whose TensorIterator keeps exactly view_dims
    dims after coalescing (what ridgeline's "view_dims" means), outputs contiguous unless said:
      permuted: src [k_{D-1}, .., k_1, 2*inner][..., :inner] with the outer dims reversed, so no
        two dims merge (D = 1: src[::2]); copy: dst.copy_(view); mul: view * a contiguous tensor.
      slice_to_slice: [R, 256][:, :128] copied into [R, 192][:, :128] (2 dims, both strided).
      expand: [R, 1, 64] expanded over view_heads copied into [R, h, 192][..., 128:] (3 dims).
      row_broadcast: [rows, 4096] * [4096] (2 dims, 3 operands); row_scale: [rows, 4096] *
        [rows, 1] (2 dims).
    numel counts output elements."""
    view, dims = op["view"], int(op["view_dims"])
    es = elem_bytes(tdt)
    if kind not in ("copy", "mul"):
        raise ValueError(f"no {view} view for kind {kind!r}")
    if view == "permuted":
        inner = int(op.get("inner", 128))
        if dims == 1:
            def make_set():
                out = (randn((2 * n,), tdt), empty((n,), tdt))
                return out + ((randn((n,), tdt),) if kind == "mul" else ())
            view_of = lambda t: t[::2]   # noqa: E731
        else:
            outer = _split_rows(n // inner, dims - 1)
            src_shape = list(reversed(outer)) + [2 * inner]
            order = list(range(dims - 2, -1, -1)) + [dims - 1]

            def make_set():
                out = (randn(src_shape, tdt), empty(outer + [inner], tdt))
                return out + ((randn(outer + [inner], tdt),) if kind == "mul" else ())
            view_of = lambda t: t[..., :inner].permute(order)   # noqa: E731
        if kind == "copy":
            call = lambda s: s[1].copy_(view_of(s[0]))   # noqa: E731
        else:
            call = lambda s: torch.mul(view_of(s[0]), s[2], out=s[1])   # noqa: E731
        return Bench(make_set, [(f"{kind} of a {dims}-dim view", call)],
                     (3 if kind == "mul" else 2) * n * es)
    if view == "slice_to_slice" and kind == "copy" and dims == 2:
        rows = n // 128

        def make_set():
            return (randn((rows, 256), tdt), empty((rows, 192), tdt))
        call = lambda s: s[1][:, :128].copy_(s[0][:, :128])   # noqa: E731
        return Bench(make_set, [("copy slice to slice", call)], 2 * n * es)
    if view == "expand" and kind == "copy" and dims == 3:
        h = int(op["view_heads"])
        rows = n // (h * 64)

        def make_set():
            return (randn((rows, 1, 64), tdt), empty((rows, h, 192), tdt))
        call = lambda s: s[1][..., 128:].copy_(s[0].expand(rows, h, 64))   # noqa: E731
        return Bench(make_set, [("copy of an expanded view", call)], (n + rows * 64) * es)
    if view in ("row_broadcast", "row_scale") and kind == "mul" and dims == 2:
        rows = n // 4096
        other = (4096,) if view == "row_broadcast" else (rows, 1)

        def make_set():
            return (randn((rows, 4096), tdt), randn(other, tdt), empty((rows, 4096), tdt))
        call = lambda s: torch.mul(s[0], s[1], out=s[2])   # noqa: E731
        return Bench(make_set, [(f"mul {view}", call)], 2 * n * es)
    if view == "mla" and kind == "copy":
        return build_mla_copy(op, n, tdt)
    raise ValueError(f"no view {view!r} for {kind} with view_dims {dims}")


def build_mla_copy(op, n, tdt):
    """transformers' DeepseekV3Attention.expand_kv (5.17) over the decompressed cache, kv_b_proj's
    output viewed [B, kv, h, 256] -> [B, h, kv, 256]: part k_nope copies [..., :128] into
    key_states[..., :128] ([B, h, kv, 192]); v copies [..., 128:] into a contiguous [B, h, kv, 128]
    (what SDPA's .contiguous() does); k_rot copies the rotated key [B, 1, kv, 64] expanded over
    the heads into key_states[..., 128:]. view_batch, view_heads, view_kv (measurement only)."""
    b, h, kv, part = int(op["view_batch"]), int(op["view_heads"]), int(op["view_kv"]), op["part"]
    width = 64 if part == "k_rot" else 128
    if b * h * kv * width != n:
        raise ValueError(f"numel {n} is not {b} x {h} x {kv} x {width}")
    es = elem_bytes(tdt)
    if part == "k_rot":
        def make_set():
            return (randn((b, 1, kv, 64), tdt), empty((b, h, kv, 192), tdt))
        call = lambda s: s[1][..., 128:].copy_(s[0].expand(-1, h, -1, -1))   # noqa: E731
        return Bench(make_set, [("mla k_rot expand copy", call)], (n + b * kv * 64) * es)
    lo = 0 if part == "k_nope" else 128

    def make_set():
        return (randn((b, kv, h, 256), tdt),
                empty((b, h, kv, 192 if part == "k_nope" else 128), tdt))

    def call(s):
        src = s[0].transpose(1, 2)[..., lo:lo + 128]
        return (s[1][..., :128] if part == "k_nope" else s[1]).copy_(src)
    return Bench(make_set, [(f"mla {part} copy", call)], 2 * n * es)


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
