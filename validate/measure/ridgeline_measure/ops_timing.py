"""measure_ops.py's timing: how many input sets span 3x L2, how many calls one
CUDA-graph replay holds (~12 ms), warm-up on a side stream, capture, and the
timed replays (median, p10, p90 of replay / calls); eager timing when capture
fails; kernel names per call from torch.profiler.
"""

import contextlib
import math

from .optional import torch

from .harness import clamp, err_text, new_event, percentile
from .environment import DEFAULT_L2_BYTES
from .profiling import _is_kernel_event


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------

class Config:
    """Timing knobs (CLI-settable); l2_bytes is filled in from the device."""

    def __init__(self, args):
        self.budget_s = args.budget_s
        self.hard_limit_s = (args.hard_limit_s if args.hard_limit_s is not None
                             else args.budget_s + 120.0)
        self.target_replay_s = args.target_replay_ms / 1e3
        self.timed_s = args.timed_s
        self.max_launches = args.max_launches
        self.max_sets = args.max_sets
        self.mem_cap_bytes = args.mem_cap_gb * 1e9
        self.l2_factor = 3.0
        self.min_reps, self.max_reps = 5, 30
        self.max_timed_s = 3.0          # cap on the timed part of a very slow op
        self.warmup_calls = 3
        self.profile = not args.no_profile
        self.l2_bytes = DEFAULT_L2_BYTES
        self.l2_from_props = False


def plan_sets(bytes_per_set, warm_l2, cfg):
    """Number of independent input/output sets to rotate through."""
    if warm_l2:
        return 1
    per = max(1, bytes_per_set)
    want = math.ceil(cfg.l2_factor * cfg.l2_bytes / per)
    cap = min(cfg.max_sets, int(cfg.mem_cap_bytes // per))
    return max(1, min(want, cap))


def make_sets(bench, count):
    """Builds up to count sets; stops early (keeping >= 1) if memory runs out."""
    sets = [bench.make_set()]
    for _ in range(count - 1):
        try:
            sets.append(bench.make_set())
        except torch.cuda.OutOfMemoryError:
            break
    return sets


def choose_impl(candidates, probe_set):
    """First candidate that runs on probe_set, as (name, fn)."""
    errors = []
    for name, fn in candidates:
        try:
            fn(probe_set)
            torch.cuda.synchronize()
            return name, fn
        except torch.cuda.OutOfMemoryError:
            raise
        except Exception as exc:
            errors.append(f"{name}: {err_text(exc)[:400]}")
    raise RuntimeError("no implementation ran: " + " | ".join(errors))


def warm_up(run, sets, stream, calls):
    """Eager calls on the capture stream, as the CUDA-graph docs prescribe."""
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(calls):
            run(sets[i % len(sets)])
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()


def estimate_call_s(run, sets):
    """Rough per-call time from eager calls (launch bound for tiny ops)."""
    start, end = new_event(), new_event()
    torch.cuda.synchronize()
    start.record()
    run(sets[0])
    end.record()
    torch.cuda.synchronize()
    t = start.elapsed_time(end) / 1e3
    if t < 2e-3:
        calls = 10
        start.record()
        for i in range(calls):
            run(sets[(i + 1) % len(sets)])
        end.record()
        torch.cuda.synchronize()
        t = start.elapsed_time(end) / 1e3 / calls
    return max(t, 1e-7)


def choose_launches(t_call, n_sets, cfg):
    """(L, S): launches per graph and sets used, L a multiple of S if S <= L."""
    launches = int(round(cfg.target_replay_s / t_call))
    launches = clamp(launches, 1, cfg.max_launches)
    if n_sets > 1:
        if launches >= n_sets:
            launches = (launches // n_sets) * n_sets
        elif n_sets * t_call <= 4 * cfg.target_replay_s:
            launches = n_sets
        else:
            n_sets = launches
    return launches, n_sets


def capture_graph(run, sets, launches, stream):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for i in range(launches):
            run(sets[i % len(sets)])
    return graph


def recover_after_capture_failure(run, sets):
    """Restores the default stream and clears a stale error, if any."""
    with contextlib.suppress(Exception):
        torch.cuda.set_stream(torch.cuda.default_stream())
    for _ in range(2):
        try:
            torch.cuda.synchronize()
            run(sets[0])
            torch.cuda.synchronize()
            return
        except Exception:
            continue


def time_replays(replay, cfg):
    """Per-replay times (ms): 2 warm replays, then R timed one by one."""
    replay()
    start, end = new_event(), new_event()
    start.record()
    replay()
    end.record()
    torch.cuda.synchronize()
    t_replay = max(start.elapsed_time(end) / 1e3, 1e-7)
    reps = clamp(int(round(cfg.timed_s / t_replay)), cfg.min_reps, cfg.max_reps)
    if reps * t_replay > cfg.max_timed_s:
        reps = max(3, int(cfg.max_timed_s / t_replay))
    starts = [new_event() for _ in range(reps)]
    ends = [new_event() for _ in range(reps)]
    for i in range(reps):
        starts[i].record()
        replay()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def time_op(run, sets, stream, cfg):
    """Graph-replay timing of run over sets; eager fallback if capture fails."""
    warm_up(run, sets, stream, cfg.warmup_calls)
    t_call = estimate_call_s(run, sets)
    launches, n_sets = choose_launches(t_call, len(sets), cfg)
    sets = sets[:n_sets]
    result = {"eager_estimate_us": t_call * 1e6}
    graph = None
    try:
        graph = capture_graph(run, sets, launches, stream)
        method = "graph"
        replay = graph.replay
    except torch.cuda.OutOfMemoryError:
        raise
    except Exception as exc:
        graph = None
        result["capture_error"] = err_text(exc)
        recover_after_capture_failure(run, sets)
        method = "eager"

        def replay():
            for i in range(launches):
                run(sets[i % n_sets])

    times_ms = time_replays(replay, cfg)
    del graph
    per_call_us = sorted(t * 1e3 / launches for t in times_ms)
    result.update({
        "measured_us": percentile(per_call_us, 50),
        "p10_us": percentile(per_call_us, 10),
        "p90_us": percentile(per_call_us, 90),
        "launches": launches, "sets": n_sets, "reps": len(times_ms),
        "method": method,
    })
    return result


# ---------------------------------------------------------------------------
# Kernel names via torch.profiler
# ---------------------------------------------------------------------------


def profile_kernels(run, one_set, calls=2):
    """Distinct kernel names and kernels per call over `calls` eager calls."""
    try:
        from torch.profiler import ProfilerActivity, profile
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                run(one_set)
            torch.cuda.synchronize()
        names = [evt.name for evt in prof.events() if _is_kernel_event(evt)]
        distinct = list(dict.fromkeys(name[:200] for name in names))
        # An integer (validate/dataset.cpp reads it as one), rounded up so
        # that a kernel seen in only one of the calls still counts.
        return {"kernels": distinct,
                "kernels_per_call": math.ceil(len(names) / calls),
                "kernels_profiled": len(names), "calls_profiled": calls}
    except Exception as exc:   # no kernels_per_call: unknown, not zero
        return {"kernels": [], "profile_error": err_text(exc)[:300]}
