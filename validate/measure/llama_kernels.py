"""The kernels of llama_model.py that are plain functions, and which of them this torch provides.

RoPE in HF's rotate_half form and its tables, K/V repeated for GQA, attention through
F.scaled_dot_product_attention (enable_gqa where torch has it, else the fallbacks llama_model.py's
docstring describes, refused on a GPU unless LLAMA_MODEL_ALLOW_DEVICE_FALLBACKS=1), and
kernel_paths(), what this torch runs. Imported by llama_model.py (its names stay there too).
"""

import math
import os

import torch
import torch.nn.functional as F

# ---------------------------------------------------------------------------
# Which implementation this torch provides
# ---------------------------------------------------------------------------

HAS_F_RMS_NORM = hasattr(F, "rms_norm")
HAS_SDPA = hasattr(F, "scaled_dot_product_attention")


def _probe_sdpa_enable_gqa():
    if not HAS_SDPA:
        return False
    try:
        q = torch.zeros(1, 2, 1, 4)
        k = torch.zeros(1, 1, 1, 4)
        F.scaled_dot_product_attention(q, k, k, enable_gqa=True)
        return True
    except TypeError:         # unknown keyword: torch < 2.5
        return False
    except Exception:         # anything else: treat as unsupported
        return False


SDPA_HAS_ENABLE_GQA = _probe_sdpa_enable_gqa()
if SDPA_HAS_ENABLE_GQA:
    ATTENTION_PATH = "sdpa_enable_gqa"
elif HAS_SDPA:
    ATTENTION_PATH = "sdpa_repeat_kv (fallback)"
else:
    ATTENTION_PATH = "math_repeat_kv (fallback)"
RMS_NORM_PATH = "F.rms_norm" if HAS_F_RMS_NORM else "fp32_rsqrt (fallback)"
ALLOW_DEVICE_FALLBACKS = os.environ.get("LLAMA_MODEL_ALLOW_DEVICE_FALLBACKS") == "1"


def kernel_paths():
    """Which implementation each op takes under this torch (for the meta)."""
    return {
        "torch": torch.__version__,
        "rms_norm": RMS_NORM_PATH,
        "attention": ATTENTION_PATH,
        "primary": HAS_F_RMS_NORM and SDPA_HAS_ENABLE_GQA,
        "kv_cache_write": "cache.narrow(2, pos, n).copy_(new)",
        "rope": "q*cos + cat(-x2, x1)*sin (HF rotate_half), tables precomputed",
        "device_fallbacks_allowed": ALLOW_DEVICE_FALLBACKS,
    }


def _fallback_guard(t, what):
    if t.device.type != "cpu" and not ALLOW_DEVICE_FALLBACKS:
        raise RuntimeError(
            f"{what} fallback would run on {t.device} under torch "
            f"{torch.__version__}: the measurement needs F.rms_norm (torch >= 2.4) "
            "and F.scaled_dot_product_attention(enable_gqa=) (torch >= 2.5)")


def rotate_half(x):
    half = x.shape[-1] // 2
    x1 = x[..., :half]
    x2 = x[..., half:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(q, k, cos, sin):
    """HF apply_rotary_pos_emb; cos/sin [s, head_dim] broadcast over [b, h, s, d]."""
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def repeat_kv(x, n_rep):
    """[b, kvh, s, d] -> [b, kvh * n_rep, s, d] (HF repeat_kv)."""
    if n_rep == 1:
        return x
    b, kvh, s, d = x.shape
    return x[:, :, None, :, :].expand(b, kvh, n_rep, s, d).reshape(b, kvh * n_rep, s, d)


def attention(q, k, v, causal):
    """q [b, h, sq, d], k/v [b, kvh, skv, d] -> [b, h, sq, d]."""
    gqa = q.shape[1] != k.shape[1]
    if SDPA_HAS_ENABLE_GQA:
        if gqa:
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return _attention_fallback(q, k, v, causal)


def _attention_fallback(q, k, v, causal):
    _fallback_guard(q, "attention")
    n_rep = q.shape[1] // k.shape[1]
    k = repeat_kv(k, n_rep)
    v = repeat_kv(v, n_rep)
    if HAS_SDPA:
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if causal:   # SDPA's is_causal: top-left aligned lower triangle
        lq, lk = q.shape[-2], k.shape[-2]
        keep = torch.ones(lq, lk, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
    return torch.matmul(probs, v)


def rope_tables(head_dim, theta, length, device=None):
    """cos, sin [length, head_dim] in fp32 (HF's default RoPE: cat(freqs, freqs))."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32,
                                             device=device) / head_dim))
    t = torch.arange(length, dtype=torch.float32, device=device)
    freqs = torch.outer(t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()
