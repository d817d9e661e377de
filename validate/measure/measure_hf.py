#!/usr/bin/env python3
"""Time and profile REAL Hugging Face transformers models (and single PyTorch kernels) on one GPU.

    python3 measure_hf.py --out hf.json --kernels-out hf-kernels.json --trace-dir DIR [--budget-s 420]
    python3 measure_hf.py --dry-run            # prints the case list, needs no torch

Ground truth for issue 11 ("Real frameworks"): what transformers' own model classes
(LlamaForCausalLM, MixtralForCausalLM, Qwen2MoeForCausalLM; attn_implementation="sdpa",
random bf16 weights built on the GPU from a config, nothing downloaded) cost per step and which
kernels / PyTorch ops they launch: prefill, decode (DynamicCache and StaticCache, eager; StaticCache
also in a CUDA graph), generate(), training steps (bf16 parameters, fp32 parameters under autocast,
with and without gradient checkpointing), AdamW foreach / fused steps, torch.compile'd prefill and
decode; plus single kernels by implementation (SDPA backends, ATen norms / softmax, HF's RMSNorm
module) timed by CUDA-graph replay over rotated inputs. METHOD_TEXT is the exact method (also in
meta.method and validate/measure/HF.md). Pass 1 times everything; pass 2 (after ALL timings,
because a profiler session leaves CUPTI attached and slows later launches) profiles one step per
case. Every case is in try/except; no case starts after its budget share; a watchdog writes the
output and exits at --hard-limit-s; outputs are rewritten after every case.
"""

import argparse
import gc
import json
import os
import re
import sys
import threading
import time
import traceback

T0 = time.monotonic()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ridgeline_measure.harness import sanitize  # noqa: E402  (JSON-safe values, shared)
from ridgeline_measure.optional import torch  # noqa: E402  (None without torch: --dry-run, --help)
# The harness and steps live in the package; the names stay importable from here (measure_hf_compile,
# measure_hf_families and hf_families_models use mh.time_eager, mh.get_model, mh._MODELS, ...).
from ridgeline_measure.hf_cases import (GRAPH_ELEMS_LIMIT, LLAMA, TRACE_IDS, extra_kernel_cases, generate_check_cases, mask_grid_cases, row_check_cases, row_grid_cases,  # noqa: E402,F401
                                        kernel_cases, wcase, workload_cases)
from ridgeline_measure.hf_models import (_MODELS, get_model, make_dynamic_cache,  # noqa: E402,F401
                                         make_static_cache)
from ridgeline_measure.hf_ops import l2_bytes, setup_op, time_op_graph  # noqa: E402
from ridgeline_measure.hf_timing import (capture, err_text, log, nvidia_smi, profile_step,  # noqa: E402
                                         time_eager, time_replays, utc_now)
from ridgeline_measure.hf_run import warm_gpu  # noqa: E402
from ridgeline_measure.hf_workloads import setup_workload, time_generate  # noqa: E402

