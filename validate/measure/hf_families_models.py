"""The model side of measure_hf_families.py: each family's public config.json values, what we
change (layers, DeepSeek's dense-layer count), building the model with transformers' class, and
setting up a prefill or decode step (growing or cropped DynamicCache, or a StaticCache rewritten
before every step for CUDA-graph capture).

Split out of measure_hf_families.py (same code; see that script and HF.md for the method). Imports
without torch (py_compile, --dry-run); what needs torch looks it up when called.
"""

import gc
import importlib.util
import json
import os
import time

import measure_hf as mh  # time_eager, capture, time_replays, profile_step, caches
from ridgeline_measure.harness import elapsed_s, err_text

torch = mh.torch

# Public config.json values (the flagship checkpoints), then the layer count we build.
FAMILIES = {
    "qwen3-32b": ("Qwen3Config", "Qwen3ForCausalLM", 4, {
        "hidden_size": 5120, "intermediate_size": 25600, "num_attention_heads": 64, "num_key_value_heads": 8,
        "head_dim": 128, "vocab_size": 151936, "max_position_embeddings": 40960, "rms_norm_eps": 1e-6,
        "rope_theta": 1000000.0, "tie_word_embeddings": False, "attention_bias": False,
        "hidden_act": "silu", "num_hidden_layers": 64}),
    "qwen3-30b-a3b": ("Qwen3MoeConfig", "Qwen3MoeForCausalLM", 4, {
        "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768, "num_attention_heads": 32,
        "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8,
        "norm_topk_prob": True, "decoder_sparse_step": 1, "mlp_only_layers": [], "vocab_size": 151936,
        "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
        "tie_word_embeddings": False, "hidden_act": "silu", "num_hidden_layers": 48}),
    "gemma3-27b": ("Gemma3TextConfig", "Gemma3ForCausalLM", 6, {
        "hidden_size": 5376, "intermediate_size": 21504, "num_attention_heads": 32, "num_key_value_heads": 16,
        "head_dim": 128, "vocab_size": 262208, "query_pre_attn_scalar": 168, "sliding_window": 1024,
        "sliding_window_pattern": 6, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "rms_norm_eps": 1e-6,
        "hidden_activation": "gelu_pytorch_tanh", "max_position_embeddings": 131072,
        "attn_logit_softcapping": None, "final_logit_softcapping": None, "num_hidden_layers": 62}),
    "gpt-oss-20b": ("GptOssConfig", "GptOssForCausalLM", 4, {
        "hidden_size": 2880, "intermediate_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8,
        "head_dim": 64, "num_local_experts": 32, "num_experts_per_tok": 4, "vocab_size": 201088,
        "sliding_window": 128, "rope_theta": 150000.0, "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                         "truncate": False, "original_max_position_embeddings": 4096},
        "swiglu_limit": 7.0, "rms_norm_eps": 1e-5, "attention_bias": True, "tie_word_embeddings": False,
        "num_hidden_layers": 24}),
    "deepseek-v3": ("DeepseekV3Config", "DeepseekV3ForCausalLM", 4, {
        "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
        "num_attention_heads": 128, "num_key_value_heads": 128, "q_lora_rank": 1536, "kv_lora_rank": 512,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "n_routed_experts": 256,
        "n_shared_experts": 1, "num_experts_per_tok": 8, "n_group": 8, "topk_group": 4,
        "routed_scaling_factor": 2.5, "norm_topk_prob": True, "first_k_dense_replace": 3,
        "vocab_size": 129280, "max_position_embeddings": 163840, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
        "rope_scaling": {"rope_type": "yarn", "factor": 40.0, "beta_fast": 32, "beta_slow": 1, "mscale": 1.0,
                         "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096},
        "tie_word_embeddings": False, "num_hidden_layers": 61}),
    "phi3-medium": ("Phi3Config", "Phi3ForCausalLM", 4, {
        "hidden_size": 5120, "intermediate_size": 17920, "num_attention_heads": 40, "num_key_value_heads": 10,
        "vocab_size": 32064, "max_position_embeddings": 4096, "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
        "tie_word_embeddings": False, "hidden_act": "silu", "num_hidden_layers": 40}),
    "olmo2-7b": ("Olmo2Config", "Olmo2ForCausalLM", 4, {
        "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32, "num_key_value_heads": 32,
        "vocab_size": 100352, "max_position_embeddings": 4096, "rope_theta": 500000.0, "rms_norm_eps": 1e-6,
        "tie_word_embeddings": False, "hidden_act": "silu", "attention_bias": False, "num_hidden_layers": 32}),
}

# Families added on 2026-12-01's second run (issue 14's never-measured model types): the public
# config.json values as ridgeline's own presets hold them (workloads/models/*.json, each with its
# source), Qwen2-57B-A14B written here (no preset).
PRESET_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "workloads", "models")
PRESET_DROP = ("architectures", "auto_map", "torch_dtype", "transformers_version", "model_type")


