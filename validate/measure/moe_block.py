#!/usr/bin/env python3
"""A Mixtral-style MoE MLP for llama_model.py, run as Hugging Face transformers 5.x runs it.

The block: router Linear(hidden, E, no bias); softmax of its logits in fp32; top-k; the k
weights renormalised to sum 1 and cast back to the activation dtype; every chosen expert a
SwiGLU (gate_up_proj [E, 2I, hidden], down_proj [E, hidden, I], down(silu(gate) * up)); the
expert outputs weighted and summed per token.

Two implementations, chosen by build_moe_mlp(impl=...):

  "transformers"  the real transformers MixtralSparseMoeBlock (its MixtralTopKRouter and
                  MixtralExperts), its config's experts implementation set to "grouped_mm", so
                  that the experts run transformers.integrations.moe.grouped_mm_experts_forward.
                  Preferred: what ran is HF's own code, whatever its version does.
  "local"         the same algorithm written here, as transformers 5.17 runs it (used where
                  transformers >= 5 is missing, and as the reference the GPU run compares HF's
                  block with): router weights kept in fp32; the token-expert pairs sorted by
                  expert (torch.sort), hidden rows gathered by pair // k, tokens per expert
                  counted with torch.histc (int input on CUDA, float on the CPU; not bincount,
                  so that a CUDA graph can capture it) and turned into int32 end offsets by
                  cumsum; the sentinel mask of expert parallelism (expert id >= E: never true
                  here, but its compare, clamp and three masked_fill kernels run), torch.
                  _grouped_mm for gate_up (A [T*k, hidden] against gate_up_proj transposed),
                  silu(gate) * up, torch._grouped_mm for down, the fp32 routing weights
                  multiplied in, the rows put back in pair order (inverse permutation by
                  index_put), summed over the k experts of a token in fp32 and cast back.
                  (transformers 5.0's version differed: stable argsort, index_add_ in bf16,
                  bf16 routing weights; the source that ran is in the data's meta.)

Without torch._grouped_mm (torch < 2.9) the local experts loop over the groups with torch.mm,
and only on the CPU (for tests under old torch); on a GPU that raises, as llama_model.py's other
fallbacks do, so a measurement never silently measures other kernels.

MoeMLP.experts is the module whose forward takes (hidden [T, hidden], top_k_index [T, k],
top_k_weights [T, k]) in both implementations: routing_hooks() reads the routing there.
"""

import os
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

ALLOW_DEVICE_FALLBACKS = os.environ.get("LLAMA_MODEL_ALLOW_DEVICE_FALLBACKS") == "1"
HAS_GROUPED_MM = hasattr(torch, "_grouped_mm")


@dataclass
class MoeSpec:
    num_experts: int
    top_k: int
    expert_intermediate: int
    impl: str = "transformers"      # or "local"
    experts_implementation: str = "grouped_mm"

    def validate(self):
        if not 1 <= self.top_k <= self.num_experts:
            raise ValueError(f"top_k {self.top_k} must be in 1..num_experts {self.num_experts}")
        if self.impl not in ("transformers", "local"):
            raise ValueError(f"impl must be 'transformers' or 'local', not {self.impl!r}")

    def to_dict(self):
        return asdict(self)


def moe_parameter_count(hidden, spec):
    """Router plus every expert's gate, up and down."""
    return hidden * spec.num_experts + spec.num_experts * 3 * hidden * spec.expert_intermediate


# ---------------------------------------------------------------------------
# The local implementation
# ---------------------------------------------------------------------------

def _grouped_mm(a, b_t, offsets):
    """torch._grouped_mm(a, b_t, offs=offsets): a [S, K], b_t [G, K, N] -> [S, N]."""
    if HAS_GROUPED_MM:
        return torch._grouped_mm(a, b_t, offs=offsets)
    if a.device.type != "cpu" and not ALLOW_DEVICE_FALLBACKS:
        raise RuntimeError(f"torch._grouped_mm is missing in torch {torch.__version__}: "
                           "a grouped-GEMM measurement needs torch >= 2.9")
    out = a.new_empty(a.shape[0], b_t.shape[-1])
    start = 0
    for g, end in enumerate(offsets.tolist()):
        out[start:end] = a[start:end] @ b_t[g]
        start = end
    return out


