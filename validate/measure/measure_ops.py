#!/usr/bin/env python3
"""Measure the device time of every op in an op grid on one NVIDIA GPU.

    python3 measure_ops.py --input ops.jsonl --out results.json \
        [--budget-s 420] [--only REGEX | --only-ops REGEX]

Reads the op list written by op_grid.py (one JSON object a line) and, for
each op, measures "the device time of one kernel replayed back to back, as
in a CUDA graph, with its inputs not left in L2 by an earlier launch" -- the
quantity ridgeline predicts.  The method, per op:

  1. Build S independent input/output sets with torch.randn (never zeros, so
     power and clocks are those of real data), S large enough that the sets
     together span >= 3x the L2 size (S <= 64, S x set <= ~24 GB).  An op
     marked "warm_l2" uses S = 1: the same buffers every launch.
  2. Pick the implementation (first of a short list of candidates that runs;
     out= variants first so that the timed region launches only the op's own
     kernels), warm it up eagerly on a side stream (cuBLAS / Triton
     autotuning, handle and workspace creation), and estimate its per-call
     time with CUDA events.
  3. Capture one CUDA graph whose body calls the op L times, cycling through
     the S sets, with L chosen so that one replay takes ~12 ms.  Replay it
     twice to warm, then time R replays one by one with CUDA events
     (R chosen so that the timed part is ~0.15 s).  Time per call = replay
     time / L; median, p10 and p90 over the R replays are recorded.  If the
     capture fails, L eager calls back to back are timed instead
     (method "eager").
  4. Profile two eager calls with torch.profiler (CUDA activity only) to
     record the names of the kernels that ran and how many per call.

Every op runs under try/except (the error is recorded and the run goes on);
no new op starts after --budget-s seconds; the output file is rewritten every
25 ops and at the end (also on SIGTERM / Ctrl-C), so a killed run loses
little.  Needs torch with CUDA and triton (for the fused silu_mul and the
alternative RMSNorm / LayerNorm / softmax kernels); everything else is the
standard library.
"""

import argparse
import collections
import contextlib
import copy
import gc
import json
import math
import os
import platform
import re
import shutil
import signal
import socket
import sys
import time
import traceback

# The harness shared with measure_models.py and measure_launch.py; importing it needs no GPU.
from ridgeline_measure.environment import (DEFAULT_L2_BYTES, MIB, backend_flags,  # noqa: E402
                                           detect_l2_bytes, library_versions, nvidia_smi,
                                           read_tf32_flag, tf32_matmul)
from ridgeline_measure.harness import (_on_sigterm, clamp, elapsed_s,  # noqa: E402
                                       err_text, log, new_event, percentile, sanitize, utc_now)
from ridgeline_measure.harness import cuda_alive as _cuda_alive  # noqa: E402
from ridgeline_measure.harness import start_watchdog as harness_watchdog  # noqa: E402
from ridgeline_measure.harness import write_atomic  # noqa: E402
from ridgeline_measure.profiling import _is_kernel_event, sdpa_backend_guess  # noqa: E402
from ridgeline_measure.run import run_guarded, stamp_end  # noqa: E402


try:
    import torch
    import torch.nn.functional as F
except ImportError:      # lets --dry-run and py_compile work without torch
    torch = None
    F = None

try:
    import triton
    import triton.language as tl
except Exception:        # the ops that need Triton record an error instead
    triton = None
    tl = None

DEVICE = "cuda"         # (a CPU smoke test of the control flow overrides it)
BIG_OP_BYTES = 4 * (1 << 30)   # empty_cache() after ops that used more
# Re-measured at the start, every REFERENCE_EVERY ops and at the end, to show
# clock / thermal drift and any lasting effect of the profiler on timings.
REFERENCE_OPS = (
    {"id": "ref-gemm-bf16-4096x4096x4096", "op": "gemm", "m": 4096,
     "n": 4096, "k": 4096, "dtype": "bf16"},
    {"id": "ref-ew-copy-bf16-n67108864", "op": "elementwise", "kind": "copy",
     "numel": 1 << 26, "dtype": "bf16"},
)
REFERENCE_EVERY = 150

