"""measure_launch.py's units and measurements: the small kernels whose launch
cost is timed (a one-element add, a Triton no-op, an RMSNorm-sized chain), and
the three ways of timing them: CUDA-graph replays of N calls (a least-squares
line gives the marginal cost per kernel), eager calls back to back from Python,
and the round trip of one call plus a synchronize.
"""

import statistics
import time

from .optional import F, tl, torch, triton

from . import device
from .harness import gc_paused, new_event, percentile
from .profiling import _is_kernel_event

GRAPH_SIZES = (100, 400, 1600)
GRAPH_WARM_REPLAYS = 2
GRAPH_TIMED_REPLAYS = 20
EAGER_CALLS = 2000
EAGER_REPEATS = 5
EAGER_WARM_CALLS = 50
ROUNDTRIPS = 200
ROUNDTRIP_WARM = 20
CHAIN_SHAPE = (1, 4096)


# ---------------------------------------------------------------------------
# The units
# ---------------------------------------------------------------------------

if triton is not None:
    @triton.jit
    def _one_block_kernel(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < 1
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        tl.store(x_ptr + offs, x + 1.0, mask=mask)


class Unit:
    """A callable measured as one 'unit' of ops_per_unit PyTorch-level ops."""

    def __init__(self, name, description, fn, ops_per_unit):
        self.name = name
        self.description = description
        self.fn = fn
        self.ops_per_unit = ops_per_unit


def make_units():
    units = []
    one = torch.zeros(1, device=device.DEVICE, dtype=torch.float32)
    units.append(Unit("add_1elem", "x.add_(1.0) on a 1-element fp32 tensor",
                      lambda: one.add_(1.0), 1))

    if triton is not None:
        tri = torch.zeros(32, device=device.DEVICE, dtype=torch.float32)

        def triton_1block():
            _one_block_kernel[(1,)](tri, BLOCK=32, num_warps=1)
        units.append(Unit("triton_1block",
                          "1-program, 1-warp Triton kernel adding 1 to one element",
                          triton_1block, 1))
    else:
        units.append(Unit("triton_1block", "triton is not importable", None, 1))

    cols = CHAIN_SHAPE[-1]
    x = torch.randn(CHAIN_SHAPE, device=device.DEVICE, dtype=torch.bfloat16)
    r = torch.randn(CHAIN_SHAPE, device=device.DEVICE, dtype=torch.bfloat16)
    w = torch.randn((cols,), device=device.DEVICE, dtype=torch.bfloat16)
    shape = "x".join(map(str, CHAIN_SHAPE))

    def chain():
        y = F.rms_norm(x, (cols,), w, eps=1e-6)
        z = torch.add(y, r)
        return F.silu(z)

    units += [
        Unit("rms_norm", f"F.rms_norm(x, ({cols},), w) on [{shape}] bf16",
             lambda: F.rms_norm(x, (cols,), w, eps=1e-6), 1),
        Unit("add", f"torch.add(x, r) on [{shape}] bf16",
             lambda: torch.add(x, r), 1),
        Unit("silu", f"F.silu(x) on [{shape}] bf16", lambda: F.silu(x), 1),
        Unit("chain_rmsnorm_add_silu",
             f"F.rms_norm -> torch.add -> F.silu on [{shape}] bf16 (3 ops)",
             chain, 3),
    ]
    return units


# ---------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------


def stats_us(values_us):
    vals = sorted(values_us)
    return {"median_us": percentile(vals, 50), "p10_us": percentile(vals, 10),
            "p90_us": percentile(vals, 90), "min_us": vals[0], "n": len(vals)}


def kernels_per_unit(fn, calls=3):
    """Kernels (and memcpy/memset) per unit call from torch.profiler."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    names = [evt.name for evt in prof.events() if _is_kernel_event(evt)]
    return {"kernels_per_unit": len(names) / calls,
            "kernel_names": list(dict.fromkeys(n[:160] for n in names))}


def measure_graph(unit, n_calls, stream):
    """Replay timing of a graph whose body calls unit n_calls times."""
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):            # warm-up on the capture stream
        for _ in range(3):
            unit.fn()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    t_cap = time.perf_counter()
    with torch.cuda.graph(graph, stream=stream):
        for _ in range(n_calls):
            unit.fn()
    capture_s = time.perf_counter() - t_cap
    for _ in range(GRAPH_WARM_REPLAYS):
        graph.replay()
    torch.cuda.synchronize()
    starts = [new_event() for _ in range(GRAPH_TIMED_REPLAYS)]
    ends = [new_event() for _ in range(GRAPH_TIMED_REPLAYS)]
    cpu_us = []
    with gc_paused():
        for s, e in zip(starts, ends):
            s.record()
            t = time.perf_counter()
            graph.replay()
            cpu_us.append((time.perf_counter() - t) * 1e6)
            e.record()
    torch.cuda.synchronize()
    replay_us = [s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)]
    del graph
    n_ops = n_calls * unit.ops_per_unit
    rs = stats_us(replay_us)
    return {"n_calls": n_calls, "n_ops": n_ops,
            "replay_us": rs,
            "per_op_us": rs["median_us"] / n_ops,
            "per_op_p10_us": rs["p10_us"] / n_ops,
            "per_op_p90_us": rs["p90_us"] / n_ops,
            "replay_cpu_us": stats_us(cpu_us)["median_us"],
            "capture_s": round(capture_s, 4)}


def fit_line(points):
    """Least squares y = a + b x over [(x, y)]: (intercept a, slope b)."""
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    if sxx == 0:
        return None, None
    b = sum((p[0] - mx) * (p[1] - my) for p in points) / sxx
    return my - b * mx, b


def measure_eager(unit, n_calls=EAGER_CALLS, repeats=EAGER_REPEATS):
    """Back-to-back eager launches: device spacing and CPU cost per op."""
    fn = unit.fn
    for _ in range(EAGER_WARM_CALLS):
        fn()
    torch.cuda.synchronize()
    device_us, cpu_us, wall_us = [], [], []
    n_ops = n_calls * unit.ops_per_unit
    for _ in range(repeats):
        start, end = new_event(), new_event()
        torch.cuda.synchronize()
        with gc_paused():
            t0 = time.perf_counter()
            start.record()
            for _ in range(n_calls):
                fn()
            end.record()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            t2 = time.perf_counter()
        device_us.append(start.elapsed_time(end) * 1e3 / n_ops)
        cpu_us.append((t1 - t0) * 1e6 / n_ops)
        wall_us.append((t2 - t0) * 1e6 / n_ops)
    return {"n_calls": n_calls, "n_ops": n_ops, "repeats": repeats,
            "device_us_per_op": statistics.median(device_us),
            "cpu_us_per_op": statistics.median(cpu_us),
            "wall_us_per_op": statistics.median(wall_us),
            "device_us_per_op_all": device_us, "cpu_us_per_op_all": cpu_us,
            "wall_us_per_op_all": wall_us}


def measure_roundtrip(fn, n=ROUNDTRIPS):
    """perf_counter around fn() + synchronize, median of n."""
    for _ in range(ROUNDTRIP_WARM):
        fn()
        torch.cuda.synchronize()
    times = []
    with gc_paused():
        for _ in range(n):
            t = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t) * 1e6)
    return stats_us(times)


def graph_of_one(unit, stream):
    """A 1-unit graph's replay as a callable (for the round trip)."""
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            unit.fn()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        unit.fn()
    return graph