def preset_config(name):
    with open(os.path.join(PRESET_DIR, name + ".json")) as f:
        doc = json.load(f)
    return {k: v for k, v in doc.items() if not k.startswith("_") and k not in PRESET_DROP}


FAMILIES_2 = {
    "gemma2-27b": ("Gemma2Config", "Gemma2ForCausalLM", 4, preset_config("gemma-2-27b")),
    "qwen2-57b-a14b": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM", 4, {
        "hidden_size": 3584, "intermediate_size": 18944, "moe_intermediate_size": 2560,
        "shared_expert_intermediate_size": 20480, "num_attention_heads": 28, "num_key_value_heads": 4,
        "num_experts": 64, "num_experts_per_tok": 8, "norm_topk_prob": False, "decoder_sparse_step": 1,
        "mlp_only_layers": [], "vocab_size": 151936, "max_position_embeddings": 32768, "rms_norm_eps": 1e-6,
        "rope_theta": 1000000.0, "tie_word_embeddings": False, "hidden_act": "silu", "use_sliding_window": False,
        "num_hidden_layers": 28}),
    "llama4-scout": ("Llama4TextConfig", "Llama4ForCausalLM", 4, preset_config("llama-4-scout")),
    "deepseek-v2-lite": ("DeepseekV2Config", "DeepseekV2ForCausalLM", 4, preset_config("deepseek-v2-lite")),
}
FAMILIES.update(FAMILIES_2)

# What we change besides the layer count (recorded per record).
DEVIATIONS = {
    "deepseek-v3": {"first_k_dense_replace": 2,
                    "why": "4 layers: 2 dense (as the first 3 of 61 are) + 2 MoE with all 256 experts"},
    "gemma3-27b": {"why": "6 layers so that the 5-sliding : 1-global pattern has its global layer"},
    "gpt-oss-20b": {"why": "experts in bf16: MXFP4 needs the hub kernels (triton_kernels), not on the machine"},
    "gemma2-27b": {"why": "4 layers: 2 sliding + 2 global, alternating as in the 46"},
    "llama4-scout": {"why": "text model only (Llama4ForCausalLM, no vision tower); 4 layers, every one MoE as in "
                             "the 48 (interleave_moe_layer_step 1); no_rope_layers cut to the 4 layers built"},
    "deepseek-v2-lite": {"why": "4 layers: 1 dense (as the first of 27 is) + 3 MoE with all 64 experts"},
}


def log(msg):
    print(f"[{elapsed_s():7.1f}s] {msg}", flush=True)


_BUILT = {}


def family_config(fam, layers):
    cfg_name, cls_name, _, public = FAMILIES[fam]
    kw = dict(public)
    kw["num_hidden_layers"] = layers
    if fam == "deepseek-v3":
        kw["first_k_dense_replace"] = min(DEVIATIONS[fam]["first_k_dense_replace"], layers - 1)
    if fam == "gpt-oss-20b":
        kw["layer_types"] = ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)]
    if fam == "llama4-scout" and kw.get("no_rope_layers"):
        kw["no_rope_layers"] = kw["no_rope_layers"][:layers]
    if fam == "gemma3-27b":
        kw["layer_types"] = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(layers)]
    return cfg_name, cls_name, kw


LEGACY_KEYS = ("rope_scaling", "rope_local_base_freq", "sliding_window_pattern")