METHOD_TEXT = (
    "Each op is timed as the device time of one call replayed back to back "
    "inside a CUDA graph, with inputs not left in L2 by an earlier launch: "
    "S independent randn input/output sets (S x bytes >= 3 x L2, S <= 64, "
    "S x bytes <= ~24 GB; S = 1 for warm_l2 ops, which reuse the same "
    "buffers) are cycled through by a graph that calls the op L times "
    "(L <= 400, a multiple of S, one replay ~12 ms). After eager warm-up on "
    "a side stream (>= 3 calls, so cuBLAS/Triton choose and load their "
    "kernels) and 2 warm replays, R (5..30) replays are timed one by one "
    "with CUDA events; measured_us is the median of replay/L, p10_us and "
    "p90_us the 10th/90th percentiles. If capture fails, L eager calls are "
    "timed back to back instead (method 'eager'). Kernel names and kernels "
    "per call come from torch.profiler over 2 eager calls. Implementations: "
    "GEMM torch.mm/bmm(out=) (fp32: allow_tf32 False; tf32: True), fp8 "
    "torch._scaled_mm(e4m3 row-major A, column-major B, unit fp32 scales, "
    "bf16 out); attention F.scaled_dot_product_attention(enable_gqa when "
    "kv_heads != heads, backend left to PyTorch); elementwise torch out= "
    "ops, silu_mul a fused Triton kernel (alt: unfused torch); reduce "
    "torch.sum(out=); rmsnorm F.rms_norm (alt: single-kernel Triton "
    "RMSNorm); layernorm F.layer_norm (alt: single-pass Triton LayerNorm, "
    "one program per row, row held in registers in fp32); softmax "
    "aten._softmax.out (alt: single-pass Triton softmax, likewise, cols <= "
    "32768). Alternatives are timed on the same sets with the same rules; "
    "a Triton kernel that fails the preflight check against torch in fp32 "
    "(max|err|/max|ref| >= 1e-2 in bf16) is recorded as alt_error.")


# ---------------------------------------------------------------------------
# Small utilities
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Environment description (meta)
# ---------------------------------------------------------------------------


def collect_meta(args, cfg):
    meta = {"utc_start": utc_now(), "hostname": socket.gethostname(),
            "argv": sys.argv, "platform": platform.platform(),
            "method": METHOD_TEXT, "versions": library_versions()}
    try:
        props = torch.cuda.get_device_properties(0)
        meta.update({
            "device_name": props.name,
            "compute_capability": f"{props.major}.{props.minor}",
            "sm_count": props.multi_processor_count,
            "total_memory_bytes": props.total_memory,
        })
    except Exception as exc:
        meta["device_error"] = err_text(exc)
    meta["l2_cache_bytes"] = cfg.l2_bytes
    meta["l2_cache_from_device_properties"] = cfg.l2_from_props
    smi = nvidia_smi()
    meta["nvidia_smi_start"] = smi
    gpus = smi.get("gpus") or [{}]
    meta["driver_version"] = gpus[0].get("driver_version")
    meta["backend_flags"] = backend_flags()
    meta["c_compiler"] = shutil.which(os.environ.get("CC", "") or "cc") or shutil.which("gcc")
    meta["config"] = dict(vars(cfg))
    meta["env"] = {k: os.environ[k] for k in sorted(os.environ)
                   if k.startswith(("CUDA_", "PYTORCH_", "TORCH_", "TRITON_",
                                    "CUBLAS", "NVIDIA_"))}
    return meta


# ---------------------------------------------------------------------------
# Triton kernels: fused silu(a) * b, and one-program-per-row RMSNorm,
# LayerNorm and softmax (the whole row loaded once, kept in registers in fp32)
# ---------------------------------------------------------------------------

SILU_MUL_BLOCK = 2048
ROW_KERNEL_MAX_COLS = 32768   # beyond this a row no longer fits in registers
PREFLIGHT_REL_TOL = 1e-2      # bf16 output vs torch in fp32: max|err| / max|ref|
# Filled by triton_preflight(): kernel name -> None (passed) or why it failed.
# A kernel that failed is not timed: its op records the reason as alt_error.
TRITON_PREFLIGHT_FAILED = {}

if triton is not None:
    @triton.jit
    def _silu_mul_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
        pid = tl.program_id(0).to(tl.int64)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n_elements
        a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        y = a / (1.0 + tl.exp(-a)) * b
        tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def _rmsnorm_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
        mean_sq = tl.sum(x * x, axis=0) / n_cols
        rstd = 1.0 / tl.sqrt(mean_sq + eps)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = x * rstd * w
        tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def _layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps,
                          BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(x, axis=0) / n_cols
        diff = tl.where(mask, x - mean, 0.0)
        var = tl.sum(diff * diff, axis=0) / n_cols
        rstd = 1.0 / tl.sqrt(var + eps)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = diff * rstd * w + b
        tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def _softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask,
                    other=-float("inf")).to(tl.float32)
        row_max = tl.max(x, axis=0)
        e = tl.exp(x - row_max)          # masked lanes: exp(-inf) = 0
        denom = tl.sum(e, axis=0)
        y = e / denom
        tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def _need_triton():
    if triton is None:
        raise RuntimeError("triton is not importable")


