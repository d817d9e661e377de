#!/usr/bin/env python3
"""Measure whole-model steps of a Llama-3-8B-shaped model on one NVIDIA GPU.

    python3 measure_models.py --out results.json [--budget-s 420] [--only REGEX]

Ground truth for ridgeline's whole-model predictions ("pytorch-eager"
runtime): real PyTorch runs of llama_model.py (a Hugging-Face-style Llama in
plain PyTorch, random bf16 weights, nothing downloaded), for

  models   "blocks4"             4 Llama-3-8B decoder blocks (no embedding,
                                 final norm or LM head; input: hidden states)
           "llama-3-8b"          the whole model, 32 layers (prefill, decode)
           "llama-3-8b-8layers"  the whole model with 8 layers (training: the
                                 32-layer model with grads and AdamW state
                                 does not fit in 80 GB)
  phases   prefill  batch 1, 4 x seq 512, 2048 (+ 8192 at batch 1);
                    logits of the last position only
           decode   batch 1, 8, 32, 128 x kv_len 512, 2048, 8192: one new
                    token per sequence at position kv_len, static KV cache,
                    attention over kv_len + 1 positions
           train    batch 1, 2, 4 x seq 512, 2048: forward + backward (whole
                    model: cross-entropy of fp32-upcast logits over all
                    positions; blocks: backward of a static random output
                    gradient); without optimizer, and again with a
                    torch.optim.AdamW(fused=True) step ("optimizer": "adamw")
  modes    eager    plain Python calls
           graph    one step captured in a torch.cuda.CUDAGraph (after
                    warm-up on a side stream) and replayed

Method (see METHOD_TEXT, also written to meta.method): pass 1 times every
case (>= 3 warm-up steps, then >= 5 steps or ~0.2 s, each step between two
CUDA events; median / p10 / p90 ms per step; CPU issue time and wall time per
step from perf_counter around the loop, and around loop + synchronize); peak
memory (torch.cuda.max_memory_allocated, reset before the step, or before
the capture in graph mode). Pass 2, after ALL timings (a torch.profiler
session leaves CUPTI attached and slows later launches), profiles one step
of every timed case (one graph replay in graph mode) and records kernels per
step, total kernel time and the top-40 kernels by time; two cases also keep
their full ordered kernel trace under "traces".

Every case is in try/except (errors and OOM are recorded, the run goes on);
no case starts after --budget-s (pass 1 stops at --timing-share of it so
that pass 2 has time); a watchdog writes the output and exits at
--hard-limit-s; the output is rewritten after every case and on SIGTERM.
"""

import argparse
import collections
import contextlib
import gc
import math
import os
import platform
import re
import signal
import socket
import sys
import time
import traceback
import json
import warnings

# The harness shared with measure_ops.py and measure_launch.py; importing it needs no GPU.
from ridgeline_measure.environment import (backend_flags, cpu_model, library_versions,  # noqa: E402
                                           nvidia_smi, transformers_version)
from ridgeline_measure.harness import (_on_sigterm, clamp, cuda_alive,  # noqa: E402
                                       elapsed_s, err_text, gc_paused, log, percentile,
                                       sanitize, utc_now, write_atomic)
from ridgeline_measure.harness import start_watchdog as harness_watchdog  # noqa: E402
from ridgeline_measure.profiling import _is_kernel_event, sdpa_backend_guess  # noqa: E402
from ridgeline_measure.run import run_guarded, stamp_end  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import torch
    import torch.nn.functional as F  # noqa: F401
except ImportError:      # lets --dry-run and py_compile work without torch
    torch = None

if torch is not None:
    import llama_model as lm
else:
    lm = None

from op_grid import split_of  # noqa: E402  (the same stable 30% hash split as the kernel grid)

DEVICE = "cuda"
GIB = 1 << 30
NAME_CHARS = 160
TOP_KERNELS = 40
ROPE_LEN = 8192 + 64          # RoPE table rows: positions up to kv 8192 + 1

# A spec may also carry "config" (a function returning the model's LlamaConfig;
# default Llama-3-8B), "moe" (moe_block.MoeSpec keyword arguments: MoE MLPs) and
# "id_name" (the name in case ids, when the record's "model" is a path).
MODEL_SPECS = {
    "blocks4": {"num_layers": 4, "blocks_only": True},
    "llama-3-8b": {"num_layers": 32, "blocks_only": False},
    "llama-3-8b-8layers": {"num_layers": 8, "blocks_only": False},
}
PHASE_MODELS = {"prefill": ("blocks4", "llama-3-8b"),
                "decode": ("blocks4", "llama-3-8b"),
                "train": ("blocks4", "llama-3-8b-8layers")}
