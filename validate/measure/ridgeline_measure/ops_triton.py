"""measure_ops.py's Triton kernels: a fused silu(a) * b, and one-program-per-row
RMSNorm, LayerNorm and softmax (the whole row loaded once, kept in registers in
fp32), the alternatives timed beside PyTorch's own kernels. Each is checked
against torch in fp32 first (triton_preflight); one that fails is not timed
and its op records why as alt_error.
"""


from .optional import F, tl, torch, triton

from .harness import err_text
from . import device


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
    x = torch.randn(8, cols, device=device.DEVICE, dtype=torch.bfloat16)
    w = torch.randn(cols, device=device.DEVICE, dtype=torch.bfloat16)
    b = torch.randn(cols, device=device.DEVICE, dtype=torch.bfloat16)
    y = torch.empty_like(x)
    triton_layernorm(x, w, b, y, 1e-5)
    ref = F.layer_norm(x.float(), (cols,), w.float(), b.float(), eps=1e-5)
    return _max_errs(y, ref)


def _preflight_softmax(cols):
    # x 4 so that rows are peaked (exercises the max subtraction)
    x = (4.0 * torch.randn(8, cols, device=device.DEVICE)).to(torch.bfloat16)
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
        a = torch.randn(4096, device=device.DEVICE, dtype=torch.bfloat16)
        b = torch.randn(4096, device=device.DEVICE, dtype=torch.bfloat16)
        out = torch.empty_like(a)
        triton_silu_mul(a, b, out)
        ref = F.silu(a.float()) * b.float()
        result["silu_mul_max_abs_err"], result["silu_mul_rel_err"] = _max_errs(out, ref)
        x = torch.randn(8, 1024, device=device.DEVICE, dtype=torch.bfloat16)
        w = torch.randn(1024, device=device.DEVICE, dtype=torch.bfloat16)
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
