#!/usr/bin/env python3
"""Measure kernel launch costs on one NVIDIA GPU with PyTorch.

    python3 measure_launch.py --out launch.json [--deadline-s 45]

Writes one JSON file (meta + results) and prints a summary table.  For each
"unit" below -- a tiny kernel, or a small PyTorch op or op chain -- it
measures:

  (a) graph:     a CUDA graph whose body calls the unit N times, N in
                 {100, 400, 1600}, replayed (2 warm replays, then >= 20 timed
                 one by one with CUDA events).  Per op = median replay / (N x
                 ops per unit).  A least-squares line through the three
                 (ops, replay time) points gives the marginal cost per op in a
                 graph (slope) and the fixed cost of one replay (intercept).
                 The CPU time of the graph.replay() call itself is also kept.
  (b) eager:     N = 2000 units launched back to back from Python.  CUDA events
                 around the loop give the device-side spacing per op (first to
                 last); time.perf_counter around the loop gives the CPU cost
                 per launch, and around loop + synchronize the total.  Median
                 of 5 repeats.
  (c) roundtrip: one unit + torch.cuda.synchronize(), timed with
                 time.perf_counter, median of 200 (after 20 warm-up); plus a
                 bare synchronize() and a 1-unit graph replay + synchronize.

Units: "add_1elem" (x.add_(1.0) on a 1-element fp32 tensor), "triton_1block"
(a 1-program, 1-warp Triton kernel that adds 1 to one element) and, for a
typical small PyTorch chain on a [1, 4096] bf16 tensor, F.rms_norm, torch.add,
F.silu each alone and "chain_rmsnorm_add_silu" (all three; per op = / 3).
Kernels per unit come from torch.profiler (F.rms_norm may be one kernel or
several, depending on the torch version); per-kernel figures divide by it.

Everything runs under try/except (an error is recorded per unit and
section); no section starts after --deadline-s (default 45 s, counted from
process start), and a watchdog writes what was measured and exits at
--hard-limit-s (default 55 s).  Typical run: 10-20 s on an H100.
"""

import argparse
import contextlib
import gc
import json
import os
import signal
import sys
import time
import traceback


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ridgeline_measure.optional import torch

# The harness shared with measure_ops.py and measure_models.py; importing it needs no GPU.
from ridgeline_measure.environment import cpu_model, nvidia_smi
from ridgeline_measure.harness import (_on_sigterm, elapsed_s, err_text, log, sanitize,
                                       utc_now, write_atomic)
from ridgeline_measure.harness import start_watchdog as harness_watchdog  # noqa: E402
from ridgeline_measure.run import run_guarded, stamp_end  # noqa: E402
from ridgeline_measure.environment import device_meta, smi_start_meta, start_meta  # noqa: E402
# The units and the ways of timing them, in the package beside the harness.
from ridgeline_measure import device  # noqa: E402  (a CPU smoke test sets device.DEVICE)
from ridgeline_measure.launch_units import (CHAIN_SHAPE, EAGER_CALLS, EAGER_REPEATS,
                                            GRAPH_SIZES, GRAPH_TIMED_REPLAYS, ROUNDTRIPS,
                                            fit_line, graph_of_one, kernels_per_unit,
                                            make_units, measure_eager, measure_graph,
                                            measure_roundtrip)  # noqa: E402


METHOD_TEXT = (
    "Launch costs measured with PyTorch. (a) graph: a CUDA graph calling a "
    "unit N times (N in 100/400/1600) is replayed 2 times warm, then 20 "
    "times each timed with CUDA events; per_op_us = median replay / (N x "
    "ops_per_unit); fit = least squares of replay time on ops (slope = "
    "marginal us per op in a graph, intercept = fixed us per replay); "
    "replay_cpu_us = perf_counter around graph.replay(). (b) eager: 2000 "
    "units back to back from Python after 50 warm-up, CUDA events first to "
    "last give device_us_per_op (the spacing of the kernels on the GPU), "
    "perf_counter around the loop cpu_us_per_op (the Python + launch cost), "
    "around loop + synchronize wall_us_per_op; median of 5 repeats. (c) "
    "roundtrip: perf_counter around unit + torch.cuda.synchronize(), median "
    "of 200 after 20 warm-up. kernels_per_unit from torch.profiler over 3 "
    "calls; per_kernel_us = per-unit time / kernels_per_unit.")


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def collect_meta(args):
    meta = start_meta(METHOD_TEXT, cpu_model=cpu_model(), cpu_count=os.cpu_count())
    meta["config"] = {"graph_sizes": list(GRAPH_SIZES),
                       "graph_timed_replays": GRAPH_TIMED_REPLAYS,
                       "eager_calls": EAGER_CALLS, "eager_repeats": EAGER_REPEATS,
                       "roundtrips": ROUNDTRIPS, "chain_shape": list(CHAIN_SHAPE),
                       "deadline_s": args.deadline_s,
                       "hard_limit_s": args.hard_limit_s}
    device_meta(meta, ("device_name", "compute_capability", "sm_count"))
    smi_start_meta(meta)
    meta["env"] = {k: os.environ[k] for k in sorted(os.environ)
                   if k.startswith(("CUDA_", "PYTORCH_", "TORCH_", "TRITON_"))}
    return meta


