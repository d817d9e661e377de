"""measure_models.py's profiling and per-case step: the kernels one step ran
(torch.profiler), summarised by name, and one case measured under its own
guard (OOM and errors recorded, the run goes on).
"""

import collections
import time
import traceback
import warnings

from .optional import torch


from .models_cases import (GIB, GRID, NAME_CHARS, TOP_KERNELS, PredictedOOM, is_oom,
                           predicted_bytes)
from .models_steps import (capture, clear_grads, free_memory, make_optimizer, make_step,
                           phase_context, time_eager, time_graph)
from .profiling import _is_kernel_event, sdpa_backend_guess
from .harness import err_text


# ---------------------------------------------------------------------------
# Profiling
# ---------------------------------------------------------------------------

def profile_kernels(fn):
    """Kernels of one call of fn: [(start_us, name, dur_us)] in launch order.
    torch.profiler, CUDA activity only; one un-recorded warm-up call first
    (schedule warmup=1, active=1) so that the recorded call is complete."""
    from torch.profiler import ProfilerActivity, profile, schedule
    warnings.filterwarnings("ignore", message=".*[Pp]rofiler clears events.*")
    got = {}

    def ready(prof):
        kernels = []
        for evt in prof.events():
            if not _is_kernel_event(evt):
                continue
            tr = evt.time_range
            kernels.append((float(tr.start), evt.name[:NAME_CHARS], float(tr.elapsed_us())))
        kernels.sort(key=lambda k: k[0])
        got["kernels"] = kernels

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA],
                 schedule=schedule(wait=0, warmup=1, active=1, repeat=1),
                 on_trace_ready=ready) as prof:
        for _ in range(2):
            fn()
            torch.cuda.synchronize()
            prof.step()
    if "kernels" not in got:
        raise RuntimeError("the profiler returned no trace")
    return got["kernels"]


def summarize_kernels(kernels):
    by_name = collections.OrderedDict()
    for _, name, dur in kernels:
        entry = by_name.setdefault(name, [0, 0.0])
        entry[0] += 1
        entry[1] += dur
    total = sum(d for _, _, d in kernels)
    top = sorted(by_name.items(), key=lambda kv: -kv[1][1])[:TOP_KERNELS]
    out = {"kernel_count": len(kernels), "kernel_total_us": round(total, 3),
           "kernels_distinct": len(by_name),
           "kernels_top": [{"name": n, "count": c, "total_us": round(t, 3)}
                           for n, (c, t) in top]}
    out["kernels_top_omitted_us"] = round(total - sum(t for _, (_, t) in top), 3)
    if kernels:
        first = kernels[0][0]
        last_end = max(s + d for s, _, d in kernels)
        out["kernel_span_us"] = round(last_end - first, 3)
    guess = sdpa_backend_guess([n for n in by_name if "attention" in n.lower()
                                or "fmha" in n.lower() or "flash" in n.lower()
                                or "cudnn" in n.lower()])
    if guess:
        out["sdpa_backend"] = guess
    return out


def profile_case(case, model, inputs, cfg, rec, traces):
    optimizer = make_optimizer(case, model)
    step, before_capture = make_step(case, model, inputs, optimizer)
    graph = out = None
    try:
        if case["mode"] == "graph":
            sub = {}
            graph, out = capture(step, before_capture, cfg.profile_warmup, sub)
            if graph is None:
                raise RuntimeError("capture failed in the profile pass: "
                                   + sub.get("capture_error", "?"))
            graph.replay()
            kernels = profile_kernels(graph.replay)
            source = "graph replay"
            if not kernels:
                del graph, out
                graph = out = None
                clear_grads(model, inputs)
                free_memory()
                for _ in range(cfg.profile_warmup):
                    step()
                kernels = profile_kernels(step)
                source = "eager step (the graph replay showed no kernels)"
        else:
            for _ in range(cfg.profile_warmup):
                step()
            kernels = profile_kernels(step)
            source = "eager step"
        summary = summarize_kernels(kernels)
        summary["profile_source"] = source
        rec.update(summary)
        if case["id"] in GRID["trace_cases"] or (cfg.trace_re is not None
                                          and cfg.trace_re.search(case["id"])):
            traces[case["id"]] = {
                "source": source, "kernel_count": len(kernels),
                "kernel_total_us": summary["kernel_total_us"],
                "kernels": [[name, round(dur, 3)] for _, name, dur in kernels]}
    finally:
        del graph, out, optimizer
        if case["phase"] == "train":
            clear_grads(model, inputs)


# ---------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------

def time_case(case, model, inputs, cfg, rec):
    optimizer = make_optimizer(case, model)
    step, before_capture = make_step(case, model, inputs, optimizer)
    graph = out = None
    try:
        if case["mode"] == "eager":
            time_eager(step, cfg, rec)
        else:
            graph, out = time_graph(step, before_capture, cfg, rec)
    finally:
        del graph, out, optimizer
        if case["phase"] == "train":
            clear_grads(model, inputs)


def record_routing(case, model, inputs, rec):
    """One more eager step (after the timing, outside it) with hooks on the experts: per
    layer the experts that received tokens and the most tokens one expert got. The inputs
    are fixed, so every timed step (and every graph replay) routed the same way."""
    import moe_block
    recorder = moe_block.RoutingRecorder(model)
    counter, path = moe_block.experts_call_counter(model)
    try:
        step, _ = make_step(case, model, inputs, None)
        with counter:
            step()
        torch.cuda.synchronize()
    finally:
        recorder.remove()
    rec.update(moe_block.routing_summary(recorder.calls))
    rec["routing_source"] = "one eager step after the timing, hooks on the experts' inputs"
    rec["experts_path"] = path
    rec["experts_function_calls"] = counter.count     # per step; None for a local port


def run_case(case, state, cfg, records_by_id, traces, pass_name):
    """Runs one case in pass 'timing' or 'profile'; never raises (except
    Interrupted / KeyboardInterrupt). Returns the record."""
    if pass_name == "timing":
        rec = dict(case)
        records_by_id[case["id"]] = rec
    else:
        rec = records_by_id[case["id"]]
    t_start = time.monotonic()
    failed = False
    try:
        need = predicted_bytes(case)
        rec["predicted_min_bytes"] = need
        if need > cfg.total_mem * cfg.mem_fraction:
            raise PredictedOOM(f"predicted OOM: weights + KV cache {need / GIB:.1f} GiB > "
                              f"{cfg.mem_fraction:.2f} x {cfg.total_mem / GIB:.1f} GiB")
        model, inputs = state.prepare(case)
        rec["inputs_bytes"] = inputs.nbytes()
        with phase_context(case):
            if pass_name == "timing":
                time_case(case, model, inputs, cfg, rec)
                if "moe" in case:
                    record_routing(case, model, inputs, rec)
            else:
                profile_case(case, model, inputs, cfg, rec, traces)
    except PredictedOOM as exc:
        rec["error" if pass_name == "timing" else "profile_error"] = str(exc)
        rec["oom"] = True
        rec["oom_predicted"] = True
    except Exception as exc:
        failed = True
        key = "error" if pass_name == "timing" else "profile_error"
        if is_oom(exc):
            rec[key] = err_text(exc, "OOM: ")
            rec["oom"] = True
        else:
            rec[key] = err_text(exc)
            rec[key.replace("error", "traceback")] = traceback.format_exc(limit=6)[-2000:]
    rec["wall_s" if pass_name == "timing" else "profile_wall_s"] = round(time.monotonic() - t_start, 3)
    if failed or case["mode"] == "graph":
        if failed:
            state.drop_inputs()
        free_memory()
    return rec