MODEL_ORDER = ("blocks4", "llama-3-8b", "llama-3-8b-8layers")
PREFILL_SIZES = ((1, 512), (1, 2048), (1, 8192), (4, 512), (4, 2048))
DECODE_BATCHES = (1, 8, 32, 128)
DECODE_KV = (512, 2048, 8192)
TRAIN_SIZES = tuple((b, s) for b in (1, 2, 4) for s in (512, 2048))
MODES = ("eager", "graph")
TRACE_CASES = ("blocks4-decode-b8-kv2048-eager", "blocks4-prefill-b1-s2048-eager")
ADAMW = {"lr": 1e-6, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}

METHOD_TEXT = (
    "Model: validate/measure/llama_model.py, a Hugging-Face-style Llama in "
    "plain PyTorch (Llama-3-8B shape: hidden 4096, 32 heads, 8 KV heads, "
    "head_dim 128, intermediate 14336, vocab 128256, untied embeddings), "
    "random bf16 weights (normal std 0.02, norms 1) and bf16 activations, "
    "built on the GPU. Per block: F.rms_norm (one kernel), q/k/v_proj "
    "separate nn.Linear, RoPE as x*cos + cat(-x2, x1)*sin (mul, neg, cat, "
    "mul, add per q and k; cos/sin tables precomputed), "
    "F.scaled_dot_product_attention (is_causal for prefill/train, "
    "enable_gqa=True, backend left to PyTorch), transpose(1,2).contiguous(), "
    "o_proj, residual add, F.rms_norm, gate_proj, up_proj, F.silu, mul, "
    "down_proj, residual add. Decode: static KV cache [batch, 8, kv_len+1, "
    "128] per layer filled with randn, new K/V written with "
    "narrow(2, kv_len, 1).copy_(), attention over narrow(2, 0, kv_len+1) "
    "without mask; every timed step is the step at position kv_len. "
    "Inference (torch.inference_mode): final norm over all positions, LM head "
    "on the last position. Training: logits for all positions, loss "
    "F.cross_entropy(logits.float(), labels) (labels random, taken as "
    "shifted), loss.backward(); blocks4: out.backward(static randn grad), "
    "input requires grad; grads set to None before each step (no "
    "accumulation kernels); 'adamw' adds torch.optim.AdamW(fused=True, lr "
    "1e-6, wd 0.01; graph mode also capturable=True) step, its state in the "
    "parameters' dtype (bf16) as torch creates it. Timing pass: eager: >= 3 "
    "warm-up steps (each synchronized; max_memory_allocated reset before the "
    "last), then N steps (N = clamp(0.2 s / step, 5, 400), <= ~3 s), each "
    "between two CUDA events, Python GC paused; median/p10/p90 of the "
    "per-step event times; cpu_ms_per_step = perf_counter around the loop "
    "(launch/issue time), wall_ms_per_step = around loop + synchronize, / N. "
    "graph: 3 warm-up steps on a side stream, max_memory_allocated reset, one "
    "step captured with torch.cuda.graph (grads None before capture), 2 warm "
    "replays, N replays timed the same way. Profile pass (after all timings, "
    "because a torch.profiler session leaves CUPTI attached and slows later "
    "launches): per case the same setup, then torch.profiler (CUDA activity "
    "only, schedule warmup=1 active=1) over one eager step or one graph "
    "replay (an eager step if the replay shows no kernels); kernels incl. "
    "memcpy/memset, names cut to 160 chars, durations = device time.")


# ---------------------------------------------------------------------------
# Small utilities
# ---------------------------------------------------------------------------


def stats_ms(values):
    vals = sorted(values)
    return {"median_ms": percentile(vals, 50), "p10_ms": percentile(vals, 10),
            "p90_ms": percentile(vals, 90), "min_ms": vals[0], "max_ms": vals[-1],
            "mean_ms": sum(vals) / len(vals)}


class PredictedOOM(Exception):
    """Weights (+ KV cache) alone would not fit: the case is not tried."""


def oom_error_types():
    types = []
    if torch is not None and hasattr(torch.cuda, "OutOfMemoryError"):
        types.append(torch.cuda.OutOfMemoryError)
    return tuple(types)


