#!/usr/bin/env python3
"""A minimal Hugging-Face-style Llama in plain PyTorch (no transformers).

Written so that, launched eagerly, it runs exactly the "pytorch-eager" kernel
set that ridgeline models for a Llama decoder block:

  - RMSNorm: ONE call of torch.nn.functional.rms_norm (input_layernorm,
    post_attention_layernorm, final norm);
  - q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj: separate
    nn.Linear without bias (one GEMM each);
  - RoPE in HF's rotate_half form, per q and per k: x*cos, -x2 (neg),
    cat((-x2, x1)), rot*sin, add -- 5 elementwise kernels; cos/sin are
    tables precomputed at build time and sliced (a view, no kernel);
  - attention: F.scaled_dot_product_attention, is_causal for a prefill,
    enable_gqa=True when kv_heads != heads, no mask for a single new token;
    the output goes back to [b, s, heads*head_dim] as in HF
    (transpose(1, 2).contiguous());
  - MLP: down(silu(gate(x)) * up(x)) with the SiLU and the gating multiply
    as separate kernels; both residual adds separate;
  - decode: a preallocated static KV cache [batch, kv_heads, max_len,
    head_dim] per layer; the new key/value are written with
    cache.narrow(2, pos, n).copy_() (a copy kernel each) and attention reads
    cache.narrow(2, 0, pos + n) (a strided view, no copy);
  - logits for the last position only (lm_head on hidden[:, -1:]) at
    inference, for all positions in training; the final norm runs over all
    positions first, as in HF.

Weights are random (normal, std initializer_range; norms 1), built directly
on the target device in the target dtype. Nothing is downloaded.

MoE (optional, moe=moe_block.MoeSpec(...) in LlamaModel / build_model): the
MLP of every layer is then a Mixtral-style MoE block run as Hugging Face
transformers runs it (moe_block.py, imported only when asked for, so the
dense model needs neither it nor transformers). Without moe the model is
exactly the dense one above.

Old-torch fallbacks (used ONLY on CPU, for test_llama_model.py under
Debian's torch 1.13): RMSNorm in fp32 with rsqrt when F.rms_norm is missing
(torch < 2.4), and, when F.scaled_dot_product_attention lacks enable_gqa
(torch < 2.5), K/V repeated to all heads (then SDPA, or a math
softmax(QK^T)V when SDPA is missing, torch < 2.0). A fallback that would run
on a CUDA tensor raises instead, so that a GPU measurement never silently
measures other kernels (set LLAMA_MODEL_ALLOW_DEVICE_FALLBACKS=1 to allow
it). kernel_paths() says which path this torch takes.
"""

from dataclasses import asdict, dataclass, replace

import torch
import torch.nn as nn
import torch.nn.functional as F

# The function kernels and the torch probes live in llama_kernels.py; their names stay importable
# from here (lm.attention, lm.kernel_paths, lm.ALLOW_DEVICE_FALLBACKS, ... in the tests and scripts).
from llama_kernels import (ALLOW_DEVICE_FALLBACKS, ATTENTION_PATH, HAS_F_RMS_NORM, HAS_SDPA,  # noqa: F401
                           RMS_NORM_PATH, SDPA_HAS_ENABLE_GQA, _attention_fallback, _fallback_guard,
                           apply_rope, attention, kernel_paths, repeat_kv, rope_tables, rotate_half)

# ---------------------------------------------------------------------------
# Config
# ---------------------------------------------------------------------------

@dataclass
class LlamaConfig:
    hidden_size: int = 4096
    num_layers: int = 32
    num_heads: int = 32
    num_kv_heads: int = 8
    head_dim: int = 128
    intermediate_size: int = 14336
    vocab_size: int = 128256
    rms_norm_eps: float = 1e-5
    rope_theta: float = 500000.0
    max_position_embeddings: int = 8192
    tie_word_embeddings: bool = False
    initializer_range: float = 0.02

    @classmethod
    def llama3_8b(cls, **overrides):
        """Llama-3-8B's shape (RoPE without the 3.1 scaling)."""
        return replace(cls(), **overrides)

    @classmethod
    def tiny(cls, **overrides):
        base = cls(hidden_size=64, num_layers=2, num_heads=4, num_kv_heads=2,
                   head_dim=16, intermediate_size=128, vocab_size=100,
                   max_position_embeddings=256)
        return replace(base, **overrides)

    def to_dict(self):
        return asdict(self)

    def validate(self):
        if self.num_heads % self.num_kv_heads:
            raise ValueError("num_heads must be a multiple of num_kv_heads")
        if self.head_dim % 2:
            raise ValueError("head_dim must be even (RoPE)")


