"""measure_hf.py's workload steps: setup_workload builds a case's step (prefill, decode, generate,
training with its optimizer, compiled variants) with what runs before it outside the timed region,
and time_generate times generate() by its per-token events.
"""

import time

from .hf_models import _MODELS, fill_cache, get_model, make_dynamic_cache, make_static_cache
from .hf_timing import pct
from .optional import torch


def setup_workload(case, trace_dir=None):
    """Returns dict(step=callable, pre=callable|None, graph=bool, extra=dict, cleanup=callable)."""
    ph = case["phase"]
    prec = case.get("precision", "bf16")
    model, cfg, info = get_model(case["model"], case["layers"], "fp32" if prec == "fp32amp" else "bf16")
    extra = dict(info)
    b = case["batch"]
    V = cfg.vocab_size
    gen = torch.Generator(device="cuda").manual_seed(11)
    if ph in ("prefill", "generate"):
        ids = torch.randint(0, V, (b, case["seq"]), device="cuda", generator=gen)
    elif ph == "decode":
        ids = torch.randint(0, V, (b, 1), device="cuda", generator=gen)
    else:
        ids = torch.randint(0, V, (b, case["seq"]), device="cuda", generator=gen)
    fwd = model
    if case["launch"] == "compile":
        fwd = _MODELS.setdefault(("compiled", case["model"], case["layers"]), (torch.compile(model), None, None))[0]
    im = torch.inference_mode
    if ph == "prefill":
        s = case["seq"]
        if case["cache"] == "dynamic":
            def step():
                with im():
                    return fwd(input_ids=ids, use_cache=True, logits_to_keep=1)
        else:
            cache = make_static_cache(cfg, b, s + 64, torch.bfloat16)
            cpos = torch.arange(s, device="cuda")
            extra["max_cache_len"] = s + 64

            def step():
                with im():
                    return fwd(input_ids=ids, past_key_values=cache, cache_position=cpos, use_cache=True,
                               logits_to_keep=1)

            def pre():  # an empty cache before every step, whether or not the model reads cache_position
                with im():
                    cache.reset()
            return {"step": step, "pre": pre, "extra": extra}
        return {"step": step, "pre": None, "extra": extra}
    if ph == "decode":
        kv = case["kv_len"]
        static = case["cache"] == "static"
        with im():
            if static:
                cache = make_static_cache(cfg, b, kv + 16, torch.bfloat16)
                extra["max_cache_len"] = kv + 16
            else:
                cache = make_dynamic_cache(cfg)
            kvs = fill_cache(cache, cfg, b, kv, static)
        pos_ids = torch.full((b, 1), kv, device="cuda", dtype=torch.long)
        cpos = torch.tensor([kv], device="cuda", dtype=torch.long)
        extra["cache_class"] = type(cache).__name__

        def step():
            with im():
                return fwd(input_ids=ids, past_key_values=cache, position_ids=pos_ids, cache_position=cpos,
                           use_cache=True, logits_to_keep=1)
        if not static:
            def pre():
                cache.crop(kv)
        else:
            cpos_fill = torch.arange(kv, device="cuda")

            def pre():  # reset + refill to exactly kv_len before every step (outside the timed region),
                # whether the model reads cache_position or counts what the cache holds
                with im():
                    cache.reset()
                    for layer, (k_t, v_t) in enumerate(kvs):
                        cache.update(k_t, v_t, layer, {"cache_position": cpos_fill})
            pre()
            extra["seq_len_after_fill"] = int(cache.get_seq_length())
        return {"step": step, "pre": pre, "graph": case["launch"] == "graph", "extra": extra, "cache": cache}
    if ph == "generate":
        n = case["new_tokens"]
        model.generation_config.eos_token_id = None
        model.generation_config.pad_token_id = 0
        mask = torch.ones_like(ids)
        events = []

        def hook(mod, args, out):
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            events.append(e)
        handle = model.register_forward_hook(hook)

        def step():
            events.clear()
            with im():
                return model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=n, min_new_tokens=n,
                                      do_sample=False, use_cache=True)
        return {"step": step, "pre": None, "extra": extra, "events": events, "cleanup": handle.remove,
                "generate": True}
    if ph == "train":
        model.train()
        if case["ckpt"] == "ckpt":
            model.gradient_checkpointing_enable()
        else:
            model.gradient_checkpointing_disable()
        amp = prec == "fp32amp"

        def pre():
            for p in model.parameters():
                p.grad = None

        def step():
            if amp:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = model(input_ids=ids, labels=ids, use_cache=False).loss
            else:
                loss = model(input_ids=ids, labels=ids, use_cache=False).loss
            loss.backward()

        def cleanup():
            pre()
            model.gradient_checkpointing_disable()
            model.eval()
        return {"step": step, "pre": pre, "extra": extra, "cleanup": cleanup}
    if ph == "optimizer":
        model.train()
        model.gradient_checkpointing_disable()
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=prec == "fp32amp"):
            loss = model(input_ids=ids, labels=ids, use_cache=False).loss
        loss.backward()
        del loss
        kw = {"foreach": True} if case["optimizer"] == "adamw_foreach" else {"fused": True}
        opt = torch.optim.AdamW(model.parameters(), lr=1e-6, weight_decay=0.01, **kw)
        extra["optimizer_kwargs"] = kw
        extra["param_dtype"] = str(next(model.parameters()).dtype)

        def step():
            opt.step()

        def cleanup():
            opt.state.clear()
            for p in model.parameters():
                p.grad = None
            model.eval()
        return {"step": step, "pre": None, "extra": extra, "cleanup": cleanup}
    raise ValueError(ph)


def time_generate(st, reps=3):
    step, events = st["step"], st["events"]
    step()  # warm-up
    torch.cuda.synchronize()
    rows = []
    for _ in range(reps):
        torch.cuda.synchronize()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        e0.record()
        out = step()
        e1.record()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        fw = [e0.elapsed_time(e) for e in events]
        rows.append({"total_ms": e0.elapsed_time(e1), "host_ms": (t1 - t0) * 1e3, "ttft_ms": fw[0],
                     "per_token_ms": (fw[-1] - fw[0]) / max(1, len(fw) - 1), "forwards": len(fw),
                     "new_tokens": int(out.shape[1] - st_prompt_len(st))})
    res = {}
    for key in ("total_ms", "host_ms", "ttft_ms", "per_token_ms"):
        vals = [r[key] for r in rows]
        res[key.replace("_ms", "")] = {"median_ms": pct(vals, 50), "p10_ms": pct(vals, 10),
                                       "p90_ms": pct(vals, 90), "n": len(vals)}
    res["forwards"] = rows[-1]["forwards"]
    res["new_tokens_out"] = rows[-1]["new_tokens"]
    res["device_median_ms"] = res["total"]["median_ms"]
    res["host_median_ms"] = res["host"]["median_ms"]
    return res


def st_prompt_len(st):
    return st["extra"].get("prompt_len", 0)
