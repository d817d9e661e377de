#!/usr/bin/env python3
"""Time and profile torch.compile'd transformers Llama (8 layers, Llama-3-8B shape) in one compile mode.

    python3 measure_hf_compile.py --mode default --out part1.json [--budget-s 200] [--smoke]
    python3 measure_hf_compile.py --mode reduce-overhead --out part2.json
    python3 measure_hf_compile.py --merge part1.json part2.json --out compile.json
    python3 measure_hf_compile.py --dry-run          # the case list; needs no torch

Ground truth for issue 11 (real frameworks, compiled): measure_hf.py's LlamaForCausalLM (sdpa,
random bf16 weights) wrapped in torch.compile(model, mode=M): prefill b1 s2048 (DynamicCache),
decode b1/b8/b32 at kv 512 and 2048 with a StaticCache (measure_hf.py's decode setup: cache filled
with randn through cache.update, reset and refilled before every step outside the timed region),
and (default mode only) one training step b1 s2048 (loss.backward through the compiled forward).
One mode per process, so that one mode's compiled code, CUDA-graph pools and CUPTI state do not
touch the other's; --merge joins the parts. Per case: compile_s (the first two calls), then
measure_hf.time_eager (device/host/wall ms), then (after every case of the mode is timed) a
profile of one step: kernels (name, count, device us) and top CPU ops; dynamo's recompile and
graph-break counters are recorded. METHOD_TEXT is the method (also meta.method and HF.md).
"""

import argparse
import gc
import json
import os
import re
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import measure_hf as mh  # noqa: E402
from ridgeline_measure.harness import elapsed_s, err_text, sanitize, utc_now, write_atomic  # noqa: E402
from ridgeline_measure.environment import nvidia_smi  # noqa: E402
from ridgeline_measure.hf_run import hf_run_meta, start_doc_writer, warm_gpu  # noqa: E402

torch = mh.torch

METHOD_TEXT = (
    "Model: measure_hf.py's transformers LlamaForCausalLM, Llama-3-8B shape, 8 layers, sdpa, random bf16 "
    "weights built on the GPU (see h200-sxm-hf-2026-12-01.json's method). compiled = torch.compile(model, "
    "mode=M) with M 'default' or 'reduce-overhead' (Inductor CUDA graphs), one mode per process "
    "(torch._dynamo.config.cache_size_limit and recompile_limit raised to 64 so shape changes "
    "recompile instead of falling back to eager). Cases in priority order: decode b1 and b8 at kv 2048, "
    "prefill, (default mode) the training step, decode b32 kv 2048, decode b1/b8/b32 kv 512 "
    "(StaticCache max_cache_len kv+16, filled with randn through cache.update; before every "
    "step, outside the timed region, reset and refilled to kv so each timed step is the step at "
    "position kv: cache_position=[kv], position_ids=kv); prefill b1 s2048 (the model's DynamicCache, "
    "use_cache=True); the training step b1 s2048 (model.train(), loss = "
    "compiled(ids, labels=ids, use_cache=False).loss, loss.backward(), grads set to None before each "
    "step outside timing). Inference under torch.inference_mode, logits_to_keep=1. compile_s: "
    "wall time of the first two calls of the case (compilation, recompilation for a new shape, "
    "CUDA-graph recording), synchronized. Then measure_hf.time_eager: 3 warm-up steps, >= 10 "
    "steps (~1 s), each synchronized, CUDA events (device_ms), perf_counter around the call "
    "(host_ms) and call + synchronize (wall_ms). After every case of the mode is timed, each "
    "case's kept state is profiled (torch.profiler CPU + CUDA, one warm step then one step): "
    "kernels with count and device us, the 40 most frequent CPU ops. Second run (--extra): decode b1/b2/b4/"
    "b16/b64 at kv 4096 and b1/b2/b8 at kv 8192, prefill b2 s1024, in each mode. Third run (--third, 2026-12-02): decode b8/b32 kv 4096, b4/b16 kv 8192, "
    "b32 kv 1024, b48 kv 2048, b8/b32/b48 kv 3072, b12 kv 6144, b24 kv 8192. Fourth run (--fourth, 2026-12-06, in each mode, every record held out): decode b1 kv 1024, b2 kv 512/2048, b4 kv 512/2048, b8 kv 1024, b16 kv 1024/2048, b24 kv 4096, b48 kv 1024, b1 kv 6144, b32 kv 6144; each profile also records kernel_gaps (the idle time between consecutive kernels of the profiled step, by the next kernel's family, and the longest gaps). torch._dynamo.utils.counters "
    "(stats, graph_break, recompiles) read after each case. Split: split_of(id), 30% holdout.")

LLAMA = mh.LLAMA