def make_config(tf, cfg_name, kw, attn, info):
    """The config object; if the class refuses a legacy rope/pattern key, retried without it (recorded)."""
    try:
        return getattr(tf, cfg_name)(**kw, attn_implementation=attn)
    except Exception as exc:  # noqa: BLE001
        dropped = {k: kw[k] for k in LEGACY_KEYS if k in kw}
        if not dropped:
            raise
        info["config_error_with_legacy_keys"] = err_text(exc)
        info["config_keys_dropped"] = dropped
        return getattr(tf, cfg_name)(**{k: v for k, v in kw.items() if k not in LEGACY_KEYS},
                                     attn_implementation=attn)


def build(fam, layers):
    key = (fam, layers)
    if key in _BUILT:
        return _BUILT[key]
    for k in list(_BUILT):
        _BUILT.pop(k)
    gc.collect()
    torch.cuda.empty_cache()
    import transformers as tf
    cfg_name, cls_name, kw = family_config(fam, layers)
    info = {"class": cls_name, "config_class": cfg_name}
    model = None
    for attn in ("sdpa", "eager"):
        old = torch.get_default_dtype()
        torch.set_default_dtype(torch.bfloat16)
        t = time.perf_counter()
        try:
            cfg = make_config(tf, cfg_name, kw, attn, info)
            torch.manual_seed(0)
            with torch.device("cuda"):
                model = getattr(tf, cls_name)(cfg)
            info["attn_implementation"] = getattr(model.config, "_attn_implementation", attn)
            break
        except Exception as exc:  # noqa: BLE001
            info[f"build_error_{attn}"] = err_text(exc)
            model = None
        finally:
            torch.set_default_dtype(old)
    if model is None:
        raise RuntimeError(f"could not build {cls_name}: {info}")
    model.eval()
    info["build_s"] = round(time.perf_counter() - t, 2)
    info["params"] = sum(p.numel() for p in model.parameters())
    info["param_dtype"] = str(next(model.parameters()).dtype)
    info["experts_implementation"] = getattr(model.config, "_experts_implementation", None)
    try:
        info["layer_classes"] = sorted({type(m).__name__ for m in model.model.layers[0].modules()})[:40]
        info["mlp_classes"] = [type(layer.mlp).__name__ for layer in model.model.layers]
    except Exception:  # noqa: BLE001
        pass
    info["layer_types"] = getattr(model.config, "layer_types", None)
    info["config"] = {k: v for k, v in model.config.to_dict().items()
                      if isinstance(v, (int, float, str, bool, list, dict)) or v is None}
    if fam == "gpt-oss-20b":
        info["mxfp4"] = ("not used: experts bf16; 'kernels' package present" if importlib.util.find_spec("kernels")
                         else "not used: experts bf16 (the 'kernels' package for the MXFP4 Triton kernels is "
                              "not installed and nothing can be downloaded)")
    _BUILT[key] = (model, info)
    log(f"built {fam} L{layers}: {info['params']} params, attn {info.get('attn_implementation')}, "
        f"{info['build_s']} s")
    return _BUILT[key]