def triton_silu_mul(a, b, out):
    _need_triton()
    n = a.numel()
    grid = (triton.cdiv(n, SILU_MUL_BLOCK),)
    _silu_mul_kernel[grid](a, b, out, n, BLOCK=SILU_MUL_BLOCK, num_warps=4)


def triton_rmsnorm(x, w, y, eps):
    _need_triton()
    rows, cols = x.shape
    block = triton.next_power_of_2(cols)
    num_warps = 4 if block <= 1024 else (8 if block <= 4096 else 16)
    _rmsnorm_kernel[(rows,)](x, w, y, cols, eps, BLOCK=block, num_warps=num_warps)


def row_kernel_config(cols):
    """(BLOCK, num_warps) of the row-in-registers LayerNorm / softmax kernels:
    BLOCK the next power of two >= cols; 4 warps up to 2048, 8 up to 8192,
    16 above."""
    if cols > ROW_KERNEL_MAX_COLS:
        raise ValueError(f"row kernel supports cols <= {ROW_KERNEL_MAX_COLS}, got {cols}")
    block = 1 << max(0, int(cols) - 1).bit_length()
    num_warps = 4 if block <= 2048 else (8 if block <= 8192 else 16)
    return block, num_warps


def _check_preflight(name):
    reason = TRITON_PREFLIGHT_FAILED.get(name)
    if reason:
        raise RuntimeError(f"{name} failed the Triton preflight: {reason}")


def _check_rows(x, y):
    if x.dim() != 2 or not x.is_contiguous() or not y.is_contiguous() or x.shape != y.shape:
        raise ValueError("row kernels need contiguous 2-D x and y of one shape")


def triton_layernorm(x, w, b, y, eps):
    _need_triton()
    _check_preflight("triton_layernorm")
    _check_rows(x, y)
    rows, cols = x.shape
    block, num_warps = row_kernel_config(cols)
    _layernorm_kernel[(rows,)](x, w, b, y, cols, eps, BLOCK=block, num_warps=num_warps)


def triton_softmax(x, y):
    _need_triton()
    _check_preflight("triton_softmax")
    _check_rows(x, y)
    rows, cols = x.shape
    block, num_warps = row_kernel_config(cols)
    _softmax_kernel[(rows,)](x, y, cols, BLOCK=block, num_warps=num_warps)


def _max_errs(out, ref):
    """(max abs error, max abs error / max |ref|) of out against an fp32 ref."""
    err = (out.float() - ref).abs().max().item()
    scale = ref.abs().max().item()
    return err, err / scale if scale > 0 else float("inf")


def _preflight_layernorm(cols):
    x = torch.randn(8, cols, device=DEVICE, dtype=torch.bfloat16)
    w = torch.randn(cols, device=DEVICE, dtype=torch.bfloat16)
    b = torch.randn(cols, device=DEVICE, dtype=torch.bfloat16)
    y = torch.empty_like(x)
    triton_layernorm(x, w, b, y, 1e-5)
    ref = F.layer_norm(x.float(), (cols,), w.float(), b.float(), eps=1e-5)
    return _max_errs(y, ref)


def _preflight_softmax(cols):
    # x 4 so that rows are peaked (exercises the max subtraction)
    x = (4.0 * torch.randn(8, cols, device=DEVICE)).to(torch.bfloat16)
    y = torch.empty_like(x)
    triton_softmax(x, y)
    ref = torch.softmax(x.float(), dim=-1)
    return _max_errs(y, ref)


# (name, checker(cols), column counts: a masked odd size, then the BLOCK
# sizes of the grid so that their compilation happens here, not in an op)
ROW_KERNEL_PREFLIGHT = (
    ("triton_layernorm", _preflight_layernorm, (1000, 4096, 8192)),
    ("triton_softmax", _preflight_softmax, (1000, 8192, 32768)),
)