class LocalExperts(nn.Module):
    """transformers' grouped_mm experts path, written out (see the module docstring)."""

    def __init__(self, hidden, spec, device=None, dtype=None):
        super().__init__()
        e, i = spec.num_experts, spec.expert_intermediate
        self.num_experts = e
        self.gate_up_proj = nn.Parameter(torch.empty(e, 2 * i, hidden, device=device, dtype=dtype))
        self.down_proj = nn.Parameter(torch.empty(e, hidden, i, device=device, dtype=dtype))

    def forward(self, hidden_states, top_k_index, top_k_weights):
        k = top_k_index.shape[-1]
        tokens, hidden = hidden_states.shape
        e = self.num_experts
        pair_weights = top_k_weights.reshape(-1)
        sorted_experts, order = torch.sort(top_k_index.reshape(-1))
        rows = hidden_states[order // k]
        weights = pair_weights[order]
        counted = sorted_experts.int() if hidden_states.is_cuda else sorted_experts.float()
        per_expert = torch.histc(counted, bins=e, min=0, max=e - 1)
        offsets = torch.cumsum(per_expert, dim=0, dtype=torch.int32)
        outside = (sorted_experts >= e).unsqueeze(-1)    # expert-parallel sentinels
        sorted_experts.clamp_(max=e - 1)
        rows.masked_fill_(outside, 0.0)
        gate_up = _grouped_mm(rows, self.gate_up_proj.transpose(-2, -1), offsets)
        gate_up = gate_up.masked_fill(outside, 0.0)
        gate, up = gate_up.chunk(2, dim=-1)
        act = F.silu(gate) * up
        down = _grouped_mm(act, self.down_proj.transpose(-2, -1), offsets)
        down = down.masked_fill(outside, 0.0)
        weighted = down * weights.unsqueeze(-1)
        back = torch.empty_like(order)
        back[order] = torch.arange(order.shape[0], device=order.device)
        weighted = weighted[back]
        return weighted.view(tokens, k, hidden).sum(dim=1).to(hidden_states.dtype)


class LocalMoeBlock(nn.Module):
    """Router (softmax of fp32 logits, top-k, renormalised, kept in fp32) + LocalExperts."""

    def __init__(self, hidden, spec, device=None, dtype=None):
        super().__init__()
        self.top_k = spec.top_k
        self.gate = nn.Linear(hidden, spec.num_experts, bias=False, device=device, dtype=dtype)
        self.experts = LocalExperts(hidden, spec, device, dtype)

    def forward(self, x):
        b, s, h = x.shape
        flat = x.reshape(-1, h)
        probs = F.softmax(self.gate(flat).float(), dim=-1)
        top_w, top_i = torch.topk(probs, self.top_k, dim=-1)
        top_w /= top_w.sum(dim=-1, keepdim=True)
        return self.experts(flat, top_i, top_w).reshape(b, s, h)


# ---------------------------------------------------------------------------
# transformers' block
# ---------------------------------------------------------------------------

def mixtral_config(llama_cfg, spec, experts_implementation):
    from transformers import MixtralConfig
    cfg = MixtralConfig(
        hidden_size=llama_cfg.hidden_size, intermediate_size=spec.expert_intermediate,
        num_local_experts=spec.num_experts, num_experts_per_tok=spec.top_k,
        num_attention_heads=llama_cfg.num_heads, num_key_value_heads=llama_cfg.num_kv_heads,
        head_dim=llama_cfg.head_dim, vocab_size=llama_cfg.vocab_size, hidden_act="silu",
        router_jitter_noise=0.0, num_hidden_layers=1)
    if experts_implementation is not None:
        cfg._experts_implementation = experts_implementation
    return cfg


def transformers_block(llama_cfg, spec, device, dtype):
    from transformers.models.mixtral import modeling_mixtral as mm
    cfg = mixtral_config(llama_cfg, spec, spec.experts_implementation)
    with torch.device(device or "cpu"):
        block = mm.MixtralSparseMoeBlock(cfg)
    block.to(dtype=dtype)
    got = getattr(cfg, "_experts_implementation", None)
    if got != spec.experts_implementation:
        raise RuntimeError(f"MixtralConfig kept experts implementation {got!r}, "
                           f"not {spec.experts_implementation!r}")
    return block


class MoeMLP(nn.Module):
    """The MLP of a decoder layer: [b, s, hidden] -> [b, s, hidden]."""

    is_moe_block = True

    def __init__(self, llama_cfg, spec, device=None, dtype=None):
        super().__init__()
        spec.validate()
        self.spec = spec
        if spec.impl == "transformers":
            self.inner = transformers_block(llama_cfg, spec, device, dtype)
            self.path = f"transformers MixtralSparseMoeBlock, experts {spec.experts_implementation}"
        else:
            self.inner = LocalMoeBlock(llama_cfg.hidden_size, spec, device, dtype)
            self.path = "local grouped_mm port" + ("" if HAS_GROUPED_MM else " (mm loop fallback)")
        self.experts = self.inner.experts

    def forward(self, x):
        out = self.inner(x)
        if isinstance(out, tuple):      # transformers 4.x returned (hidden, router_logits)
            out = out[0]
        return out.reshape(x.shape)


@torch.no_grad()
def copy_weights(src, dst):
    """Same weights in a LocalMoeBlock and a transformers block (router + experts)."""
    src_gate = src.gate.weight
    dst_gate = dst.gate.weight
    dst_gate.copy_(src_gate)
    dst.experts.gate_up_proj.copy_(src.experts.gate_up_proj)
    dst.experts.down_proj.copy_(src.experts.down_proj)


# What the blocks did (routing, transformers' code, calls to the experts): moe_probe.py; the names
# stay importable from here (moe_block.RoutingRecorder, mb.routing_summary, ...).
from moe_probe import (CallCounter, RoutingRecorder, _NoCounter, _source, experts_call_counter,  # noqa: E402,F401
                       routing_summary, transformers_info)


@torch.no_grad()
def reference_fp32(block, x):
    """The MoE MLP token by token in fp32 (router logits as the block computes them, in the
    weights' dtype, so that the routing is the same), for checking either implementation."""
    flat = x.reshape(-1, x.shape[-1])
    logits = F.linear(flat, block.gate.weight).float()
    top_w, top_i = torch.topk(F.softmax(logits, dim=-1), block.top_k, dim=-1)
    top_w = top_w / top_w.sum(dim=-1, keepdim=True)
    gate_up = block.experts.gate_up_proj.float()
    down = block.experts.down_proj.float()
    out = torch.zeros(flat.shape, dtype=torch.float32, device=flat.device)
    for t in range(flat.shape[0]):
        xt = flat[t].float()
        for j in range(block.top_k):
            e = int(top_i[t, j])
            g, u = (gate_up[e] @ xt).chunk(2)
            out[t] += top_w[t, j] * (down[e] @ (F.silu(g) * u))
    return out.reshape(x.shape)


def _rel(a, ref):
    return ((a.float() - ref).norm() / ref.norm()).item()


@torch.no_grad()
def check_against_local(llama_cfg, spec, device, dtype, tokens=64, seed=0):
    """Runs a transformers block and a LocalMoeBlock with the same weights on the same input
    and returns which experts function ran, how often, and the relative differences (to each
    other, and each to an fp32 token-by-token reference)."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    h = llama_cfg.hidden_size
    local = LocalMoeBlock(h, spec, device, dtype)
    for p in local.parameters():
        p.normal_(0.0, llama_cfg.initializer_range, generator=gen)
    hf = MoeMLP(llama_cfg, spec, device, dtype)
    copy_weights(local, hf.inner)
    x = torch.randn(1, tokens, h, device=device, dtype=dtype, generator=gen)
    with CallCounter(spec.experts_implementation) as counter:
        y_hf = hf(x)
    y_local = local(x)
    ref = reference_fp32(local, x)
    result = {"path": hf.path, "tokens": tokens,
              f"{spec.experts_implementation}_calls": counter.count,
              "rel_diff_vs_local": _rel(y_hf, y_local.float()),
              "max_abs_diff_vs_local": (y_hf.float() - y_local.float()).abs().max().item(),
              "rel_err_transformers_vs_fp32": _rel(y_hf, ref),
              "rel_err_local_vs_fp32": _rel(y_local, ref)}
    del local, hf
    return result
