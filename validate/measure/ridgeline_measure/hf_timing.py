"""How measure_hf.py and the scripts over it (measure_hf_compile.py, measure_hf_families.py,
measure_hf_cb.py) time and profile a step: eager steps with CUDA events and host clocks
(time_eager), CUDA-graph capture and replay (capture, time_replays), torch.profiler kernels and
CPU ops of one step (profile_step), and their logging, clocks and nvidia-smi snapshots. The
formats (timestamps "YYYY-MM-DDTHH:MM:SSZ", error texts, summaries) are those of the HF data files.
"""

import gc
import gzip
import math
import os
import subprocess
import time

from .harness import T0, percentile
from .optional import torch
from .profiling import API_CALL_NAME, _is_kernel_event


def log(msg):
    print(f"[{time.monotonic() - T0:7.1f}s] {msg}", flush=True)


def utc_now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def pct(vals, q):
    return percentile(sorted(vals), q)


def summary(vals, unit="ms"):
    return {f"median_{unit}": pct(vals, 50), f"p10_{unit}": pct(vals, 10), f"p90_{unit}": pct(vals, 90),
            f"min_{unit}": min(vals), "n": len(vals)}


def err_text(exc):
    return f"{type(exc).__name__}: {str(exc)[:600]}"


SMI_FIELDS = ("name", "driver_version", "clocks.sm", "clocks.mem", "clocks.max.sm", "power.draw", "power.limit",
              "temperature.gpu")


def nvidia_smi():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(SMI_FIELDS), "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return {"utc": utc_now(), "gpus": [dict(zip(SMI_FIELDS, [v.strip() for v in line.split(",")]))
                                           for line in out.stdout.strip().splitlines()]}
    except Exception as exc:  # noqa: BLE001
        return {"error": err_text(exc)}


is_kernel = _is_kernel_event  # a kernel, memcpy or memset the GPU ran (profiling.py)


def is_cpu_op(evt):
    dt = getattr(evt, "device_type", None)
    return dt is not None and str(dt).endswith("CPU") and not API_CALL_NAME.match(evt.name)


def profile_step(step, pre=None, trace_path=None, calls=1):
    """Kernels and CPU ops of `calls` steps under torch.profiler."""
    from torch.profiler import ProfilerActivity, profile
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    assert pre is None or calls == 1
    if pre:  # outside the profiled region: its kernels are not the step's
        pre()
    torch.cuda.synchronize()
    t = time.perf_counter()
    with profile(activities=acts, record_shapes=trace_path is not None) as prof:
        for _ in range(calls):
            step()
        torch.cuda.synchronize()
    wall = time.perf_counter() - t
    kern, ops = {}, {}
    first, last = None, None
    n_k = 0
    spans = []  # (start, end, name) of every kernel, for the gaps between them
    for evt in prof.events():
        if is_kernel(evt):
            n_k += 1
            spans.append((evt.time_range.start, evt.time_range.end, evt.name))
            name = evt.name[:200]
            k = kern.setdefault(name, [0, 0.0])
            k[0] += 1
            k[1] += evt.time_range.elapsed_us()
            first = evt.time_range.start if first is None else min(first, evt.time_range.start)
            last = evt.time_range.end if last is None else max(last, evt.time_range.end)
        elif is_cpu_op(evt):
            o = ops.setdefault(evt.name[:120], [0, 0.0, 0.0])
            o[0] += 1
            o[1] += evt.self_cpu_time_total
            o[2] += evt.cpu_time_total
    res = {"kernel_count": math.ceil(n_k / calls), "kernel_total_us": sum(v[1] for v in kern.values()) / calls,
           "kernel_span_us": (last - first) / calls if first is not None else None,
           "kernels_distinct": len(kern), "profile_wall_s": round(wall, 3), "profiled_steps": calls,
           "kernels": [{"name": n, "count": v[0] / calls, "total_us": round(v[1] / calls, 3)}
                       for n, v in sorted(kern.items(), key=lambda kv: -kv[1][1])],
           "cpu_ops": [{"name": n, "count": v[0] / calls, "self_cpu_us": round(v[1] / calls, 2),
                        "cpu_total_us": round(v[2] / calls, 2)}
                       for n, v in sorted(ops.items(), key=lambda kv: -kv[1][0])]}
    if calls == 1 and len(spans) > 1:
        res["kernel_gaps"] = kernel_gaps(spans)
    if trace_path:
        raw = trace_path[:-3] if trace_path.endswith(".gz") else trace_path
        prof.export_chrome_trace(raw)
        if trace_path.endswith(".gz"):
            with open(raw, "rb") as src, gzip.open(trace_path, "wb", compresslevel=6) as dst:
                dst.write(src.read())
            os.remove(raw)
        res["trace_file"] = os.path.basename(trace_path)
    return res