def is_oom(exc):
    return isinstance(exc, oom_error_types()) or "out of memory" in str(exc).lower()


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

def make_case(model, phase, mode, batch, seq=None, kv_len=None, optimizer="none"):
    spec = MODEL_SPECS[model]
    name = spec.get("id_name", model)
    if phase == "decode":
        cid = f"{name}-decode-b{batch}-kv{kv_len}-{mode}"
    else:
        opt = "-adamw" if optimizer != "none" else ""
        cid = f"{name}-{phase}-b{batch}-s{seq}{opt}-{mode}"
    case = {"id": cid, "split": split_of(cid), "model": model, "phase": phase,
            "mode": mode, "batch": batch}
    if phase == "decode":
        case.update({"kv_len": kv_len, "q_len": 1, "attn_kv_len": kv_len + 1,
                     "tokens": batch})
    else:
        case.update({"seq": seq, "q_len": seq, "attn_kv_len": seq, "tokens": batch * seq})
    case.update({"layers": spec["num_layers"], "blocks_only": spec["blocks_only"],
                 "dtype": "bf16", "optimizer": optimizer})
    if "moe" in spec:
        case["moe"] = dict(spec["moe"])
    if spec["blocks_only"]:
        case["logits"] = "none"
    else:
        case["logits"] = "all" if phase == "train" else "last"
    if phase == "train":
        case["loss"] = ("backward(static randn grad_output)" if spec["blocks_only"]
                        else "cross_entropy(logits.float(), labels), all positions")
    if optimizer == "adamw":
        case["adamw"] = {"fused": True, "capturable": mode == "graph",
                         "state_dtype": "bf16 (as the params)", **ADAMW}
    return case


def build_cases():
    """All cases, grouped by model (each model is built once per pass), then
    phase and size; within a size eager before graph (they share inputs)."""
    cases = []
    for model in MODEL_ORDER:
        if model in PHASE_MODELS["prefill"]:
            for b, s in PREFILL_SIZES:
                for mode in MODES:
                    cases.append(make_case(model, "prefill", mode, b, seq=s))
        if model in PHASE_MODELS["decode"]:
            for b in DECODE_BATCHES:
                for kv in DECODE_KV:
                    for mode in MODES:
                        cases.append(make_case(model, "decode", mode, b, kv_len=kv))
        if model in PHASE_MODELS["train"]:
            for b, s in TRAIN_SIZES:
                for opt in ("none", "adamw"):
                    for mode in MODES:
                        cases.append(make_case(model, "train", mode, b, seq=s, optimizer=opt))
    return cases


# The case grid main() measures: this file's Llama grid unless a caller (measure_moe.py)
# passes its own: name, cases (a function), method text, trace_cases, extra_meta (a
# function of the meta, run before the timings, or None).
GRID = {"name": "llama", "cases": build_cases, "method": METHOD_TEXT,
        "trace_cases": TRACE_CASES, "extra_meta": None}


def input_key(case):
    size = case["kv_len"] if case["phase"] == "decode" else case["seq"]
    return (case["model"], case["phase"], case["batch"], size)


def case_counts(cases):
    counts = collections.Counter((c["phase"], c["mode"]) for c in cases)
    return {f"{p}/{m}": n for (p, m), n in sorted(counts.items())}


def llama_config():
    return lm.LlamaConfig.llama3_8b()


def model_config(name):
    """The LlamaConfig of a measured model (Llama-3-8B unless its spec says)."""
    make = MODEL_SPECS[name].get("config")
    return make() if make is not None else llama_config()


def moe_spec(name):
    """The model's moe_block.MoeSpec, or None for a dense model."""
    kwargs = MODEL_SPECS[name].get("moe")
    if kwargs is None:
        return None
    import moe_block
    return moe_block.MoeSpec(**kwargs)


def model_parameters(name):
    spec = MODEL_SPECS[name]
    return lm.parameter_count(model_config(name), spec["num_layers"], spec["blocks_only"],
                              moe=moe_spec(name))


def predicted_bytes(case):
    """A lower bound of what the case needs: weights (+ KV cache for decode)."""
    spec = MODEL_SPECS[case["model"]]
    need = 2 * model_parameters(case["model"])
    if case["phase"] == "decode":
        need += lm.kv_cache_bytes(model_config(case["model"]), spec["num_layers"],
                                  case["batch"], case["kv_len"] + 1)
    return need


# ---------------------------------------------------------------------------
# Models and inputs
# ---------------------------------------------------------------------------

