#!/usr/bin/env python3
"""Which tensors transformers' DeepSeek-V3 attention copies in a decode step, with their shapes
and strides: the source of DeepseekV3Attention (forward and what it calls) as installed, then one
decode step of a 1-layer (dense) DeepseekV3ForCausalLM at the public widths (random bf16
weights, sdpa, DynamicCache filled by a prefill) profiled with record_shapes, each kernel joined
to the innermost ATen op that launched it (its input dims and strides). Shapes: b16 kv2048 and
b4 kv1024 (the fit split's kind of decode, not the held-out fourth run's b2/b64).

    python3 mla_copy_probe.py --out $OUT/mla-copy-probe.json
"""

import argparse
import bisect
import inspect
import json
import os
import tempfile

import torch

import hf_families_models as fm


def source():
    import transformers.models.deepseek_v3.modeling_deepseek_v3 as m
    out = {"transformers": __import__("transformers").__version__}
    cls = m.DeepseekV3Attention
    for name, fn in inspect.getmembers(cls, inspect.isfunction):
        if name in ("forward", "expand_kv") or "kv" in name:
            out[f"DeepseekV3Attention.{name}"] = inspect.getsource(fn)
    return out


def build():
    import transformers as tf
    cfg_name, cls_name, kw = fm.family_config("deepseek-v3", 2)
    kw["num_hidden_layers"], kw["first_k_dense_replace"] = 1, 1
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    cfg = getattr(tf, cfg_name)(**kw, attn_implementation="sdpa")
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = getattr(tf, cls_name)(cfg)
    torch.set_default_dtype(old)
    return model.eval(), cfg


def joined(trace):
    ev = trace["traceEvents"]
    ops = sorted((e for e in ev if e.get("cat") == "cpu_op"), key=lambda e: e["ts"])
    starts = [e["ts"] for e in ops]
    runtime = {e["args"].get("correlation"): e for e in ev if e.get("cat") == "cuda_runtime"}
    rows = []
    for k in (e for e in ev if e.get("cat") == "kernel"):
        r = runtime.get(k["args"].get("correlation"))
        best = None
        if r is not None:
            i = bisect.bisect_right(starts, r["ts"])
            for o in reversed(ops[max(0, i - 400):i]):
                if o["ts"] <= r["ts"] <= o["ts"] + o.get("dur", 0) and o.get("tid") == r.get("tid"):
                    if best is None or o.get("dur", 0) < best.get("dur", 0):
                        best = o
        a = (best or {}).get("args", {})
        rows.append({"kernel": k["name"][:220], "us": k.get("dur"), "op": (best or {}).get("name"),
                     "dims": a.get("Input Dims"), "strides": a.get("Input Strides"),
                     "types": a.get("Input type")})
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = {"source": source(), "device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "cases": []}
    model, cfg = build()
    for b, kv in ((16, 2048), (4, 1024)):
        gen = torch.Generator(device="cuda").manual_seed(11)
        with torch.inference_mode():
            cache = fm.mh.make_dynamic_cache(cfg)
            fill = torch.randint(0, cfg.vocab_size, (b, kv), device="cuda", generator=gen)
            model(input_ids=fill, past_key_values=cache, use_cache=True, logits_to_keep=1)
            ids = torch.randint(0, cfg.vocab_size, (b, 1), device="cuda", generator=gen)
            pos = torch.full((b, 1), kv, device="cuda", dtype=torch.long)
            cpos = torch.tensor([kv], device="cuda", dtype=torch.long)
            for _ in range(2):
                cache.crop(kv)
                model(input_ids=ids, past_key_values=cache, position_ids=pos, cache_position=cpos,
                      use_cache=True, logits_to_keep=1)
            torch.cuda.synchronize()
            cache.crop(kv)
            acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
            with torch.profiler.profile(activities=acts, record_shapes=True) as prof:
                model(input_ids=ids, past_key_values=cache, position_ids=pos, cache_position=cpos,
                      use_cache=True, logits_to_keep=1)
                torch.cuda.synchronize()
        path = os.path.join(tempfile.mkdtemp(), "t.json")
        prof.export_chrome_trace(path)
        rows = joined(json.load(open(path)))
        out["cases"].append({"batch": b, "kv_len": kv, "kernels": rows})
        del cache
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