def triton_preflight():
    """Compiles the Triton kernels on small inputs and checks them against
    torch in fp32. silu_mul / rmsnorm report their errors (as before);
    layernorm / softmax must be within PREFLIGHT_REL_TOL (max|err|/max|ref|)
    at every size tried, else TRITON_PREFLIGHT_FAILED marks them and their
    ops record alt_error instead of a time."""
    result = {"ok": True, "rel_tol": PREFLIGHT_REL_TOL}
    try:
        a = torch.randn(4096, device=DEVICE, dtype=torch.bfloat16)
        b = torch.randn(4096, device=DEVICE, dtype=torch.bfloat16)
        out = torch.empty_like(a)
        triton_silu_mul(a, b, out)
        ref = F.silu(a.float()) * b.float()
        result["silu_mul_max_abs_err"], result["silu_mul_rel_err"] = _max_errs(out, ref)
        x = torch.randn(8, 1024, device=DEVICE, dtype=torch.bfloat16)
        w = torch.randn(1024, device=DEVICE, dtype=torch.bfloat16)
        y = torch.empty_like(x)
        triton_rmsnorm(x, w, y, 1e-6)
        xf = x.float()
        ref = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()
        result["rmsnorm_max_abs_err"], result["rmsnorm_rel_err"] = _max_errs(y, ref)
        torch.cuda.synchronize()
    except Exception as exc:
        result["ok"] = False
        result["error"] = err_text(exc)
    for name, check, col_list in ROW_KERNEL_PREFLIGHT:
        TRITON_PREFLIGHT_FAILED.pop(name, None)
        entry = {"cols": list(col_list), "max_abs_err": [], "rel_err": []}
        try:
            for cols in col_list:
                abs_err, rel_err = check(cols)
                entry["max_abs_err"].append(abs_err)
                entry["rel_err"].append(rel_err)
                if not rel_err < PREFLIGHT_REL_TOL:     # also catches NaN
                    raise RuntimeError(
                        f"relative error {rel_err:.3g} >= {PREFLIGHT_REL_TOL} "
                        f"at bf16 8x{cols} (max abs error {abs_err:.3g})")
            torch.cuda.synchronize()
            entry["ok"] = True
        except Exception as exc:
            entry["ok"] = False
            entry["error"] = err_text(exc)[:600]
            TRITON_PREFLIGHT_FAILED[name] = entry["error"]
            result["ok"] = False
        result[name] = entry
    return result


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
    return torch.randn(tuple(shape), device=DEVICE, dtype=dtype)


def empty(shape, dtype):
    return torch.empty(tuple(shape), device=DEVICE, dtype=dtype)


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
    offsets = torch.arange(1, groups + 1, device=DEVICE, dtype=torch.int32) * m

    def make_set():
        return (randn((groups * m, k), tdt), randn((groups, n, k), tdt))

    def call(s):
        return torch._grouped_mm(s[0], s[1].transpose(-2, -1), offs=offsets)

    return Bench(make_set, [("torch._grouped_mm(A, B.transpose(-2, -1), offs=)", call)], nbytes)