class Inputs:
    """Static inputs of one (model, phase, batch, size), shared by its cases."""

    def __init__(self, case, model):
        cfg8b = model.config      # (the name is historical: any model's LlamaConfig)
        b = case["batch"]
        dt = torch.bfloat16
        self.x = self.labels = self.grad_out = self.cache = None
        self.pos = 0
        gen = torch.Generator(device=DEVICE)
        gen.manual_seed(1234)
        blocks = case["blocks_only"]
        q_len = case["q_len"]
        with torch.no_grad():
            if blocks:
                self.x = torch.randn(b, q_len, cfg8b.hidden_size, device=DEVICE, dtype=dt,
                                     generator=gen)
            else:
                self.x = torch.randint(0, cfg8b.vocab_size, (b, q_len), device=DEVICE,
                                       generator=gen)
            if case["phase"] == "decode":
                self.pos = case["kv_len"]
                self.cache = model.new_cache(b, case["kv_len"] + 1, fill="randn")
            if case["phase"] == "train":
                if blocks:
                    self.x.requires_grad_(True)
                    self.grad_out = torch.randn(b, q_len, cfg8b.hidden_size, device=DEVICE,
                                                dtype=dt, generator=gen)
                else:
                    self.labels = torch.randint(0, cfg8b.vocab_size, (b, q_len),
                                                device=DEVICE, generator=gen)

    def nbytes(self):
        total = 0
        for t in (self.x, self.labels, self.grad_out):
            if t is not None:
                total += t.numel() * t.element_size()
        if self.cache is not None:
            total += self.cache.nbytes()
        return total


def build_model(name):
    spec = MODEL_SPECS[name]
    moe = moe_spec(name)
    model = lm.build_model(model_config(name), num_layers=spec["num_layers"],
                           blocks_only=spec["blocks_only"], device=DEVICE,
                           dtype=torch.bfloat16, seed=0, rope_len=ROPE_LEN, moe=moe)
    if moe is not None:
        model.eval()      # transformers' MoE block looks at .training (router jitter)
    torch.cuda.synchronize()
    return model


class State:
    """What lives between cases: the current model and the current inputs."""

    def __init__(self):
        self.model_name = None
        self.model = None
        self.key = None
        self.inputs = None
        self.build_s = {}

    def drop_inputs(self):
        self.inputs = None
        self.key = None

    def drop_model(self):
        self.drop_inputs()
        self.model = None
        self.model_name = None
        free_memory()

    def prepare(self, case):
        if case["model"] != self.model_name:
            self.drop_model()
            t = time.perf_counter()
            self.model = build_model(case["model"])
            self.model_name = case["model"]
            self.build_s[case["model"]] = round(time.perf_counter() - t, 2)
        key = input_key(case)
        if key != self.key:
            self.drop_inputs()
            free_memory()
            self.inputs = Inputs(case, self.model)
            self.key = key
        return self.model, self.inputs


def free_memory():
    gc.collect()
    with contextlib.suppress(Exception):
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def clear_grads(model, inputs):
    for p in model.parameters():
        p.grad = None
    if inputs is not None and inputs.x is not None and inputs.x.requires_grad:
        inputs.x.grad = None


# ---------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------

def make_optimizer(case, model):
    if case["optimizer"] != "adamw":
        return None
    return torch.optim.AdamW(model.parameters(), fused=True,
                             capturable=case["mode"] == "graph", **ADAMW)


def make_step(case, model, inputs, optimizer):
    """(step, before_capture): step() runs one step and returns its output."""
    phase = case["phase"]
    x = inputs.x
    if phase == "prefill":
        logits = "none" if case["blocks_only"] else "last"

        def step():
            return model(x, logits=logits)
        return step, (lambda: None)
    if phase == "decode":
        cache, pos = inputs.cache, inputs.pos

        def step():
            return model(x, cache=cache, pos=pos, logits="last")
        return step, (lambda: None)

    params = list(model.parameters())
    blocks = case["blocks_only"]
    grad_out, labels = inputs.grad_out, inputs.labels

    def zero():
        for p in params:
            p.grad = None
        if blocks:
            x.grad = None

    def step():
        zero()
        out = model(x, logits="all")
        if blocks:
            out.backward(grad_out)
            loss = out
        else:
            loss = lm.causal_lm_loss(out, labels)
            loss.backward()
        if optimizer is not None:
            optimizer.step()
        return loss
    return step, zero