METHOD_TEXT = (
    "Models: transformers' own LlamaForCausalLM (Llama-3-8B shape: hidden 4096, 32 heads, 8 KV "
    "heads, head_dim 128, intermediate 14336, vocab 128256, untied embeddings; 8 or 32 layers), "
    "MixtralForCausalLM (Mixtral-8x7B shape, vocab 32000, 8 experts top-2; 2 layers), "
    "Qwen2MoeForCausalLM (Qwen1.5-MoE-A2.7B shape: hidden 2048, 16 heads, 60 experts top-4, "
    "moe_intermediate 1408, shared expert 5632, vocab 151936; 2 layers); attn_implementation=sdpa; "
    "built under torch.device('cuda') with the default dtype set to bf16 (fp32 for the fp32-"
    "parameter training model), random weights from transformers' own init; inputs random token "
    "ids. Inference under torch.inference_mode with logits_to_keep=1. Prefill: model(ids) with "
    "use_cache=True (dynamic: the model creates its DynamicCache; static: a fresh-position "
    "StaticCache of max_cache_len seq+64 passed in, cache_position 0..seq-1). Decode: the cache "
    "is filled to kv_len with randn K/V through cache.update (no prefill run), then each step is "
    "one token per sequence at position kv_len (position_ids, cache_position = kv_len); "
    "DynamicCache is cropped back to kv_len after each step outside the timed region (so every "
    "timed step concatenates onto kv_len); StaticCache has max_cache_len kv_len+16 and attends "
    "over all of it with a mask. Eager timing: 3 warm-up steps, then N >= 10 steps (more up to "
    "~1 s), each step preceded by torch.cuda.synchronize(), bracketed by two CUDA events "
    "(device_ms: median/p10/p90) and by perf_counter around the Python call alone (host_ms: the "
    "CPU time to issue the step, median/p10/p90) and around call + synchronize (wall_ms). Python "
    "GC paused while timing. Graph mode (StaticCache decode): 3 warm-up steps on a side stream, "
    "one step captured with torch.cuda.graph, 2 warm replays, N replays timed with events. "
    "generate(): greedy, min_new_tokens = max_new_tokens = 64, eos disabled, DynamicCache, "
    "prompt 512; a forward hook records a CUDA event at the end of every forward: ttft = start "
    "event to first forward's end, per_token = (last - first) / (forwards - 1), total = start to "
    "end event; host_ms = perf_counter around the call; median of >= 3 calls. Training: "
    "model.train(), loss = model(ids, labels=ids, use_cache=False).loss (transformers' shifted "
    "cross-entropy), loss.backward(); grads set to None before each step (outside timing); "
    "bf16: bf16 parameters; fp32amp: fp32 parameters with the forward under "
    "torch.autocast('cuda', bfloat16); ckpt: model.gradient_checkpointing_enable(). AdamW: "
    "torch.optim.AdamW(lr 1e-6, weight_decay 0.01, foreach=True or fused=True) over the grads "
    "of one backward, opt.step() timed alone (2 warm-up steps). torch.compile(model) default "
    "mode: the first calls (compilation) timed as compile_s, then timed like eager. Profile pass "
    "(after all timings): per case the same setup, one warm step, then torch.profiler (CPU + "
    "CUDA activities) over one step (one replay in graph mode): kernels (memcpy/memset "
    "included, names cut to 200 chars) with count and total device us, and the CPU-side "
    "PyTorch ops with count, summed self CPU us and summed total CPU us. A few cases also "
    "export a Kineto trace (export_chrome_trace, record_shapes=True, gzip). Single kernels: "
    "S input sets (randn, S*bytes >= 3*L2, S <= 32), the op called L times per CUDA graph "
    "cycling through the sets (L a multiple of S, ~10 ms a replay, <= 400), 2 warm replays, "
    "R = 10..30 replays timed with events: measured_us = median replay / L (p10/p90 likewise); "
    "SDPA under torch.nn.attention.sdpa_kernel(<one backend>), enable_gqa=True (if a backend "
    "refuses GQA, K/V expanded to all heads first: 'gqa': 'expanded'); kernels from a profile "
    "of 2 eager calls. Split: workload records split_of(id); single-kernel records "
    "split_of(id of the shape without the implementation, as op_grid.py names it), so every "
    "implementation of a shape falls on the same side as that shape in the op grid.")

# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

class Out:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.meta = {}
        self.work = {}
        self.ops = {}

    def write(self):
        with self.lock:
            self.meta["wall_s"] = round(time.monotonic() - T0, 1)
            self.meta["utc_written"] = utc_now()
            for path, recs in ((self.args.out, self.work), (self.args.kernels_out, self.ops)):
                tmp = path + ".tmp"
                with open(tmp, "w") as f:
                    json.dump(sanitize({"meta": self.meta, "records": list(recs.values())}), f, indent=1)
                os.replace(tmp, path)


def run_timing(case, out, args):
    rec = out.work[case["id"]] if case["kind"] == "workload" else out.ops[case["id"]]
    t = time.perf_counter()
    if (case.get("launch") == "graph" and case.get("cache") == "static"
            and case["batch"] * 8 * (case["kv_len"] + 16) * 128 > GRAPH_ELEMS_LIMIT):
        rec["error"] = ("not run: capturing the StaticCache decode of b32 kv8192 (K of one layer > 2^28 "
                        "elements) hit a device-side assert (index_copy_ index out of bounds) in the side-"
                        "stream warm-up of the first full run on 2026-12-01, which kills the CUDA context; "
                        "larger caches are skipped in graph mode")
        rec["skipped"] = True
        return
    try:
        if case["kind"] == "op":
            run, sets, extra = setup_op(case)
            rec.update(extra)
            rec.update(time_op_graph(run, sets))
            del run, sets
        else:
            st = setup_workload(case)
            rec.update(st["extra"])
            if case["phase"] == "generate":
                st["extra"]["prompt_len"] = case["seq"]
                rec.update(time_generate(st))
            elif case["launch"] == "compile":
                t0 = time.perf_counter()
                for _ in range(2):
                    st["step"]()
                torch.cuda.synchronize()
                rec["compile_s"] = round(time.perf_counter() - t0, 2)
                rec.update(time_eager(st["step"], st.get("pre")))
            elif st.get("graph"):
                g, cap_s = capture(st["step"], pre=st.get("pre"))
                rec["capture_s"] = round(cap_s, 3)
                rec.update(time_replays(g, pre=st.get("pre")))
                del g
            else:
                rec.update(time_eager(st["step"], st.get("pre")))
            rec["peak_mem_bytes"] = torch.cuda.max_memory_allocated()
            if st.get("cache") is not None:
                try:  # diagnostic: does the model honour cache_position, or count the cache?
                    rec["cache_seq_len_after_timing"] = int(st["cache"].get_seq_length())
                except Exception as exc:  # noqa: BLE001
                    rec["cache_seq_len_error"] = err_text(exc)
            if st.get("cleanup"):
                st["cleanup"]()
            del st
    except Exception as exc:  # noqa: BLE001
        rec["error"] = err_text(exc)
        rec["traceback"] = traceback.format_exc()[-2000:]
        log(f"ERROR {case['id']}: {rec['error']}")
    rec["wall_s"] = round(time.perf_counter() - t, 2)
    gc.collect()
    cuda_ok_or_exit(out)
    torch.cuda.reset_peak_memory_stats()


