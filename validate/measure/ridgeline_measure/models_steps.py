"""measure_models.py's models, inputs and steps: the static inputs of one
(model, phase, batch, size), one step (forward, forward + backward, + AdamW)
and its timing, eager or replayed from a CUDA graph.
"""

import contextlib
import gc
import math
import time
import traceback

from .optional import torch

from .models_cases import lm

from . import device
from .models_cases import (ADAMW, MODEL_SPECS, ROPE_LEN, input_key, is_oom, model_config,
                           moe_spec, stats_ms)
from .harness import clamp, err_text, gc_paused


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
        gen = torch.Generator(device=device.DEVICE)
        gen.manual_seed(1234)
        blocks = case["blocks_only"]
        q_len = case["q_len"]
        with torch.no_grad():
            if blocks:
                self.x = torch.randn(b, q_len, cfg8b.hidden_size, device=device.DEVICE, dtype=dt,
                                     generator=gen)
            else:
                self.x = torch.randint(0, cfg8b.vocab_size, (b, q_len), device=device.DEVICE,
                                       generator=gen)
            if case["phase"] == "decode":
                self.pos = case["kv_len"]
                self.cache = model.new_cache(b, case["kv_len"] + 1, fill="randn")
            if case["phase"] == "train":
                if blocks:
                    self.x.requires_grad_(True)
                    self.grad_out = torch.randn(b, q_len, cfg8b.hidden_size, device=device.DEVICE,
                                                dtype=dt, generator=gen)
                else:
                    self.labels = torch.randint(0, cfg8b.vocab_size, (b, q_len),
                                                device=device.DEVICE, generator=gen)

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
                           blocks_only=spec["blocks_only"], device=device.DEVICE,
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