def phase_context(case):
    return torch.inference_mode() if case["phase"] in ("prefill", "decode") else contextlib.nullcontext()


def new_event():
    return torch.cuda.Event(enable_timing=True)


def steps_for(step_s, cfg):
    n = int(math.ceil(cfg.timed_s / max(step_s, 1e-6)))
    n = clamp(n, cfg.min_steps, cfg.max_steps)
    if n * step_s > cfg.max_timed_s:
        n = max(cfg.min_steps, int(cfg.max_timed_s / step_s))
    return n


def timed_loop(fn, n):
    """n calls of fn, each between two CUDA events; returns (ms list, issue s, wall s)."""
    starts = [new_event() for _ in range(n)]
    ends = [new_event() for _ in range(n)]
    torch.cuda.synchronize()
    with gc_paused():
        t0 = time.perf_counter()
        for i in range(n):
            starts[i].record()
            fn()
            ends[i].record()
        t_issue = time.perf_counter() - t0
        torch.cuda.synchronize()
        t_wall = time.perf_counter() - t0
    return [s.elapsed_time(e) for s, e in zip(starts, ends)], t_issue, t_wall


def record_timing(rec, times_ms, t_issue, t_wall, n):
    rec.update(stats_ms(times_ms))
    rec["steps_timed"] = n
    rec["cpu_ms_per_step"] = t_issue * 1e3 / n
    rec["wall_ms_per_step"] = t_wall * 1e3 / n


def time_eager(step, cfg, rec):
    est = None
    for i in range(cfg.warmup):
        torch.cuda.synchronize()
        if i == cfg.warmup - 1:
            torch.cuda.reset_peak_memory_stats()
            rec["mem_before_step_bytes"] = torch.cuda.memory_allocated()
        t = time.perf_counter()
        out = step()
        torch.cuda.synchronize()
        est = time.perf_counter() - t
        del out
    rec["peak_mem_bytes"] = torch.cuda.max_memory_allocated()
    rec["peak_mem_source"] = "last eager warm-up step"
    rec["warmup_steps"] = cfg.warmup
    rec["estimate_ms"] = est * 1e3
    n = steps_for(est, cfg)

    def call():
        step()
    times, t_issue, t_wall = timed_loop(call, n)
    record_timing(rec, times, t_issue, t_wall, n)