def build_gemm_fp8(m, n, k):
    f8 = torch.float8_e4m3fn
    one = torch.ones((), device=DEVICE, dtype=torch.float32)   # unit scales

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
    view_heads (measurement only) is h; outputs are contiguous."""
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


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------

class Config:
    """Timing knobs (CLI-settable); l2_bytes is filled in from the device."""

    def __init__(self, args):
        self.budget_s = args.budget_s
        self.hard_limit_s = (args.hard_limit_s if args.hard_limit_s is not None
                             else args.budget_s + 120.0)
        self.target_replay_s = args.target_replay_ms / 1e3
        self.timed_s = args.timed_s
        self.max_launches = args.max_launches
        self.max_sets = args.max_sets
        self.mem_cap_bytes = args.mem_cap_gb * 1e9
        self.l2_factor = 3.0
        self.min_reps, self.max_reps = 5, 30
        self.max_timed_s = 3.0          # cap on the timed part of a very slow op
        self.warmup_calls = 3
        self.profile = not args.no_profile
        self.l2_bytes = DEFAULT_L2_BYTES
        self.l2_from_props = False


def plan_sets(bytes_per_set, warm_l2, cfg):
    """Number of independent input/output sets to rotate through."""
    if warm_l2:
        return 1
    per = max(1, bytes_per_set)
    want = math.ceil(cfg.l2_factor * cfg.l2_bytes / per)
    cap = min(cfg.max_sets, int(cfg.mem_cap_bytes // per))
    return max(1, min(want, cap))


def make_sets(bench, count):
    """Builds up to count sets; stops early (keeping >= 1) if memory runs out."""
    sets = [bench.make_set()]
    for _ in range(count - 1):
        try:
            sets.append(bench.make_set())
        except torch.cuda.OutOfMemoryError:
            break
    return sets


def choose_impl(candidates, probe_set):
    """First candidate that runs on probe_set, as (name, fn)."""
    errors = []
    for name, fn in candidates:
        try:
            fn(probe_set)
            torch.cuda.synchronize()
            return name, fn
        except torch.cuda.OutOfMemoryError:
            raise
        except Exception as exc:
            errors.append(f"{name}: {err_text(exc)[:400]}")
    raise RuntimeError("no implementation ran: " + " | ".join(errors))


def warm_up(run, sets, stream, calls):
    """Eager calls on the capture stream, as the CUDA-graph docs prescribe."""
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(calls):
            run(sets[i % len(sets)])
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()


def estimate_call_s(run, sets):
    """Rough per-call time from eager calls (launch bound for tiny ops)."""
    start, end = new_event(), new_event()
    torch.cuda.synchronize()
    start.record()
    run(sets[0])
    end.record()
    torch.cuda.synchronize()
    t = start.elapsed_time(end) / 1e3
    if t < 2e-3:
        calls = 10
        start.record()
        for i in range(calls):
            run(sets[(i + 1) % len(sets)])
        end.record()
        torch.cuda.synchronize()
        t = start.elapsed_time(end) / 1e3 / calls
    return max(t, 1e-7)


def choose_launches(t_call, n_sets, cfg):
    """(L, S): launches per graph and sets used, L a multiple of S if S <= L."""
    launches = int(round(cfg.target_replay_s / t_call))
    launches = clamp(launches, 1, cfg.max_launches)
    if n_sets > 1:
        if launches >= n_sets:
            launches = (launches // n_sets) * n_sets
        elif n_sets * t_call <= 4 * cfg.target_replay_s:
            launches = n_sets
        else:
            n_sets = launches
    return launches, n_sets


def capture_graph(run, sets, launches, stream):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for i in range(launches):
            run(sets[i % len(sets)])
    return graph


def recover_after_capture_failure(run, sets):
    """Restores the default stream and clears a stale error, if any."""
    with contextlib.suppress(Exception):
        torch.cuda.set_stream(torch.cuda.default_stream())
    for _ in range(2):
        try:
            torch.cuda.synchronize()
            run(sets[0])
            torch.cuda.synchronize()
            return
        except Exception:
            continue


def time_replays(replay, cfg):
    """Per-replay times (ms): 2 warm replays, then R timed one by one."""
    replay()
    start, end = new_event(), new_event()
    start.record()
    replay()
    end.record()
    torch.cuda.synchronize()
    t_replay = max(start.elapsed_time(end) / 1e3, 1e-7)
    reps = clamp(int(round(cfg.timed_s / t_replay)), cfg.min_reps, cfg.max_reps)
    if reps * t_replay > cfg.max_timed_s:
        reps = max(3, int(cfg.max_timed_s / t_replay))
    starts = [new_event() for _ in range(reps)]
    ends = [new_event() for _ in range(reps)]
    for i in range(reps):
        starts[i].record()
        replay()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def time_op(run, sets, stream, cfg):
    """Graph-replay timing of run over sets; eager fallback if capture fails."""
    warm_up(run, sets, stream, cfg.warmup_calls)
    t_call = estimate_call_s(run, sets)
    launches, n_sets = choose_launches(t_call, len(sets), cfg)
    sets = sets[:n_sets]
    result = {"eager_estimate_us": t_call * 1e6}
    graph = None
    try:
        graph = capture_graph(run, sets, launches, stream)
        method = "graph"
        replay = graph.replay
    except torch.cuda.OutOfMemoryError:
        raise
    except Exception as exc:
        graph = None
        result["capture_error"] = err_text(exc)
        recover_after_capture_failure(run, sets)
        method = "eager"

        def replay():
            for i in range(launches):
                run(sets[i % n_sets])

    times_ms = time_replays(replay, cfg)
    del graph
    per_call_us = sorted(t * 1e3 / launches for t in times_ms)
    result.update({
        "measured_us": percentile(per_call_us, 50),
        "p10_us": percentile(per_call_us, 10),
        "p90_us": percentile(per_call_us, 90),
        "launches": launches, "sets": n_sets, "reps": len(times_ms),
        "method": method,
    })
    return result


# ---------------------------------------------------------------------------
# Kernel names via torch.profiler
# ---------------------------------------------------------------------------


def profile_kernels(run, one_set, calls=2):
    """Distinct kernel names and kernels per call over `calls` eager calls."""
    try:
        from torch.profiler import ProfilerActivity, profile
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                run(one_set)
            torch.cuda.synchronize()
        names = [evt.name for evt in prof.events() if _is_kernel_event(evt)]
        distinct = list(dict.fromkeys(name[:200] for name in names))
        # An integer (validate/dataset.cpp reads it as one), rounded up so
        # that a kernel seen in only one of the calls still counts.
        return {"kernels": distinct,
                "kernels_per_call": math.ceil(len(names) / calls),
                "kernels_profiled": len(names), "calls_profiled": calls}
    except Exception as exc:   # no kernels_per_call: unknown, not zero
        return {"kernels": [], "profile_error": err_text(exc)[:300]}


# ---------------------------------------------------------------------------
# One op
# ---------------------------------------------------------------------------

def measure_impl(candidates, sets, cfg):
    """Chooses an implementation, times it, profiles it."""
    name, run = choose_impl(candidates, sets[0])
    result = {"impl": name}
    result.update(time_op(run, sets, torch.cuda.Stream(), cfg))
    if cfg.profile:
        result.update(profile_kernels(run, sets[0]))
    return result


ALT_KEYS = ("measured_us", "p10_us", "p90_us", "launches", "sets", "reps",
            "method", "kernels", "kernels_per_call", "capture_error",
            "profile_error")


def measure_op(op, cfg, rec):
    """Fills rec (in place, so partial results survive an exception)."""
    bench = build_bench(op)
    warm = bool(op.get("warm_l2"))
    rec["bytes_per_set"] = bench.bytes_per_set
    with bench.flags():
        if op["op"] == "gemm" and op["dtype"] in ("fp32", "tf32"):
            rec["tf32_flag"] = read_tf32_flag()
        sets = make_sets(bench, plan_sets(bench.bytes_per_set, warm, cfg))
        try:
            rec.update(measure_impl(bench.candidates, sets, cfg))
        except torch.cuda.OutOfMemoryError:
            raise
        except Exception as exc:
            if not bench.alt_candidates:
                raise
            rec["error"] = err_text(exc)
        if bench.alt_candidates:
            try:
                alt = measure_impl(bench.alt_candidates, sets, cfg)
                rec["alt_impl"] = alt["impl"]
                for key in ALT_KEYS:
                    if key in alt:
                        rec["alt_" + key] = alt[key]
            except torch.cuda.OutOfMemoryError:
                raise
            except Exception as exc:
                rec["alt_error"] = err_text(exc)
    n_sets = rec.get("sets", rec.get("alt_sets", len(sets)))
    rec["rotation_bytes"] = n_sets * bench.bytes_per_set
    rec["l2_cold"] = (not warm) and rec["rotation_bytes"] >= cfg.l2_factor * cfg.l2_bytes
    if op["op"] == "attention":
        rec["sdpa_backend"] = sdpa_backend_guess(rec.get("kernels", []))


def cuda_alive():
    return _cuda_alive(DEVICE)


def run_one(op, cfg):
    """Measures one op; never raises (except Interrupted / KeyboardInterrupt)."""
    rec = dict(op)
    t_start = time.monotonic()
    with contextlib.suppress(Exception):
        torch.cuda.reset_peak_memory_stats()
    failed = False
    try:
        measure_op(op, cfg, rec)
    except torch.cuda.OutOfMemoryError as exc:
        rec["error"] = err_text(exc, "OOM: ")
        failed = True
    except Exception as exc:
        rec["error"] = err_text(exc)
        rec["traceback"] = traceback.format_exc(limit=4)[-1500:]
        failed = True
    rec["wall_s"] = round(time.monotonic() - t_start, 3)
    with contextlib.suppress(Exception):
        rec["peak_mem_bytes"] = torch.cuda.max_memory_allocated()
    if failed:
        gc.collect()
    if failed or rec.get("peak_mem_bytes", 0) > BIG_OP_BYTES:
        with contextlib.suppress(Exception):
            torch.cuda.empty_cache()
    return rec


# ---------------------------------------------------------------------------
# Op list, ordering, output
# ---------------------------------------------------------------------------

def load_ops(path):
    ops = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                ops.append(json.loads(line))
    return ops


def interleave_key(op):
    """Fine family used for ordering: gemm dtype, attention phase, ..."""
    kind = op.get("op")
    if kind == "gemm":
        return f"gemm-{op.get('dtype')}-{'b' if op.get('batch') else ''}"
    if kind == "attention":
        phase = "decode" if op.get("q_len") == 1 else (
            "prefill" if op.get("q_len") == op.get("kv_len") else "chunk")
        return f"attention-{phase}-{op.get('head_dim')}"
    return f"{kind}-{op.get('dtype')}-{bool(op.get('warm_l2'))}"


def interleave(ops):
    """Spreads each fine family evenly over the run (a budget cut then drops
    the same fraction of every family, and clocks/thermals drift evenly).
    Within a family the input order is kept."""
    counts = collections.Counter(interleave_key(op) for op in ops)
    seen = collections.Counter()
    keyed = []
    for pos, op in enumerate(ops):
        fam = interleave_key(op)
        keyed.append(((seen[fam] + 0.5) / counts[fam], pos, op))
        seen[fam] += 1
    keyed.sort(key=lambda t: (t[0], t[1]))
    return [op for _, _, op in keyed]


def family(op):
    if op.get("op") == "gemm":
        return f"gemm-{op.get('dtype')}"
    return str(op.get("op"))


def write_output(path, meta, records):
    """Atomic write; one record a line so that the file diffs well."""
    body = ",\n".join(json.dumps(sanitize(r)) for r in records)
    text = ('{"meta": ' + json.dumps(sanitize(meta), indent=1) +
            ',\n"records": [\n' + body + "\n]}\n")
    write_atomic(path, text)


def progress_line(i, total, rec):
    head = f"[{i:>3}/{total}] {rec['id'][:58]:<58}"
    if "measured_us" in rec:
        body = (f"{rec['measured_us']:>11.2f} us  {rec['method']:<5} "
                f"L={rec['launches']:<3} S={rec['sets']:<2} R={rec['reps']:<2} "
                f"k/call={rec.get('kernels_per_call')}")
        if "alt_measured_us" in rec:
            body += f"  alt={rec['alt_measured_us']:.2f} us"
    elif "alt_measured_us" in rec:
        body = (f"ERROR {rec.get('error', '')[:60]}  "
                f"alt={rec['alt_measured_us']:.2f} us")
    else:
        body = "ERROR " + str(rec.get("error", rec.get("alt_error", "?")))[:100]
    return f"{head} {body}  t={elapsed_s():.0f}s"


def print_summary(records, skipped):
    rows = collections.OrderedDict()
    for rec in records:
        row = rows.setdefault(family(rec), collections.Counter())
        row["total"] += 1
        row["ok" if "measured_us" in rec else "error"] += 1
        row["eager"] += rec.get("method") == "eager"
        row["alt_ok"] += "alt_measured_us" in rec
    log("")
    log(f"{'family':<14} {'total':>5} {'ok':>5} {'error':>5} {'eager':>5} {'alt':>5}")
    for fam, c in sorted(rows.items()):
        log(f"{fam:<14} {c['total']:>5} {c['ok']:>5} {c['error']:>5} "
            f"{c['eager']:>5} {c['alt_ok']:>5}")
    errors = [r for r in records if "error" in r]
    for rec in errors[:15]:
        log(f"  error {rec['id']}: {str(rec['error'])[:140]}")
    if len(errors) > 15:
        log(f"  ... and {len(errors) - 15} more errors")
    log(f"measured {len(records)} ops, skipped {len(skipped)}, "
        f"wall {elapsed_s():.0f}s")


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description="Measure op device times on one NVIDIA GPU (see docstring).")
    ap.add_argument("--input", required=True, help="ops.jsonl from op_grid.py")
    ap.add_argument("--out", required=True, help="results JSON to write")
    ap.add_argument("--budget-s", type=float, default=420.0,
                    help="start no new op after this many seconds (default 420)")
    ap.add_argument("--hard-limit-s", type=float, default=None,
                    help="write the output and exit after this many seconds "
                         "even if an op hangs (default budget + 120)")
    ap.add_argument("--only", "--only-ops", dest="only", default=None, metavar="REGEX",
                    help="measure only ops whose id matches this regex (re.search); "
                         "ids start with the op name, e.g. '^(layernorm|softmax)-'")
    ap.add_argument("--max-ops", type=int, default=None, help="stop after this many ops")
    ap.add_argument("--order", choices=("interleave", "file"), default="interleave",
                    help="op order: families spread evenly (default) or file order")
    ap.add_argument("--target-replay-ms", type=float, default=12.0)
    ap.add_argument("--timed-s", type=float, default=0.15)
    ap.add_argument("--max-launches", type=int, default=400)
    ap.add_argument("--max-sets", type=int, default=64)
    ap.add_argument("--mem-cap-gb", type=float, default=24.0)
    ap.add_argument("--no-profile", action="store_true",
                    help="skip the torch.profiler kernel-name pass")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the ops in run order and exit (no GPU needed)")
    return ap.parse_args(argv)


def select_ops(args):
    ops = load_ops(args.input)
    if args.only:
        pattern = re.compile(args.only)
        ops = [op for op in ops if pattern.search(op["id"])]
    if args.order == "interleave":
        ops = interleave(ops)
    if args.max_ops is not None:
        ops = ops[:args.max_ops]
    return ops


def preflight(meta):
    """Initialises CUDA, cuBLAS and Triton once, outside any op's timing."""
    torch.manual_seed(0)
    a = torch.randn(256, 256, device=DEVICE, dtype=torch.bfloat16)
    torch.mm(a, a.t())
    torch.cuda.synchronize()
    meta["triton_preflight"] = triton_preflight()
    # torch.cuda.graph() runs gc.collect() at every capture; freezing the
    # objects that exist now (torch's own) keeps those collections cheap.
    gc.collect()
    gc.freeze()