def kernel_family(name):
    """A kernel's family by its name, for the gap table: cuBLAS/nvjet GEMMs, cuDNN/flash attention,
    Triton (Inductor's fused kernels), memcpy/memset, other (ATen)."""
    n = name.lower()
    if n.startswith("memcpy") or n.startswith("memset"):
        return "memory"
    if "nvjet" in n or "gemm" in n or "cutlass" in n or "cublas" in n:
        return "gemm"
    if "attention" in n and "triton" not in n or "fmha" in n or "flash" in n or "cudnn" in n:
        return "attention"
    if n.startswith("triton"):
        return "triton"
    return "other"


def kernel_gaps(spans):
    """The idle time between consecutive kernels of one profiled step (start of the next minus end
    of the previous, in start order; negative: they overlapped): every gap's summary, the gaps
    before each kernel family (sum, count, median) and the five longest gaps with their
    neighbours, so that a CUDA graph's per-kernel gap can be told from host stalls."""
    spans = sorted(spans)
    gaps = [(spans[i + 1][0] - spans[i][1], spans[i][2], spans[i + 1][2]) for i in range(len(spans) - 1)]
    vals = sorted(g for g, _, _ in gaps)
    by = {}
    for g, _, nxt in gaps:
        by.setdefault(kernel_family(nxt), []).append(g)
    fam = {k: {"count": len(v), "sum_us": round(sum(v), 2), "median_us": round(sorted(v)[len(v) // 2], 3)}
           for k, v in sorted(by.items())}
    longest = sorted(gaps, key=lambda t: -t[0])[:5]
    return {"count": len(vals), "sum_us": round(sum(vals), 2), "median_us": round(vals[len(vals) // 2], 3),
            "p10_us": round(vals[len(vals) // 10], 3), "p90_us": round(vals[(9 * len(vals)) // 10], 3),
            "before_family": fam,
            "longest": [{"gap_us": round(g, 2), "after": a[:80], "before": b[:80]} for g, a, b in longest]}


def time_eager(step, pre=None, warm=3, min_steps=10, max_s=1.0, max_steps=100):
    for _ in range(warm):
        if pre:
            pre()
        step()
    torch.cuda.synchronize()
    dev, host, wall = [], [], []
    gc.disable()
    try:
        t_start = time.perf_counter()
        while len(dev) < max_steps and (len(dev) < min_steps or time.perf_counter() - t_start < max_s):
            if pre:
                pre()
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            e0.record()
            step()
            e1.record()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            dev.append(e0.elapsed_time(e1))
            host.append((t1 - t0) * 1e3)
            wall.append((t2 - t0) * 1e3)
    finally:
        gc.enable()
    out = {"device_" + k: v for k, v in summary(dev).items()}
    out.update({"host_" + k: v for k, v in summary(host).items() if k != "n"})
    out.update({"wall_" + k: v for k, v in summary(wall).items() if k != "n"})
    out["steps_timed"] = len(dev)
    return out


def capture(step, warm=3, pre=None):
    # Warm-up on the default stream, synchronized after every step: with the warm-up on a side
    # stream (the usual recipe) the StaticCache decode hit index_copy_ device asserts at random
    # (b8/b32 kv8192, 2026-12-01 runs), which kill the CUDA context.
    for _ in range(warm):
        if pre:
            pre()
        step()
        torch.cuda.synchronize()
    if pre:
        pre()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    t = time.perf_counter()
    with torch.cuda.graph(g):
        step()
    torch.cuda.synchronize()
    return g, time.perf_counter() - t


def time_replays(g, pre=None, divide=1, min_reps=10, max_s=1.0, max_reps=100):
    for _ in range(2):
        if pre:
            pre()
        g.replay()
    torch.cuda.synchronize()
    dev, host = [], []
    t_start = time.perf_counter()
    while len(dev) < max_reps and (len(dev) < min_reps or time.perf_counter() - t_start < max_s):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if pre:
            pre()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        e0.record()
        g.replay()
        e1.record()
        host.append((time.perf_counter() - t0) * 1e3)
        torch.cuda.synchronize()
        dev.append(e0.elapsed_time(e1) / divide)
    out = {"device_" + k: v for k, v in summary(dev).items()}
    out.update({"host_" + k: v for k, v in summary(host).items() if k != "n"})
    out["steps_timed"] = len(dev)
    return out