def capture(step, before_capture, warmup, rec):
    """Warm-up on a side stream, then one captured step: (graph, output)
    or (None, None) with rec['capture_error'] set."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            out = step()
            del out
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    before_capture()
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    rec["mem_before_step_bytes"] = torch.cuda.memory_allocated()
    graph = torch.cuda.CUDAGraph()
    t = time.perf_counter()
    try:
        with torch.cuda.graph(graph):
            out = step()
    except Exception as exc:
        if is_oom(exc):
            raise
        rec["capture_error"] = err_text(exc)
        rec["capture_traceback"] = traceback.format_exc(limit=6)[-1500:]
        recover_after_capture_failure()
        return None, None
    torch.cuda.synchronize()
    rec["capture_s"] = round(time.perf_counter() - t, 3)
    rec["peak_mem_bytes"] = torch.cuda.max_memory_allocated()
    rec["peak_mem_source"] = "capture of one step (graph pool included)"
    return graph, out


def recover_after_capture_failure():
    with contextlib.suppress(Exception):
        torch.cuda.set_stream(torch.cuda.default_stream())
    for _ in range(2):
        with contextlib.suppress(Exception):
            torch.cuda.synchronize()


def time_graph(step, before_capture, cfg, rec):
    graph, out = capture(step, before_capture, cfg.warmup, rec)
    rec["warmup_steps"] = cfg.warmup
    if graph is None:
        return None, None
    graph.replay()
    torch.cuda.synchronize()
    t = time.perf_counter()
    graph.replay()
    torch.cuda.synchronize()
    est = time.perf_counter() - t
    rec["estimate_ms"] = est * 1e3
    n = steps_for(est, cfg)
    times, t_issue, t_wall = timed_loop(graph.replay, n)
    record_timing(rec, times, t_issue, t_wall, n)
    return graph, out


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


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

def write_output(path, doc):
    """Atomic write; one record a line so that the file diffs well."""
    records = doc["records"]
    body = ",\n".join(json.dumps(sanitize(r)) for r in records)
    text = ('{"meta": ' + json.dumps(sanitize(doc["meta"]), indent=1) +
            ',\n"records": [\n' + body + "\n],\n"
            '"traces": ' + json.dumps(sanitize(doc["traces"])) + "}\n")
    write_atomic(path, text)


def start_watchdog(limit_s, path, doc):
    """Hard stop past limit_s: writes what was measured and exits (harness.start_watchdog)."""
    def write_final():
        snap = {"meta": dict(doc["meta"], hard_limit_hit_s=round(elapsed_s(), 1),
                             utc_end=utc_now()),
                "records": list(doc["records"]), "traces": dict(doc["traces"])}
        write_output(path, snap)

    harness_watchdog(limit_s, write_final)


def fmt_ms(v):
    return "-" if v is None else (f"{v:9.3f}" if v < 1000 else f"{v:9.1f}")


def progress_line(i, total, rec):
    head = f"[{i:>3}/{total}] {rec['id'][:44]:<44}"
    if "median_ms" in rec:
        body = (f"{fmt_ms(rec['median_ms'])} ms (p10 {rec['p10_ms']:.3f} p90 "
                f"{rec['p90_ms']:.3f}) n={rec['steps_timed']:<3} "
                f"cpu {rec['cpu_ms_per_step']:.3f} wall {rec['wall_ms_per_step']:.3f} ms "
                f"peak {rec.get('peak_mem_bytes', 0) / GIB:.1f} GiB")
    else:
        body = "ERROR " + str(rec.get("error") or rec.get("capture_error") or "?")[:110]
    return f"{head} {body}  t={elapsed_s():.0f}s"


def profile_line(i, total, rec):
    head = f"[prof {i:>3}/{total}] {rec['id'][:44]:<44}"
    if "kernel_count" in rec:
        top = rec["kernels_top"][0]["name"][:40] if rec.get("kernels_top") else ""
        body = (f"kernels {rec['kernel_count']:>5}  total {rec['kernel_total_us'] / 1e3:9.3f} ms"
                f"  ({rec['profile_source'][:12]})  top: {top}")
    else:
        body = "ERROR " + str(rec.get("profile_error", "?"))[:110]
    return f"{head} {body}  t={elapsed_s():.0f}s"


def print_summary(records, meta):
    rows = collections.OrderedDict()
    for rec in records:
        row = rows.setdefault((rec["phase"], rec["mode"]), collections.Counter())
        row["total"] += 1
        row["timed"] += "median_ms" in rec
        row["profiled"] += "kernel_count" in rec
        row["oom"] += bool(rec.get("oom"))
        row["capture_error"] += "capture_error" in rec
    log("")
    log(f"{'phase/mode':<16} {'cases':>5} {'timed':>5} {'prof':>5} {'oom':>5} {'capt.err':>8}")
    for (phase, mode), c in rows.items():
        log(f"{phase + '/' + mode:<16} {c['total']:>5} {c['timed']:>5} {c['profiled']:>5} "
            f"{c['oom']:>5} {c['capture_error']:>8}")
    errors = [r for r in records if "error" in r or "capture_error" in r or "profile_error" in r]
    for rec in errors[:15]:
        msg = rec.get("error") or rec.get("capture_error") or rec.get("profile_error")
        log(f"  error {rec['id']}: {str(msg)[:140]}")
    log(f"{len(records)} cases, skipped {len(meta.get('skipped_ids', []))} "
        f"(timing) / {len(meta.get('profile_skipped_ids', []))} (profile), "
        f"wall {elapsed_s():.0f}s")


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

class Config:
    def __init__(self, args):
        self.budget_s = args.budget_s
        self.hard_limit_s = (args.hard_limit_s if args.hard_limit_s is not None
                             else args.budget_s + 120.0)
        self.timing_share = args.timing_share
        self.warmup = max(3, args.warmup)
        self.profile_warmup = 2
        self.timed_s = args.timed_s
        self.min_steps = max(5, args.min_steps)
        self.max_steps = args.max_steps
        self.max_timed_s = 3.0
        self.profile = not args.no_profile
        self.trace_re = re.compile(args.trace) if args.trace else None
        self.mem_fraction = 0.97
        self.total_mem = 80 * GIB


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description="Measure whole-model Llama steps on one NVIDIA GPU (see docstring).")
    ap.add_argument("--out", required=True, help="results JSON to write")
    ap.add_argument("--budget-s", type=float, default=420.0,
                    help="start no case after this many seconds (default 420)")
    ap.add_argument("--timing-share", type=float, default=0.7,
                    help="the timing pass starts no case after this share of the "
                         "budget; the profile pass uses the rest (default 0.7)")
    ap.add_argument("--hard-limit-s", type=float, default=None,
                    help="write the output and exit after this many seconds even "
                         "if a case hangs (default budget + 120)")
    ap.add_argument("--only", default=None, metavar="REGEX",
                    help="run only cases whose id matches (re.search), e.g. "
                         "'^blocks4-decode' or 'llama-3-8b-(prefill|decode)'")
    ap.add_argument("--max-cases", type=int, default=None)
    ap.add_argument("--warmup", type=int, default=3, help="warm-up steps (>= 3)")
    ap.add_argument("--timed-s", type=float, default=0.2,
                    help="aim for this much timed time per case (default 0.2)")
    ap.add_argument("--min-steps", type=int, default=5)
    ap.add_argument("--max-steps", type=int, default=400)
    ap.add_argument("--no-profile", action="store_true", help="skip the profile pass")
    ap.add_argument("--trace", default=None, metavar="REGEX",
                    help="also keep the full kernel trace of the cases whose id matches "
                         "(besides the two always kept)")
    ap.add_argument("--allow-fallbacks", action="store_true",
                    help="measure even if llama_model would take an old-torch fallback")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the cases and their counts, and exit (no GPU needed)")
    return ap.parse_args(argv)


def select_cases(args):
    cases = GRID["cases"]()
    if args.only:
        pattern = re.compile(args.only)
        cases = [c for c in cases if pattern.search(c["id"])]
    if args.max_cases is not None:
        cases = cases[:args.max_cases]
    return cases


def collect_meta(args, cfg, cases):
    meta = {"utc_start": utc_now(), "hostname": socket.gethostname(),
            "argv": sys.argv, "platform": platform.platform(),
            "cpu_model": cpu_model(), "cpu_count": os.cpu_count(),
            "grid": GRID["name"], "method": GRID["method"], "versions": library_versions()}
    key = "transformers_installed_not_used" if GRID["name"] == "llama" else "transformers"
    meta["versions"][key] = transformers_version()
    try:
        props = torch.cuda.get_device_properties(0)
        meta.update({"device_name": props.name,
                     "compute_capability": f"{props.major}.{props.minor}",
                     "sm_count": props.multi_processor_count,
                     "total_memory_bytes": props.total_memory,
                     "l2_cache_bytes": getattr(props, "L2_cache_size", None)})
        cfg.total_mem = props.total_memory
    except Exception as exc:
        meta["device_error"] = err_text(exc)
    smi = nvidia_smi()
    meta["nvidia_smi_start"] = smi
    meta["driver_version"] = (smi.get("gpus") or [{}])[0].get("driver_version")
    meta["backend_flags"] = backend_flags()
    meta["kernel_paths"] = lm.kernel_paths()
    used = list(dict.fromkeys(c["model"] for c in cases))
    if GRID["name"] == "llama":
        meta["llama_config"] = llama_config().to_dict()
    else:
        meta["model_configs"] = {name: model_config(name).to_dict() for name in used}
    meta["models"] = {name: dict({k: v for k, v in spec.items() if k != "config"},
                                 parameters=model_parameters(name), rope_table_rows=ROPE_LEN)
                      for name, spec in MODEL_SPECS.items()
                      if GRID["name"] == "llama" or name in used}
    meta["config"] = {k: (v.pattern if isinstance(v, re.Pattern) else v)
                      for k, v in vars(cfg).items()}
    meta["trace_cases"] = list(GRID["trace_cases"])
    if GRID.get("extra_meta") is not None:
        GRID["extra_meta"](meta)
    meta["cases_selected"] = len(cases)
    meta["case_counts"] = case_counts(cases)
    meta["env"] = {k: os.environ[k] for k in sorted(os.environ)
                   if k.startswith(("CUDA_", "PYTORCH_", "TORCH_", "TRITON_",
                                    "CUBLAS", "NVIDIA_", "LLAMA_MODEL_"))}
    return meta


def preflight(meta):
    """cuBLAS / CUDA init and ~0.5 s of GEMMs so the clocks are up."""
    torch.manual_seed(0)
    a = torch.randn(4096, 4096, device=DEVICE, dtype=torch.bfloat16)
    t_end = time.perf_counter() + 0.5
    while time.perf_counter() < t_end:
        for _ in range(10):
            torch.mm(a, a)
        torch.cuda.synchronize()
    del a
    torch.cuda.empty_cache()
    gc.collect()
    gc.freeze()   # torch.cuda.graph() runs gc.collect() at every capture
    meta["nvidia_smi_after_warmup"] = nvidia_smi()


def run_pass(pass_name, cases, state, cfg, doc, records_by_id, deadline_s, out_path):
    skipped = []
    total = len(cases)
    for i, case in enumerate(cases):
        if elapsed_s() > deadline_s:
            skipped = [c["id"] for c in cases[i:]]
            log(f"{pass_name}: deadline of {deadline_s:.0f}s passed: skipping {len(skipped)} cases")
            break
        rec = run_case(case, state, cfg, records_by_id, doc["traces"], pass_name)
        if pass_name == "timing":
            doc["records"].append(rec)
            log(progress_line(i + 1, total, rec))
        else:
            log(profile_line(i + 1, total, rec))
        failed = (("error" in rec or "capture_error" in rec) if pass_name == "timing"
                  else "profile_error" in rec)
        if failed and not rec.get("oom_predicted") and not cuda_alive(DEVICE):
            doc["meta"]["cuda_context_lost_at"] = f"{pass_name}: {case['id']}"
            skipped = [c["id"] for c in cases[i + 1:]]
            log("CUDA context is no longer usable; stopping")
            break
        write_output(out_path, doc)
    return skipped


def main(argv=None, grid=None):
    if grid is not None:
        GRID.update(grid)
    args = parse_args(argv)
    cases = select_cases(args)
    if args.dry_run:
        with contextlib.suppress(BrokenPipeError):
            for i, c in enumerate(cases):
                print(f"{i + 1:>4} {c['id']:<46} {c['split']}")
            for key, n in case_counts(cases).items():
                print(f"{key:<16} {n:>4}")
            print(f"{'total':<16} {len(cases):>4}")
            sys.stdout.flush()
        return 0
    doc = {"meta": {}, "records": [], "traces": {}}
    if torch is None or not torch.cuda.is_available():
        log("error: torch with CUDA is required")
        doc["meta"] = {"error": "torch with CUDA is not available", "utc_start": utc_now()}
        write_output(args.out, doc)
        return 2
    signal.signal(signal.SIGTERM, _on_sigterm)
    cfg = Config(args)
    meta = collect_meta(args, cfg, cases)
    doc["meta"] = meta
    paths = meta["kernel_paths"]
    log(f"{meta.get('device_name')}  torch {meta['versions']['torch']}  "
        f"rms_norm={paths['rms_norm']}  attention={paths['attention']}  "
        f"{len(cases)} cases {meta['case_counts']}  budget {cfg.budget_s:.0f}s")
    if not paths["primary"] and not args.allow_fallbacks:
        meta["fatal_error"] = ("llama_model would take an old-torch fallback "
                               f"({paths}); not measuring (see --allow-fallbacks)")
        log("fatal: " + meta["fatal_error"])
        write_output(args.out, doc)
        return 2
    records_by_id = {}
    state = State()
    meta["skipped_ids"] = []
    meta["profile_skipped_ids"] = []
    def body():
        start_watchdog(cfg.hard_limit_s, args.out, doc)
        preflight(meta)
        timing_deadline = cfg.budget_s * (cfg.timing_share if cfg.profile else 1.0)
        meta["skipped_ids"] = run_pass("timing", cases, state, cfg, doc, records_by_id,
                                       timing_deadline, args.out)
        meta["timing_pass_end_s"] = round(elapsed_s(), 1)
        meta["nvidia_smi_after_timing"] = nvidia_smi()
        meta["model_build_s"] = dict(state.build_s)
        if cfg.profile and "cuda_context_lost_at" not in meta:
            state.drop_model()
            timed = [c for c in cases if c["id"] in records_by_id
                     and "median_ms" in records_by_id[c["id"]]]
            meta["profile_skipped_ids"] = run_pass("profile", timed, state, cfg, doc,
                                                   records_by_id, cfg.budget_s, args.out)

    def close():
        done = {r["id"] for r in doc["records"]}
        if not meta["skipped_ids"]:
            meta["skipped_ids"] = [c["id"] for c in cases if c["id"] not in done]
        meta["records"] = len(doc["records"])
        stamp_end(meta)
        write_output(args.out, doc)
        log(f"wrote {args.out}")

    run_guarded(lambda: meta, body, close)
    print_summary(doc["records"], meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