def warm_gpu(seconds=0.3):
    """A short burst of real work so clocks are up before timing."""
    a = torch.randn(2048, 2048, device=device.DEVICE, dtype=torch.bfloat16)
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        for _ in range(20):
            torch.mm(a, a)
        torch.cuda.synchronize()


def write_output(path, doc):
    text = json.dumps(sanitize(doc), indent=1) + "\n"
    write_atomic(path, text)


def start_watchdog(limit_s, path, doc):
    """Hard stop past limit_s: writes what was measured and exits (harness.start_watchdog)."""
    def write_final():
        snap = dict(doc)
        snap["meta"] = dict(doc["meta"], hard_limit_hit_s=round(elapsed_s(), 1),
                            utc_end=utc_now())
        write_output(path, snap)

    harness_watchdog(limit_s, write_final, poll_s=0.5)


def run_section(doc, results, name, key, deadline_s, thunk):
    """Runs one measurement; records its result or error under results[key]."""
    if elapsed_s() > deadline_s:
        doc["meta"].setdefault("skipped", []).append(f"{name}/{key}")
        return None
    try:
        value = thunk()
        results[key] = value
        return value
    except Exception as exc:
        results[key + "_error"] = err_text(exc)
        with contextlib.suppress(Exception):
            torch.cuda.set_stream(torch.cuda.default_stream())
        with contextlib.suppress(Exception):
            torch.cuda.synchronize()
        return None


def measure_unit(unit, doc, deadline_s, stream):
    res = {"description": unit.description, "ops_per_unit": unit.ops_per_unit}
    doc["results"][unit.name] = res
    if unit.fn is None:
        res["error"] = unit.description
        return
    try:
        unit.fn()                      # compiles / loads the kernel
        torch.cuda.synchronize()
    except Exception as exc:
        res["error"] = err_text(exc)
        res["traceback"] = traceback.format_exc(limit=3)[-1000:]
        return
    graphs = []
    for n in GRAPH_SIZES:
        g = run_section(doc, res, unit.name, f"graph_n{n}", deadline_s,
                        lambda n=n: measure_graph(unit, n, stream))
        if g is not None:
            graphs.append(g)
    res["graph"] = graphs
    for n in GRAPH_SIZES:
        res.pop(f"graph_n{n}", None)
    if len(graphs) >= 2:
        a, b = fit_line([(g["n_ops"], g["replay_us"]["median_us"]) for g in graphs])
        res["graph_fit"] = {"per_op_us": b, "fixed_us_per_replay": a}
    run_section(doc, res, unit.name, "eager", deadline_s, lambda: measure_eager(unit))
    run_section(doc, res, unit.name, "roundtrip", deadline_s,
                lambda: measure_roundtrip(unit.fn))
    if unit.name == "add_1elem":
        def graph_roundtrip():
            graph = graph_of_one(unit, stream)
            out = measure_roundtrip(graph.replay)
            del graph
            return out
        run_section(doc, res, unit.name, "graph1_roundtrip", deadline_s, graph_roundtrip)


def profile_unit(unit, doc, deadline_s):
    """Kernels per unit from torch.profiler, and the per-kernel figures.
    Runs after all timings: a profiler session can leave launch costs
    changed for the rest of the process."""
    res = doc["results"][unit.name]
    if unit.fn is None or "error" in res:
        return
    run_section(doc, res, unit.name, "profile", deadline_s,
                lambda: kernels_per_unit(unit.fn))
    if "profile" in res:
        res["kernels_per_unit"] = res["profile"]["kernels_per_unit"]
        res["kernel_names"] = res["profile"]["kernel_names"]
        del res["profile"]
    kpu = res.get("kernels_per_unit")
    graphs = res.get("graph", [])
    if kpu:   # per-kernel figures when the profiler counted the kernels
        per_kernel = {}
        scale = unit.ops_per_unit / kpu
        if graphs:
            per_kernel["graph_n1600" if graphs[-1]["n_calls"] == 1600 else "graph_largest"] = \
                graphs[-1]["per_op_us"] * scale
        if res.get("graph_fit", {}).get("per_op_us") is not None:
            per_kernel["graph_fit"] = res["graph_fit"]["per_op_us"] * scale
        if "eager" in res:
            per_kernel["eager_device"] = res["eager"]["device_us_per_op"] * scale
            per_kernel["eager_cpu"] = res["eager"]["cpu_us_per_op"] * scale
        res["per_kernel_us"] = per_kernel


def fmt(v, width=8, prec=2):
    if v is None:
        return f"{'-':>{width}}"
    return f"{v:>{width}.{prec}f}"


