"""The transformers models measure_hf.py builds (Llama, Mixtral, Qwen2-MoE shapes; random bf16 or
fp32 weights built on the GPU from a config, nothing downloaded), kept in _MODELS so each is built
once per process, and the KV caches (DynamicCache, StaticCache) filled for a decode step.
"""

import gc
import time

from .hf_cases import LLAMA
from .hf_timing import log
from .optional import torch


_MODELS = {}


def model_config(name, layers):
    import transformers as tf
    if name == LLAMA:
        return tf.LlamaConfig(hidden_size=4096, num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                              intermediate_size=14336, vocab_size=128256, num_hidden_layers=layers,
                              max_position_embeddings=16384, rms_norm_eps=1e-5, tie_word_embeddings=False,
                              attn_implementation="sdpa"), tf.LlamaForCausalLM
    if name == "hf-mixtral-8x7b":
        return tf.MixtralConfig(hidden_size=4096, num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                                intermediate_size=14336, vocab_size=32000, num_hidden_layers=layers,
                                num_local_experts=8, num_experts_per_tok=2, max_position_embeddings=16384,
                                tie_word_embeddings=False, attn_implementation="sdpa"), tf.MixtralForCausalLM
    if name == "hf-qwen2moe-a2.7b":
        return tf.Qwen2MoeConfig(hidden_size=2048, num_attention_heads=16, num_key_value_heads=16,
                                 intermediate_size=5632, moe_intermediate_size=1408,
                                 shared_expert_intermediate_size=5632, num_experts=60, num_experts_per_tok=4,
                                 vocab_size=151936, num_hidden_layers=layers, max_position_embeddings=16384,
                                 decoder_sparse_step=1, tie_word_embeddings=False,
                                 attn_implementation="sdpa"), tf.Qwen2MoeForCausalLM
    raise ValueError(name)


def get_model(name, layers, dtype_name="bf16"):
    key = (name, layers, dtype_name)
    if key in _MODELS:
        return _MODELS[key]
    cfg, cls = model_config(name, layers)
    dtype = torch.bfloat16 if dtype_name == "bf16" else torch.float32
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    t = time.perf_counter()
    try:
        torch.manual_seed(0)
        with torch.device("cuda"):
            model = cls(cfg)
    finally:
        torch.set_default_dtype(old)
    model.eval()
    info = {"build_s": round(time.perf_counter() - t, 2), "class": cls.__name__,
            "params": sum(p.numel() for p in model.parameters()),
            "attn_implementation": getattr(model.config, "_attn_implementation", None),
            "experts_implementation": getattr(model.config, "_experts_implementation", None)}
    try:
        mlp = model.model.layers[0].mlp
        info["mlp_class"] = type(mlp).__name__
        if hasattr(mlp, "experts"):
            info["experts_class"] = type(mlp.experts).__name__
    except Exception:  # noqa: BLE001
        pass
    _MODELS[key] = (model, cfg, info)
    log(f"built {key}: {info}")
    return _MODELS[key]


def drop_model(key):
    _MODELS.pop(key, None)
    gc.collect()
    torch.cuda.empty_cache()


def make_static_cache(cfg, batch, max_len, dtype):
    import transformers as tf
    tries = [lambda: tf.StaticCache(config=cfg, max_cache_len=max_len),
             lambda: tf.StaticCache(config=cfg, max_batch_size=batch, max_cache_len=max_len, device="cuda",
                                    dtype=dtype)]
    last = None
    for make in tries:
        try:
            return make()
        except TypeError as exc:
            last = exc
    raise last


def make_dynamic_cache(cfg):
    import transformers as tf
    try:
        return tf.DynamicCache(config=cfg)
    except TypeError:
        return tf.DynamicCache()


def static_layers(cache):
    if hasattr(cache, "layers"):
        return [(layer.keys, layer.values) for layer in cache.layers]
    return list(zip(cache.key_cache, cache.value_cache))


def fill_cache(cache, cfg, batch, kv_len, static):
    kvh = cfg.num_key_value_heads
    hd = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    g = torch.Generator(device="cuda").manual_seed(7)
    pos = torch.arange(kv_len, device="cuda")
    kvs = []
    for layer in range(cfg.num_hidden_layers):
        k = torch.randn(batch, kvh, kv_len, hd, device="cuda", dtype=torch.bfloat16, generator=g)
        v = torch.randn(batch, kvh, kv_len, hd, device="cuda", dtype=torch.bfloat16, generator=g)
        cache.update(k, v, layer, {"cache_position": pos} if static else {})
        kvs.append((k, v) if static else None)
    return kvs