def cuda_ok_or_exit(out):
    """A device-side assert kills the context: write what we have and stop."""
    try:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    except Exception as exc:  # noqa: BLE001
        log(f"CUDA context lost ({err_text(exc)}): writing and exiting")
        out.meta["cuda_context_lost"] = err_text(exc)
        out.write()
        os._exit(4)


def run_profile(case, out, args):
    rec = out.work[case["id"]] if case["kind"] == "workload" else out.ops[case["id"]]
    if "error" in rec:
        return
    try:
        if case["kind"] == "op":
            run, sets, _ = setup_op(case)
            with torch.inference_mode():
                run(sets[0])
                p = profile_step(lambda: run(sets[0]), calls=2)
            rec["kernels"] = [k["name"] for k in p["kernels"]]
            rec["kernels_per_call"] = p["kernel_count"]
            rec["kernel_detail"] = p["kernels"]
            rec["cpu_ops"] = p["cpu_ops"]
            return
        st = setup_workload(case)
        trace = None
        if case["id"] in TRACE_IDS and args.trace_dir:
            trace = os.path.join(args.trace_dir, case["id"] + ".json.gz")
        if case["phase"] == "generate":
            st["extra"]["prompt_len"] = case["seq"]
            st["step"]()
            p = profile_step(st["step"], trace_path=trace)
        elif st.get("graph"):
            g, _ = capture(st["step"], pre=st.get("pre"))
            st["pre"]()
            g.replay()
            p = profile_step(g.replay, pre=st.get("pre"))
            p["profile_source"] = "graph_replay"
            if p["kernel_count"] == 0:
                p = profile_step(st["step"], pre=st.get("pre"))
                p["profile_source"] = "eager_step (replay showed no kernels)"
            del g
        else:
            if st.get("pre"):
                st["pre"]()
            st["step"]()
            p = profile_step(st["step"], pre=st.get("pre"), trace_path=trace)
        rec.update(p)
        if case.get("layers"):
            rec["kernels_per_layer_approx"] = p["kernel_count"] / case["layers"]
        if st.get("cleanup"):
            st["cleanup"]()
        del st
    except Exception as exc:  # noqa: BLE001
        rec["profile_error"] = err_text(exc)
        log(f"PROFILE ERROR {case['id']}: {rec['profile_error']}")
    finally:
        gc.collect()
        cuda_ok_or_exit(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="hf.json")
    ap.add_argument("--kernels-out", default="hf-kernels.json")
    ap.add_argument("--trace-dir", default=None)
    ap.add_argument("--budget-s", type=float, default=420)
    ap.add_argument("--hard-limit-s", type=float, default=None)
    ap.add_argument("--only", default=None)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--set", default="all",
                    choices=("all", "extra-kernels", "row-grid", "row-check", "mask-grid", "generate-check"),
                    help="extra-kernels: only the second run's single kernels (hf_cases.extra_kernel_cases); "
                         "row-grid: ATen's norms and softmax over rows x cols x dtype (hf_cases.row_grid_cases); "
                         "row-check: other shapes, all held out (hf_cases.row_check_cases); "
                         "mask-grid: SDPA with transformers' window mask, softmax off powers of two (hf_cases.mask_grid_cases); "
                         "generate-check: generate() at new shapes, all held out (hf_cases.generate_check_cases)")
    args = ap.parse_args()
    work = {"all": lambda: workload_cases(args.smoke),
            "generate-check": generate_check_cases}.get(args.set, list)()
    ops = {"all": lambda: kernel_cases(args.smoke), "extra-kernels": extra_kernel_cases,
           "row-grid": row_grid_cases, "row-check": row_check_cases,
           "mask-grid": mask_grid_cases, "generate-check": list}[args.set]()
    if args.only:
        work = [c for c in work if re.search(args.only, c["id"])]
        ops = [c for c in ops if re.search(args.only, c["id"])]
    # run order: single kernels, 8-layer llama, MoE, 32-layer, compile (last: slowest to start)
    def order(c):
        return (c.get("launch") == "compile", c.get("layers") == 32)
    work.sort(key=order)
    cases = ops + work
    if args.dry_run:
        for c in cases:
            print(c["id"], c["split"])
        print(f"{len(ops)} single-kernel cases, {len(work)} workload cases, "
              f"{sum(c['split'] == 'holdout' for c in cases)} holdout", file=sys.stderr)
        return
    hard = args.hard_limit_s or args.budget_s + 90
    out = Out(args)
    import transformers
    out.meta.update({
        "utc_start": utc_now(), "device_name": torch.cuda.get_device_name(0),
        "compute_capability": list(torch.cuda.get_device_capability(0)),
        "sm_count": torch.cuda.get_device_properties(0).multi_processor_count, "l2_cache_bytes": l2_bytes(),
        "versions": {"torch": torch.__version__, "cuda": torch.version.cuda,
                     "cudnn": torch.backends.cudnn.version(), "transformers": transformers.__version__,
                     "python": sys.version.split()[0]},
        "nvidia_smi_start": nvidia_smi(), "method": METHOD_TEXT, "config": vars(args), "skipped_ids": [],
        "splits": {c["id"]: c["split"] for c in cases}, "trace_ids": list(TRACE_IDS)})
    try:
        import triton
        out.meta["versions"]["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        pass
    for c in work:
        out.work[c["id"]] = dict(c)
    for c in ops:
        out.ops[c["id"]] = dict(c)

    def watchdog():
        while time.monotonic() - T0 < hard:
            time.sleep(1)
        log("WATCHDOG: hard limit, writing and exiting")
        out.meta["watchdog_exit"] = True
        out.meta["nvidia_smi_end"] = nvidia_smi()
        out.write()
        os._exit(3)
    threading.Thread(target=watchdog, daemon=True).start()
    warm_gpu()  # warm the clocks a little
    out.meta["nvidia_smi_after_warmup"] = nvidia_smi()
    B = args.budget_s
    group_a = [c for c in cases if c.get("launch") not in ("graph", "compile")]
    group_b = [c for c in cases if c.get("launch") == "graph"]
    group_c = [c for c in cases if c.get("launch") == "compile"]
    profiled_skip = []

    def do_time(c, limit):
        if time.monotonic() - T0 > limit:
            out.meta["skipped_ids"].append(c["id"])
            return False
        log(f"time {c['id']}")
        run_timing(c, out, args)
        r = out.work.get(c["id"]) or out.ops.get(c["id"])
        log(f"   -> dev {r.get('device_median_ms', r.get('measured_us'))} host {r.get('host_median_ms')} "
            f"{r.get('error', '')[:150]}")
        out.write()
        return True

    def do_profile(c, limit):
        if time.monotonic() - T0 > limit:
            profiled_skip.append(c["id"])
            return
        log(f"profile {c['id']}")
        run_profile(c, out, args)
        out.write()
    # A: eager cases, all timed before any profiler session (CUPTI slows later launches)
    timed_a = [c for c in group_a if do_time(c, B * 0.48)]
    out.meta["nvidia_smi_after_timing"] = nvidia_smi()
    for c in timed_a:
        do_profile(c, B * 0.75)
    # B: CUDA-graph cases (a replay is one launch: CUPTI's host cost does not enter), time + profile
    for c in group_b:
        if do_time(c, B * 0.85):
            do_profile(c, B * 0.9)
    # C: torch.compile cases last (compilation may run long); their host_ms is measured with the
    # profiler's CUPTI already attached (see meta.order)
    for c in group_c:
        if do_time(c, B * 0.85):
            do_profile(c, B)
    out.meta["order"] = ("A: eager cases timed, then profiled; B: graph cases timed + profiled each; "
                         "C: compile cases timed + profiled each (host_ms after CUPTI attached)")
    out.meta["profile_skipped_ids"] = profiled_skip
    out.meta["nvidia_smi_end"] = nvidia_smi()
    out.meta["utc_end"] = utc_now()
    out.write()
    log("done")


if __name__ == "__main__":
    main()
