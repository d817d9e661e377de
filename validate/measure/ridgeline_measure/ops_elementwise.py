"""measure_ops.py's elementwise op builders (split out of ops_builders.py): contiguous
elementwise kernels, the strided (RoPE-view) and view-dims grids, and the MLA copies of
transformers' DeepseekV3Attention.expand_kv.
"""

from .optional import F, torch

from .ops_bench import Bench, elem_bytes, empty, randn, torch_dtype
from .ops_triton import triton_silu_mul


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