def reference_check(cfg, meta, label):
    """Times the reference ops (no profiling) and appends them to meta."""
    ref_cfg = copy.copy(cfg)
    ref_cfg.profile = False
    entry = {"label": label, "elapsed_s": round(elapsed_s(), 1)}
    with torch.no_grad():
        for op in REFERENCE_OPS:
            rec = run_one(op, ref_cfg)
            entry[op["id"]] = rec.get("measured_us", rec.get("error"))
    smi = nvidia_smi()
    if smi.get("gpus"):
        gpu = smi["gpus"][0]
        entry["smi"] = {k: gpu.get(k) for k in ("clocks.sm", "power.draw",
                                                "temperature.gpu")}
    meta.setdefault("reference_checks", []).append(entry)
    log(f"reference ({label}): " + "  ".join(
        f"{k}={v:.1f}us" if isinstance(v, float) else f"{k}={v}"
        for k, v in entry.items() if k.startswith("ref-")))


def start_watchdog(limit_s, out_path, meta, records):
    """Hard stop past limit_s: writes what was measured and exits (harness.start_watchdog)."""
    def write_final():
        snapshot = dict(meta)            # meta may change under us: the watchdog tries again
        snapshot["hard_limit_hit_s"] = round(elapsed_s(), 1)
        snapshot["utc_end"] = utc_now()
        write_output(out_path, snapshot, list(records))

    return harness_watchdog(limit_s, write_final)


