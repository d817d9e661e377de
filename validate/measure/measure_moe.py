#!/usr/bin/env python3
"""Measure MoE decoder blocks (Mixtral-style MLP, Hugging Face's grouped_mm experts) on one GPU.

    python3 measure_moe.py --out results.json [--budget-s 300] [--only REGEX] [--dry-run]

The harness is measure_models.py's (same timing, profiling, records and split); this file only
adds two MoE models and their cases:

  "mixtral-8x7b"                        2 decoder blocks of Mixtral-8x7B's shape (hidden 4096,
                                        32 heads, 8 KV heads, head_dim 128, 8 experts, top-2,
                                        expert intermediate 14336, vocab 32000), no embedding,
                                        final norm or head ("blocks_only", as "blocks4")
  "validate/data/models/moe-128x8.json" 4 blocks of a fine-grained shape (hidden 2048, 32
                                        heads, 4 KV heads, head_dim 128, 128 experts, top-8,
                                        expert intermediate 768, vocab 151936); its config.json
                                        is that file, so ridgeline can load it with --model

Each block's attention is llama_model.py's (the "pytorch-eager" kernel set); its MLP is
transformers' own MixtralSparseMoeBlock with the experts implementation "grouped_mm"
(moe_block.py). Every MoE record also gets the routing of its step: per layer the experts
that received tokens, the most tokens one expert got, tokens per expert. meta.transformers
records transformers' version, the experts implementation a Mixtral model gets by default,
and the source of the functions that ran; meta.moe_checks a comparison of transformers'
block with moe_block's own port of it on the same weights, and how often grouped_mm ran.
"""

import sys
import traceback

import measure_models as mm

MIXTRAL = "mixtral-8x7b"
FINE = "validate/data/models/moe-128x8.json"
MODELS = {
    MIXTRAL: {"num_layers": 2, "blocks_only": True,
              "moe": {"num_experts": 8, "top_k": 2, "expert_intermediate": 14336}},
    FINE: {"num_layers": 4, "blocks_only": True, "id_name": "moe-128x8",
           "moe": {"num_experts": 128, "top_k": 8, "expert_intermediate": 768}},
}
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
TRACE_CASES = tuple(f"{name}-decode-b{b}-kv{kv}-graph"
                    for name, kv in (("mixtral-8x7b", 1024), ("moe-128x8", 2048))
                    for b in (1, 64))


def mixtral_config():
    return mm.lm.LlamaConfig(hidden_size=4096, num_layers=32, num_heads=32, num_kv_heads=8,
                             head_dim=128, intermediate_size=14336, vocab_size=32000,
                             rms_norm_eps=1e-5, rope_theta=1e6, max_position_embeddings=32768)


def fine_config():
    return mm.lm.LlamaConfig(hidden_size=2048, num_layers=48, num_heads=32, num_kv_heads=4,
                             head_dim=128, intermediate_size=768, vocab_size=151936,
                             rms_norm_eps=1e-6, rope_theta=1e6, max_position_embeddings=32768)


CONFIGS = {MIXTRAL: mixtral_config, FINE: fine_config}


def build_cases():
    """Grouped by model; per model prefill, then decode by (batch, kv), eager before graph."""
    make = mm.make_case
    cases = [make(MIXTRAL, "prefill", "graph", 1, seq=s) for s in (128, 512, 2048)]
    for kv in (1024, 4096):
        for b in BATCHES:
            if kv == 1024 and b in (1, 16, 128):
                cases.append(make(MIXTRAL, "decode", "eager", b, kv_len=kv))
            cases.append(make(MIXTRAL, "decode", "graph", b, kv_len=kv))
    cases += [make(FINE, "prefill", "graph", 1, seq=s) for s in (512, 2048)]
    cases += [make(FINE, "decode", "graph", b, kv_len=2048) for b in BATCHES]
    return cases


METHOD_TEXT = (
    "MoE grid (measure_moe.py over measure_models.py's harness). Models: 'mixtral-8x7b' "
    "(2 blocks of hidden 4096, 32 heads, 8 KV heads, head_dim 128, 8 experts top-2, expert "
    "intermediate 14336) and 'validate/data/models/moe-128x8.json' (4 blocks of hidden 2048, "
    "32 heads, 4 KV heads, head_dim 128, 128 experts top-8, expert intermediate 768), "
    "blocks only (input: hidden states; no embedding, final norm or head). Attention and "
    "norms as in the dense method below. MLP: transformers' MixtralSparseMoeBlock (router "
    "MixtralTopKRouter: linear to E logits, softmax in fp32, top-k, renormalised, cast to "
    "bf16; MixtralExperts with config._experts_implementation = 'grouped_mm', i.e. "
    "transformers.integrations.moe.grouped_mm_experts_forward; its source is in "
    "meta.transformers.source), random bf16 weights (normal std 0.02, router and experts "
    "too), random bf16 hidden states as input (so the routing is that of random weights: "
    "near-uniform). Routing per record: one extra eager step after the timing with forward "
    "pre-hooks on the experts' (hidden, top_k_index, top_k_weights); the inputs are fixed, so "
    "every timed step and every graph replay routes the same way. Dense method, for the "
    "rest: " + mm.METHOD_TEXT)


def extra_meta(meta):
    import moe_block
    import torch
    meta["transformers"] = moe_block.transformers_info(mm.device.DEVICE)
    checks = {}
    for name in MODELS:
        for tokens in (1, 64):
            key = f"{name} tokens={tokens}"
            try:
                checks[key] = moe_block.check_against_local(
                    CONFIGS[name](), mm.moe_spec(name), mm.device.DEVICE, torch.bfloat16,
                    tokens=tokens)
            except Exception as exc:
                checks[key] = {"error": f"{type(exc).__name__}: {exc}",
                               "traceback": traceback.format_exc(limit=6)[-1500:]}
            torch.cuda.empty_cache()
    meta["moe_checks"] = checks
    t = meta["transformers"]
    mm.log(f"transformers {t.get('version')}: default experts implementation "
           f"{t.get('default_experts_implementation', t.get('default_experts_implementation_error'))}"
           f"; checks {checks}")


def register():
    for name, spec in MODELS.items():
        mm.MODEL_SPECS[name] = dict(spec, config=CONFIGS[name])


GRID = {"name": "moe", "cases": build_cases, "method": METHOD_TEXT,
        "trace_cases": TRACE_CASES, "extra_meta": extra_meta}


if __name__ == "__main__":
    register()
    sys.exit(mm.main(grid=GRID))