# Decode-only runs after the first two: the batch x cache shapes each timed.
DECODE_RUNS = {
    # the third run (2026-12-02): more batch x cache shapes for Inductor's fused repeat_kv
    "third": [(8, 4096), (32, 4096), (4, 8192), (16, 8192), (32, 1024), (48, 2048), (8, 3072), (12, 6144),
              (24, 8192), (32, 3072), (48, 3072)],
    # the fourth run (2026-12-06): shapes no run had, each profile with its kernel gaps; all held out
    "fourth": [(1, 1024), (2, 512), (2, 2048), (4, 512), (4, 2048), (8, 1024), (16, 1024), (16, 2048),
               (24, 4096), (48, 1024), (1, 6144), (32, 6144)],
}


def cases_for(mode, smoke=False, extra=False, third=False, fourth=False):
    L = 1 if smoke else 8
    out = []
    tag = "compile" if mode == "default" else "compile-ro"
    run = "third" if third else "fourth" if fourth else None
    if run:
        for b, kv in DECODE_RUNS[run]:
            out.append(mh.wcase(model=LLAMA, layers=L, phase="decode", batch=b, kv_len=kv, cache="static",
                                launch=tag))
        for c in out:
            c["compile_mode"] = mode
        return out
    if extra:  # the second run (2026-12-01): long caches (kv 4096 and 8192), the same method
        for b, kv in [(1, 4096), (2, 4096), (4, 4096), (16, 4096), (64, 4096), (1, 8192), (2, 8192), (8, 8192)]:
            out.append(mh.wcase(model=LLAMA, layers=L, phase="decode", batch=b, kv_len=kv, cache="static",
                                launch=tag))
        out.append(mh.wcase(model=LLAMA, layers=L, phase="prefill", batch=2, seq=1024, cache="dynamic", launch=tag))
        for c in out:
            c["compile_mode"] = mode
        return out
    decode = [(1, 512)] if smoke else [(1, 2048), (8, 2048)]
    for b, kv in decode:
        out.append(mh.wcase(model=LLAMA, layers=L, phase="decode", batch=b, kv_len=kv, cache="static", launch=tag))
    if not smoke:  # the order is the priority: a case that would start past the budget is skipped
        out.append(mh.wcase(model=LLAMA, layers=L, phase="prefill", batch=1, seq=2048, cache="dynamic", launch=tag))
        if mode == "default":
            out.append(mh.wcase(model=LLAMA, layers=L, phase="train", batch=1, seq=2048, precision="bf16",
                                ckpt="nockpt", launch=tag))
        for b, kv in [(32, 2048), (1, 512), (8, 512), (32, 512)]:
            out.append(mh.wcase(model=LLAMA, layers=L, phase="decode", batch=b, kv_len=kv, cache="static",
                                launch=tag))
    for c in out:
        c["compile_mode"] = mode
    return out


def log(msg):
    print(f"[{elapsed_s():7.1f}s] {msg}", flush=True)


def dynamo_counters():
    try:
        from torch._dynamo.utils import counters
        return {k: dict(v) for k, v in counters.items() if k in ("stats", "graph_break", "recompiles", "inductor")
                and v}
    except Exception as exc:  # noqa: BLE001
        return {"error": err_text(exc)}


def setup(case, mode):
    """measure_hf.setup_workload with the compiled model in place of the eager one."""
    key = ("compiled", case["model"], case["layers"])
    if key not in mh._MODELS:  # noqa: SLF001
        model, _, _ = mh.get_model(case["model"], case["layers"])
        mh._MODELS[key] = (torch.compile(model, mode=mode), None, None)  # noqa: SLF001
    c = dict(case)
    c["launch"] = "compile"  # measure_hf.setup_workload then uses mh._MODELS[key]
    if c["phase"] == "train":
        model, _, _ = mh.get_model(case["model"], case["layers"])
        compiled = mh._MODELS[key][0]  # noqa: SLF001
        model.train()
        model.gradient_checkpointing_disable()
        gen = torch.Generator(device="cuda").manual_seed(11)
        ids = torch.randint(0, model.config.vocab_size, (c["batch"], c["seq"]), device="cuda", generator=gen)

        def pre():
            for p in model.parameters():
                p.grad = None

        def step():
            compiled(input_ids=ids, labels=ids, use_cache=False).loss.backward()

        def cleanup():
            pre()
            model.eval()
        return {"step": step, "pre": pre, "extra": {}, "cleanup": cleanup}
    return mh.setup_workload(c)


def time_case(case, rec, mode, states):
    t = time.perf_counter()
    try:
        st = setup(case, mode)
        t0 = time.perf_counter()
        for _ in range(2):
            if st.get("pre"):
                st["pre"]()
            st["step"]()
        torch.cuda.synchronize()
        rec["compile_s"] = round(time.perf_counter() - t0, 2)
        rec.update(mh.time_eager(st["step"], st.get("pre")))
        rec.update({k: v for k, v in st["extra"].items() if isinstance(v, (int, float, str, bool))})
        rec["peak_mem_bytes"] = torch.cuda.max_memory_allocated()
        rec["dynamo_counters_after"] = dynamo_counters()
        if case["phase"] == "train":
            st["cleanup"]()
        states[case["id"]] = st
    except Exception as exc:  # noqa: BLE001
        rec["error"] = err_text(exc)
        rec["traceback"] = traceback.format_exc()[-2500:]
        log(f"ERROR {case['id']}: {rec['error'][:300]}")
    rec["wall_s"] = round(time.perf_counter() - t, 2)
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()