def run_all(ops, args, cfg, meta, records, skipped):
    """The measurement loop; appends to records and skipped (ids) in place,
    so that an interrupt keeps what was measured."""
    total = len(ops)
    with torch.no_grad():
        for i, op in enumerate(ops):
            if elapsed_s() > cfg.budget_s:
                skipped.extend(o["id"] for o in ops[i:])
                log(f"budget of {cfg.budget_s:.0f}s used: skipping {len(skipped)} ops")
                break
            rec = run_one(op, cfg)
            records.append(rec)
            log(progress_line(i + 1, total, rec))
            if "error" in rec and not cuda_alive():
                meta["cuda_context_lost_at"] = op["id"]
                skipped.extend(o["id"] for o in ops[i + 1:])
                log("CUDA context is no longer usable; stopping")
                break
            if (i + 1) % 25 == 0:
                write_output(args.out, meta, records)
            if (i + 1) % REFERENCE_EVERY == 0 and i + 1 < total:
                reference_check(cfg, meta, f"after {i + 1} ops")
    if "cuda_context_lost_at" not in meta:
        reference_check(cfg, meta, "end")


def main(argv=None):
    args = parse_args(argv)
    ops = select_ops(args)
    if args.dry_run:
        with contextlib.suppress(BrokenPipeError):
            for i, op in enumerate(ops):
                print(f"{i + 1:>4} {op['id']}")
            sys.stdout.flush()
        return 0
    if torch is None or not torch.cuda.is_available():
        log("error: torch with CUDA is required")
        write_output(args.out, {"error": "torch with CUDA is not available",
                                "utc_start": utc_now()}, [])
        return 2
    signal.signal(signal.SIGTERM, _on_sigterm)
    cfg = Config(args)
    cfg.l2_bytes, cfg.l2_from_props = detect_l2_bytes()
    meta = collect_meta(args, cfg)
    meta["ops_selected"] = len(ops)
    log(f"{meta.get('device_name')}  L2={cfg.l2_bytes / MIB:.0f} MiB  "
        f"torch {meta['versions']['torch']}  triton {meta['versions']['triton']}  "
        f"{len(ops)} ops, budget {cfg.budget_s:.0f}s")
    records, skipped = [], []

    def body():
        start_watchdog(cfg.hard_limit_s, args.out, meta, records)
        preflight(meta)
        log(f"triton preflight: {meta['triton_preflight']}")
        reference_check(cfg, meta, "start")
        run_all(ops, args, cfg, meta, records, skipped)

    def close():
        done = {r["id"] for r in records}
        if not skipped:
            skipped.extend(op["id"] for op in ops if op["id"] not in done)
        meta["skipped_ids"] = skipped
        meta["records"] = len(records)
        stamp_end(meta)
        write_output(args.out, meta, records)
        log(f"wrote {args.out}")

    run_guarded(lambda: meta, body, close)
    print_summary(records, skipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