def setup(case):
    """Returns dict(step, graph, extra, cache)."""
    model, info = build(case["family"], case["layers"])
    cfg = model.config
    b = case["batch"]
    V = cfg.vocab_size
    gen = torch.Generator(device="cuda").manual_seed(11)
    im = torch.inference_mode
    extra = {}
    if case["phase"] == "prefill":
        ids = torch.randint(0, V, (b, case["seq"]), device="cuda", generator=gen)

        def step():
            with im():
                return model(input_ids=ids, use_cache=True, logits_to_keep=1)
        return {"step": step, "graph": False, "extra": extra}
    kv = case["kv_len"]
    static = case["cache"] == "static"
    ids = torch.randint(0, V, (b, 1), device="cuda", generator=gen)
    if static:
        return setup_static(model, cfg, case, ids, extra)
    crop = case["cache"] == "dynamic_crop"
    fill = torch.randint(0, V, (b, kv), device="cuda", generator=gen)
    with im():
        cache = mh.make_dynamic_cache(cfg)
        model(input_ids=fill, past_key_values=cache, use_cache=True, logits_to_keep=1)
    torch.cuda.synchronize()
    del fill
    extra["cache_class"] = type(cache).__name__
    extra["cache_layer_classes"] = layer_classes(cache)
    # positions made ahead, so that a step does no host-to-device copy
    pos = [torch.full((b, 1), kv + i, device="cuda", dtype=torch.long) for i in range(MAX_STEPS)]
    cpos = [torch.tensor([kv + i], device="cuda", dtype=torch.long) for i in range(MAX_STEPS)]
    state = {"n": 0}
    flash = case["launch"].endswith("sdpa_flash")

    def step():  # 'dynamic': the cache grows by one token per step; 'dynamic_crop': always at kv
        i = 0 if crop else min(state["n"], MAX_STEPS - 1)
        state["n"] += 1
        with im():
            if flash:
                from torch.nn.attention import SDPBackend, sdpa_kernel
                with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                    return model(input_ids=ids, past_key_values=cache, position_ids=pos[i], cache_position=cpos[i],
                                 use_cache=True, logits_to_keep=1)
            return model(input_ids=ids, past_key_values=cache, position_ids=pos[i], cache_position=cpos[i],
                         use_cache=True, logits_to_keep=1)
    if crop:
        def pre():  # back to kv tokens before every step, outside the timed region (measure_hf.py's way)
            cache.crop(kv)
        pre()
        return {"step": step, "pre": pre, "graph": False, "extra": extra, "cache": cache}
    extra["_state"] = state
    return {"step": step, "graph": False, "extra": extra, "cache": cache}


MAX_STEPS = 160  # time_eager: 3 warm-up + <= 100 timed steps; the profile: 2 more


def layer_classes(cache):
    try:
        return sorted({type(layer).__name__ for layer in cache.layers})
    except Exception:  # noqa: BLE001
        return None


def setup_static(model, cfg, case, ids, extra):
    """StaticCache(max_cache_len kv+16) holding kv tokens of randn K/V, written through cache.update
    with cache_position 0..kv-1 and rewritten (reset + update) before every step (pre), as
    measure_hf.py does; the K/V shapes per layer are read from a one-token forward into a
    DynamicCache (MLA's K and V head dims differ). Each step is the step at position kv."""
    b, kv = case["batch"], case["kv_len"]
    im = torch.inference_mode
    with im():
        probe = mh.make_dynamic_cache(cfg)
        model(input_ids=ids, past_key_values=probe, use_cache=True, logits_to_keep=1)
        shapes = [(tuple(layer.keys.shape), tuple(layer.values.shape)) for layer in probe.layers]
        del probe
        g = torch.Generator(device="cuda").manual_seed(7)
        kvs = [(torch.randn(ks[0], ks[1], kv, ks[3], device="cuda", dtype=torch.bfloat16, generator=g),
                torch.randn(vs[0], vs[1], kv, vs[3], device="cuda", dtype=torch.bfloat16, generator=g))
               for ks, vs in shapes]
        cache = mh.make_static_cache(cfg, b, kv + 16, torch.bfloat16)
    extra["max_cache_len"] = kv + 16
    extra["kv_shapes_per_layer"] = sorted({f"K{list(ks)} V{list(vs)}" for ks, vs in shapes})
    fill_pos = torch.arange(kv, device="cuda")

    def pre():
        with im():
            cache.reset()
            for layer, (k, v) in enumerate(kvs):
                cache.update(k, v, layer, {"cache_position": fill_pos})
    pre()
    torch.cuda.synchronize()
    try:
        extra["seq_len_after_fill"] = int(cache.get_seq_length())
        extra["cache_layer_shapes"] = sorted({str(tuple(layer.keys.shape)) for layer in cache.layers
                                              if getattr(layer, "keys", None) is not None})
    except Exception as exc:  # noqa: BLE001
        extra["cache_diag_error"] = err_text(exc)
    extra["cache_class"] = type(cache).__name__
    extra["cache_layer_classes"] = layer_classes(cache)
    pos = torch.full((b, 1), kv, device="cuda", dtype=torch.long)
    cpos = torch.tensor([kv], device="cuda", dtype=torch.long)

    def step():
        with im():
            return model(input_ids=ids, past_key_values=cache, position_ids=pos, cache_position=cpos,
                         use_cache=True, logits_to_keep=1)
    return {"step": step, "pre": pre, "graph": case["launch"] == "graph", "extra": extra, "cache": cache}