def profile_case(case, rec, st):
    try:
        if case["phase"] == "train":
            mh.get_model(case["model"], case["layers"])[0].train()
        if st.get("pre"):
            st["pre"]()
        st["step"]()
        p = mh.profile_step(st["step"], pre=st.get("pre"))
        p["cpu_ops"] = p.get("cpu_ops", [])[:40]
        rec.update(p)
        rec["kernels_per_layer_approx"] = p["kernel_count"] / case["layers"]
        if case["phase"] == "train":
            st["cleanup"]()
    except Exception as exc:  # noqa: BLE001
        rec["profile_error"] = err_text(exc)
        log(f"PROFILE ERROR {case['id']}: {rec['profile_error'][:300]}")


def merge(paths, out):
    docs = [json.load(open(p)) for p in paths]
    meta = {"parts": [d["meta"] for d in docs], "merged_utc": utc_now(), "method": METHOD_TEXT}
    for key in ("device_name", "compute_capability", "sm_count", "driver_version", "versions", "backend_flags"):
        meta[key] = docs[0]["meta"].get(key)
    meta["utc_start"] = docs[0]["meta"].get("utc_start")
    meta["utc_end"] = docs[-1]["meta"].get("utc_end") or docs[-1]["meta"].get("utc_written")
    meta["nvidia_smi_start"] = docs[0]["meta"].get("nvidia_smi_start")
    meta["nvidia_smi_end"] = docs[-1]["meta"].get("nvidia_smi_end")
    records = [r for d in docs for r in d["records"]]
    meta["splits"] = {r["id"]: r["split"] for r in records}
    write_atomic(out, json.dumps(sanitize({"meta": meta, "records": records}), indent=1))
    print(f"merged {len(records)} records into {out}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="default", choices=("default", "reduce-overhead"))
    ap.add_argument("--out", default="compile.json")
    ap.add_argument("--budget-s", type=float, default=200)
    ap.add_argument("--hard-limit-s", type=float, default=None)
    ap.add_argument("--only", default=None)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--merge", nargs="+", default=None)
    ap.add_argument("--extra", action="store_true", help="only the second run's shapes (cases_for extra)")
    ap.add_argument("--third", action="store_true", help="only the third run's shapes (cases_for third)")
    ap.add_argument("--fourth", action="store_true", help="only the fourth run's shapes (cases_for fourth)")
    args = ap.parse_args()
    if args.merge:
        merge(args.merge, args.out)
        return
    cases = cases_for(args.mode, args.smoke, args.extra, args.third, args.fourth)
    if args.only:
        cases = [c for c in cases if re.search(args.only, c["id"])]
    if args.dry_run:
        for mode in ("default", "reduce-overhead"):
            for c in cases_for(mode, args.smoke, args.extra, args.third, args.fourth):
                print(c["id"], c["split"])
        return
    import torch._dynamo
    for name in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                 "accumulated_recompile_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, max(64, getattr(torch._dynamo.config, name)))
    t_start = elapsed_s()
    meta = hf_run_meta(METHOD_TEXT, args)
    meta["compile_mode"] = args.mode
    meta["skipped_ids"] = []
    meta["splits"] = {c["id"]: c["split"] for c in cases}
    recs = {c["id"]: dict(c) for c in cases}
    doc = {"meta": meta, "records": list(recs.values())}
    write = start_doc_writer(args.out, doc, t_start + (args.hard_limit_s or args.budget_s + 45))
    warm_gpu()
    meta["nvidia_smi_after_warmup"] = nvidia_smi()
    states = {}
    for c in cases:
        if elapsed_s() - t_start > args.budget_s * 0.8:
            meta["skipped_ids"].append(c["id"])
            recs[c["id"]].update({"skipped": True, "error": "not run: budget"})
            continue
        log(f"time {c['id']}")
        time_case(c, recs[c["id"]], args.mode, states)
        r = recs[c["id"]]
        log(f"   -> compile {r.get('compile_s')} s, dev {r.get('device_median_ms')} host {r.get('host_median_ms')} "
            f"{r.get('error', '')[:200]}")
        write()
    meta["nvidia_smi_after_timing"] = nvidia_smi()
    for c in cases:
        if c["id"] in states and elapsed_s() - t_start < args.budget_s:
            log(f"profile {c['id']}")
            profile_case(c, recs[c["id"]], states[c["id"]])
            write()
    meta["dynamo_counters_end"] = dynamo_counters()
    meta["nvidia_smi_end"] = nvidia_smi()
    meta["utc_end"] = utc_now()
    write()
    log("done")


if __name__ == "__main__":
    main()