def parameter_count(config, num_layers=None, blocks_only=False, moe=None):
    """Weights of the model build_model() would make (no RoPE tables); with
    moe (a MoeSpec) the router and every expert."""
    c = config
    layers = c.num_layers if num_layers is None else num_layers
    qkv = c.hidden_size * (c.num_heads + 2 * c.num_kv_heads) * c.head_dim
    o = c.num_heads * c.head_dim * c.hidden_size
    if moe is None:
        mlp = 3 * c.hidden_size * c.intermediate_size
    else:
        mlp = c.hidden_size * moe.num_experts + moe.num_experts * 3 * c.hidden_size * moe.expert_intermediate
    per_layer = qkv + o + mlp + 2 * c.hidden_size
    total = layers * per_layer
    if not blocks_only:
        emb = c.vocab_size * c.hidden_size
        total += emb + c.hidden_size + (0 if c.tie_word_embeddings else emb)
    return total


def kv_cache_bytes(config, num_layers, batch, max_len, elem_bytes=2):
    return 2 * num_layers * batch * config.num_kv_heads * max_len * config.head_dim * elem_bytes


# ---------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, hidden, eps, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden, device=device, dtype=dtype))
        self.eps = eps
        self.shape = (hidden,)

    def forward(self, x):
        if HAS_F_RMS_NORM:
            return F.rms_norm(x, self.shape, self.weight, self.eps)
        return self._fallback(x)

    def _fallback(self, x):
        _fallback_guard(x, "RMSNorm")
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * y.to(x.dtype)


class LlamaAttention(nn.Module):
    def __init__(self, c, device=None, dtype=None):
        super().__init__()
        kw = {"bias": False, "device": device, "dtype": dtype}
        self.num_heads = c.num_heads
        self.num_kv_heads = c.num_kv_heads
        self.head_dim = c.head_dim
        self.q_proj = nn.Linear(c.hidden_size, c.num_heads * c.head_dim, **kw)
        self.k_proj = nn.Linear(c.hidden_size, c.num_kv_heads * c.head_dim, **kw)
        self.v_proj = nn.Linear(c.hidden_size, c.num_kv_heads * c.head_dim, **kw)
        self.o_proj = nn.Linear(c.num_heads * c.head_dim, c.hidden_size, **kw)

    def forward(self, x, cos, sin, kv=None, pos=0):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.num_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.num_kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rope(q, k, cos, sin)
        causal = s > 1
        if kv is not None:
            k_cache, v_cache = kv
            if pos + s > k_cache.shape[2]:
                raise ValueError(f"KV cache too short: pos {pos} + {s} > {k_cache.shape[2]}")
            k_cache.narrow(2, pos, s).copy_(k)
            v_cache.narrow(2, pos, s).copy_(v)
            if pos > 0:
                if s != 1:
                    raise NotImplementedError("chunked prefill (pos > 0, s > 1)")
                k = k_cache.narrow(2, 0, pos + s)
                v = v_cache.narrow(2, 0, pos + s)
                causal = False        # one new token sees every cached position
        o = attention(q, k, v, causal)
        o = o.transpose(1, 2).contiguous().reshape(b, s, -1)
        return self.o_proj(o)


class LlamaMLP(nn.Module):
    def __init__(self, c, device=None, dtype=None):
        super().__init__()
        kw = {"bias": False, "device": device, "dtype": dtype}
        self.gate_proj = nn.Linear(c.hidden_size, c.intermediate_size, **kw)
        self.up_proj = nn.Linear(c.hidden_size, c.intermediate_size, **kw)
        self.down_proj = nn.Linear(c.intermediate_size, c.hidden_size, **kw)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderLayer(nn.Module):
    def __init__(self, c, device=None, dtype=None, moe=None):
        super().__init__()
        self.input_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps, device, dtype)
        self.self_attn = LlamaAttention(c, device, dtype)
        self.post_attention_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps, device, dtype)
        if moe is None:
            self.mlp = LlamaMLP(c, device, dtype)
        else:
            import moe_block   # lazy: the dense model needs neither it nor transformers
            self.mlp = moe_block.MoeMLP(c, moe, device, dtype)

    def forward(self, x, cos, sin, kv=None, pos=0):
        residual = x
        h = self.self_attn(self.input_layernorm(x), cos, sin, kv, pos)
        x = residual + h
        residual = x
        h = self.mlp(self.post_attention_layernorm(x))
        return residual + h


class KVCache:
    """Static per-layer caches [batch, kv_heads, max_len, head_dim]."""

    def __init__(self, keys, values):
        self.keys = keys
        self.values = values

    @classmethod
    def allocate(cls, config, num_layers, batch, max_len, device=None,
                 dtype=torch.float32, fill="randn"):
        shape = (batch, config.num_kv_heads, max_len, config.head_dim)
        make = torch.randn if fill == "randn" else torch.zeros
        keys = [make(shape, device=device, dtype=dtype) for _ in range(num_layers)]
        values = [make(shape, device=device, dtype=dtype) for _ in range(num_layers)]
        return cls(keys, values)

    @property
    def max_len(self):
        return self.keys[0].shape[2]

    def layer(self, i):
        return self.keys[i], self.values[i]

    def nbytes(self):
        return sum(t.numel() * t.element_size() for t in self.keys + self.values)


