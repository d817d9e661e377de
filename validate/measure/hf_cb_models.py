"""The models measure_hf_cb.py serves (--model) and the dry-run's time plan of a run list.

llama3-8b: the Llama-3-8B shape (32 layers) of the 2026-12-01 run (its ids, method text and
records unchanged). qwen3-moe-l24: transformers' Qwen3MoeForCausalLM with the Qwen3-30B-A3B
shape (public config.json values) cut to 24 of its 48 layers, so that the bf16 weights (~31 GB)
leave an 80 GB H100 room for the KV cache; its records carry model_config, a config.json a HF
config reader accepts. plan() estimates each run's span from per-engine step-time priors (a
guess for models not yet measured) and replays the script's budget guard, so that --dry-run
shows what a budget keeps. Pure Python: no torch, no transformers.
"""

import random

LLAMA_METHOD_MODEL = (
    "Model: transformers' own LlamaForCausalLM, Llama-3-8B shape (hidden 4096, 32 heads, 8 KV heads, "
    "head_dim 128, intermediate 14336, vocab 128256, untied embeddings, 32 layers; rope_theta left at "
    "the class default: it does not change the cost), ")

QWEN3_MOE_L24 = {  # Qwen/Qwen3-30B-A3B config.json values (workloads/models/qwen3-30b-a3b.json), 24 layers
    "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
    "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
    "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
    "norm_topk_prob": True, "decoder_sparse_step": 1, "mlp_only_layers": [], "num_hidden_layers": 24,
    "vocab_size": 151936, "tie_word_embeddings": False, "max_position_embeddings": 40960,
    "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
    "torch_dtype": "bfloat16", "dtype": "bfloat16"}
CONFIG_BOOKKEEPING = ("architectures", "model_type", "torch_dtype", "dtype")

MODELS = {
    "llama3-8b": {
        "tag": "llama3-8b", "model": "hf-llama3-8b", "layers": 32,
        "config_class": "LlamaConfig", "class": "LlamaForCausalLM",
        "config": {"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                   "intermediate_size": 14336, "vocab_size": 128256, "num_hidden_layers": 32,
                   "max_position_embeddings": 8192, "rms_norm_eps": 1e-5, "tie_word_embeddings": False},
        "method_model": LLAMA_METHOD_MODEL},
    "qwen3-moe-l24": {
        "tag": "qwen3-moe", "model": "hf-qwen3-30b-a3b", "layers": 24, "moe": True,
        "config_class": "Qwen3MoeConfig", "class": "Qwen3MoeForCausalLM",
        "config": {k: v for k, v in QWEN3_MOE_L24.items() if k not in CONFIG_BOOKKEEPING},
        "model_config": QWEN3_MOE_L24,
        "method_model": (
            "Model: transformers' own Qwen3MoeForCausalLM, Qwen3-30B-A3B shape (hidden 2048, 32 heads, 4 KV "
            "heads, head_dim 128, 128 experts top-8 with norm_topk_prob, moe_intermediate 768, every layer "
            "MoE, vocab 151936, untied embeddings, rope_theta 1e6, rms_norm_eps 1e-6) with 24 of its 48 "
            "layers (the bf16 weights, ~31 GB, leave an 80 GB H100 room for KV; the record's model_config "
            "is the config as a config.json), experts as transformers runs them by default (recorded: "
            "meta.model.experts_implementation), "),
        # dry-run plan only: (decode step ms, step ms of a full 8192-token prefill step) per engine, a
        # guess for an H100 (the Llama run's steps, the families runs' Qwen3-MoE L4 decode x 6), and
        # seconds of setup (imports, build, warm-up) before the first run and per engine
        "plan": {"default": (125, 650), "cudagraph": (85, 700), "setup_s": 35, "engine_setup_s": 10}},
}


def model_ids():
    return list(MODELS)


def plan_span_s(c, lengths, step, burst_rps=None):
    """A run's span from the step priors: burst = its prefill steps then its longest request's decode
    steps; Poisson = the latest of (arrival + its prefill step + its decode steps), the arrivals drawn as
    run_requests draws them at rate fraction * burst_rps."""
    decode_s, prefill_s = step[0] / 1e3, step[1] / 1e3
    if c["arrival"] == "burst":
        return sum(i for i, _ in lengths) / 8192 * prefill_s + max(o for _, o in lengths) * decode_s
    rate = c["rate_fraction_of_burst"] * burst_rps
    arng, t, end = random.Random(c["seed"] + 1), 0.0, 0.0
    for i, o in lengths:
        end = max(end, t + max(i / 8192, 0.1) * prefill_s + o * decode_s)
        t += arng.expovariate(rate)
    return end


def plan(cases, lengths_of, spec, budget_s, poisson_span_s):
    """[(case, n, span_s or None, end_s, 'run' | 'skip')]: the estimated span of each run and when it
    ends, the script's guards replayed (engine skipped past 0.85 budget; a run skipped when now + its
    guard estimate, n/rate + the burst span + 5, passes the budget), or None where spec has no plan."""
    p = spec.get("plan")
    if not p:
        return None
    now, out = p["setup_s"], []
    for engine in dict.fromkeys(c["engine"] for c in cases):
        ecases, burst = [c for c in cases if c["engine"] == engine], {}
        if now > budget_s * 0.85:
            out += [(c, c["requests_planned"], None, now, "skip") for c in ecases]
            continue
        now += p["engine_setup_s"]
        for c in ecases:
            lengths, n, guard = lengths_of(c), c["requests_planned"], 0.0
            base = burst.get(c["mix"])
            if c["arrival"] == "poisson":
                if base is None:
                    out.append((c, n, None, now, "skip"))
                    continue
                rate = c["rate_fraction_of_burst"] * base[0]
                n = min(n, max(48, int(rate * poisson_span_s)))
                lengths, guard = lengths[:n], n / rate
            guard += (base[1] if base else 10) + 5
            if now + guard > budget_s:
                out.append((c, n, None, now, "skip"))
                continue
            span = plan_span_s(c, lengths, p[engine], base[0] if base else None)
            if c["arrival"] == "burst":
                burst[c["mix"]] = (n / span, span)
            now += span
            out.append((c, n, span, now, "run"))
    return out