def summary_rows(doc):
    rows = []
    for name, res in doc["results"].items():
        by_n = {g["n_calls"]: g["per_op_us"] for g in res.get("graph", [])}
        rows.append({
            "unit": name,
            "kernels_per_unit": res.get("kernels_per_unit"),
            "ops_per_unit": res.get("ops_per_unit"),
            **{f"graph_n{n}_us_per_op": by_n.get(n) for n in GRAPH_SIZES},
            "graph_fit_us_per_op": res.get("graph_fit", {}).get("per_op_us"),
            "eager_device_us_per_op": res.get("eager", {}).get("device_us_per_op"),
            "eager_cpu_us_per_op": res.get("eager", {}).get("cpu_us_per_op"),
            "roundtrip_us": res.get("roundtrip", {}).get("median_us"),
            "error": res.get("error"),
        })
    return rows


def print_summary(doc):
    log("")
    log("microseconds per op (the chain counts 3 ops; k/u = kernels per unit, profiler)")
    head = (f"{'unit':<24}{'k/u':>5}" +
            "".join(f"{'g' + str(n):>8}" for n in GRAPH_SIZES) +
            f"{'g-fit':>8}{'eagDev':>8}{'eagCPU':>8}{'rtrip':>8}")
    log(head)
    for row in doc.get("summary", []):
        if row["error"]:
            log(f"{row['unit']:<24} ERROR {str(row['error'])[:90]}")
            continue
        kpu = row["kernels_per_unit"]
        line = f"{row['unit']:<24}{fmt(kpu, 5, 1)}"
        line += "".join(fmt(row[f"graph_n{n}_us_per_op"]) for n in GRAPH_SIZES)
        line += (fmt(row["graph_fit_us_per_op"]) + fmt(row["eager_device_us_per_op"]) +
                 fmt(row["eager_cpu_us_per_op"]) + fmt(row["roundtrip_us"], 8, 1))
        log(line)
    extra = doc.get("sync_only_roundtrip", {}).get("median_us")
    g1 = doc["results"].get("add_1elem", {}).get("graph1_roundtrip", {}).get("median_us")
    log(f"bare synchronize() round trip: {fmt(extra, 0, 1).strip()} us;  "
        f"1-kernel graph replay + synchronize: {fmt(g1, 0, 1).strip()} us")
    log("gN: graph of N units, median replay / ops in it; g-fit: slope of replay time "
        "over ops; eagDev / eagCPU: eager back to back, device spacing / CPU cost per op; "
        "rtrip: one unit + synchronize, per unit")
    log(f"wall {elapsed_s():.1f}s")


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description="Measure kernel launch costs (see docstring).")
    ap.add_argument("--out", required=True, help="JSON file to write")
    ap.add_argument("--deadline-s", type=float, default=45.0,
                    help="start no new measurement after this many seconds (default 45)")
    ap.add_argument("--hard-limit-s", type=float, default=55.0,
                    help="write what was measured and exit at this many seconds (default 55)")
    ap.add_argument("--units", default=None,
                    help="comma-separated unit names to measure (default: all)")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if torch is None or not torch.cuda.is_available():
        log("error: torch with CUDA is required")
        write_output(args.out, {"meta": {"error": "torch with CUDA is not available",
                                         "utc_start": utc_now()}, "results": {}})
        return 2
    signal.signal(signal.SIGTERM, _on_sigterm)
    doc = {"meta": {}, "results": {}}

    def body():
        doc["meta"] = collect_meta(args)
        start_watchdog(args.hard_limit_s, args.out, doc)
        log(f"{doc['meta'].get('device_name')}  driver {doc['meta'].get('driver_version')}  "
            f"torch {doc['meta']['versions'].get('torch')}  "
            f"triton {doc['meta']['versions'].get('triton')}  t={elapsed_s():.1f}s")
        torch.manual_seed(0)
        warm_gpu()
        doc["meta"]["nvidia_smi_after_warmup"] = nvidia_smi()
        stream = torch.cuda.Stream()
        units = make_units()
        if args.units:
            wanted = set(args.units.split(","))
            units = [u for u in units if u.name in wanted]
        doc["sync_only_roundtrip"] = measure_roundtrip(lambda: None)
        gc.collect()
        gc.freeze()        # torch.cuda.graph() runs gc.collect() at each capture
        for unit in units:
            measure_unit(unit, doc, args.deadline_s, stream)
            log(f"  {unit.name} timed  t={elapsed_s():.1f}s")
            write_output(args.out, doc)
        for unit in units:
            profile_unit(unit, doc, args.deadline_s)
        log(f"  profiled  t={elapsed_s():.1f}s")

    def close():
        doc["summary"] = summary_rows(doc)
        stamp_end(doc["meta"])
        write_output(args.out, doc)
        log(f"wrote {args.out}")

    run_guarded(lambda: doc["meta"], body, close)
    print_summary(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