class LlamaModel(nn.Module):
    """Llama decoder (LlamaForCausalLM's kernels).

    num_layers overrides config.num_layers; blocks_only=True leaves out the
    embedding, the final norm and the LM head (the input is then hidden
    states [b, s, hidden] and the output the last block's hidden states).
    rope_len: rows of the cos/sin tables (default max_position_embeddings);
    positions pos .. pos + s - 1 must be below it.
    """

    def __init__(self, config, num_layers=None, blocks_only=False, device=None,
                 dtype=torch.float32, rope_len=None, moe=None):
        super().__init__()
        config.validate()
        self.config = config
        self.moe = moe
        self.num_layers = config.num_layers if num_layers is None else int(num_layers)
        self.blocks_only = bool(blocks_only)
        c = config
        if not self.blocks_only:
            self.embed_tokens = nn.Embedding(c.vocab_size, c.hidden_size, device=device, dtype=dtype)
        self.layers = nn.ModuleList(
            [LlamaDecoderLayer(c, device, dtype, moe) for _ in range(self.num_layers)])
        if not self.blocks_only:
            self.norm = RMSNorm(c.hidden_size, c.rms_norm_eps, device, dtype)
            if c.tie_word_embeddings:
                self.lm_head = None
            else:
                self.lm_head = nn.Linear(c.hidden_size, c.vocab_size, bias=False,
                                         device=device, dtype=dtype)
        rope_len = int(rope_len or c.max_position_embeddings)
        cos, sin = rope_tables(c.head_dim, c.rope_theta, rope_len, device)
        self.register_buffer("rope_cos", cos.to(dtype), persistent=False)
        self.register_buffer("rope_sin", sin.to(dtype), persistent=False)

    @torch.no_grad()
    def init_weights(self, seed=0):
        """HF-style init: normal(0, initializer_range) for Linear and Embedding."""
        torch.manual_seed(seed)
        std = self.config.initializer_range
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                module.weight.normal_(0.0, std)
            elif isinstance(module, RMSNorm):
                module.weight.fill_(1.0)
            elif getattr(module, "is_moe_block", False):
                for p in module.parameters():   # router and 3-D expert weights
                    p.normal_(0.0, std)
        return self

    def head(self, h):
        if self.lm_head is None:
            return F.linear(h, self.embed_tokens.weight)
        return self.lm_head(h)

    def forward(self, inputs, cache=None, pos=0, logits="last"):
        """inputs: token ids [b, s] (hidden [b, s, hidden] when blocks_only).

        cache: a KVCache (or None); its positions pos .. pos + s - 1 are
        written, and for s == 1 attention reads positions 0 .. pos.
        logits: "last" (inference: lm_head on hidden[:, -1:]), "all"
        (training) or "none" (final-normed hidden states).
        """
        h = inputs if self.blocks_only else self.embed_tokens(inputs)
        s = h.shape[1]
        if pos + s > self.rope_cos.shape[0]:
            raise ValueError(f"positions up to {pos + s} exceed rope_len {self.rope_cos.shape[0]}")
        cos = self.rope_cos[pos:pos + s]
        sin = self.rope_sin[pos:pos + s]
        for i, layer in enumerate(self.layers):
            h = layer(h, cos, sin, None if cache is None else cache.layer(i), pos)
        if self.blocks_only:
            return h
        h = self.norm(h)
        if logits == "none":
            return h
        if logits == "last":
            h = h[:, -1:]
        elif logits != "all":
            raise ValueError(f"logits must be 'last', 'all' or 'none', not {logits!r}")
        return self.head(h)

    def new_cache(self, batch, max_len, fill="randn"):
        p = next(self.parameters())
        return KVCache.allocate(self.config, self.num_layers, batch, max_len,
                                device=p.device, dtype=p.dtype, fill=fill)


def build_model(config, num_layers=None, blocks_only=False, device=None,
                dtype=torch.float32, seed=0, rope_len=None, moe=None):
    """A model with random weights, made directly on `device` in `dtype`
    (with moe, a MoeSpec: MoE MLPs, see moe_block.py)."""
    model = LlamaModel(config, num_layers=num_layers, blocks_only=blocks_only,
                       device=device, dtype=dtype, rope_len=rope_len, moe=moe)
    return model.init_weights(seed)


def causal_lm_loss(logits, labels):
    """Cross-entropy over ALL positions; logits upcast to fp32 as HF's
    ForCausalLMLoss does. labels are taken as already shifted."""
    vocab = logits.shape[-1]
    return F.cross_entropy(logits.float().reshape(-1, vocab), labels.reshape(-1))
