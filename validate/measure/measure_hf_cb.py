#!/usr/bin/env python3
"""Measure transformers' own continuous batching (paged attention) on one GPU, per request.

    python3 measure_hf_cb.py --out cb.json [--budget-s 480] [--smoke] [--only REGEX]
    python3 measure_hf_cb.py --dry-run          # the case list; needs no torch

Ground truth for the serving simulator (issue 13, part 6a): a Llama-3-8B-shaped
transformers LlamaForCausalLM (32 layers, bf16, random weights, nothing downloaded) served by
transformers' ContinuousBatchingManager (model.init_continuous_batching: paged attention over
"paged|sdpa", its scheduler and PagedAttentionCache with their defaults), once with the
engine's defaults and once with CUDA graphs forced on (ContinuousBatchingConfig(use_cuda_graph=
True)). Each run is a request mix (fixed input/output lengths, or a lognormal mix) and an arrival
pattern: all at once (the engine's maximum throughput) or Poisson arrivals at a fraction of that
throughput, submitted with add_request from a timer thread at the arrival times (fixed seed).
Per request: arrival, first-token and finish times, TTFT, TPOT, end-to-end latency, output
tokens; per run: throughput and the engine's own step log (requests, query tokens and KV read
of each scheduled batch, from a wrapper around scheduler.schedule_batch). The engine's resolved
configuration (block size, blocks, max batch tokens, memory fraction, scheduler, CUDA graphs,
async batching) is recorded per engine. METHOD_TEXT is the method (also meta.method, HF_CB.md).
"""

import argparse
import dataclasses
import gc
import inspect
import json
import math
import os
import random
import re
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from op_grid import split_of  # noqa: E402  (the project's stable 30% holdout hash)
from ridgeline_measure.harness import (elapsed_s, err_text, percentile, sanitize,  # noqa: E402
                                       start_watchdog, utc_now, write_atomic)
from ridgeline_measure.environment import (backend_flags, cpu_model, device_meta,  # noqa: E402
                                           nvidia_smi, smi_start_meta, start_meta,
                                           transformers_version)
from ridgeline_measure.optional import torch  # noqa: E402

METHOD_TEXT = (
    "Model: transformers' own LlamaForCausalLM, Llama-3-8B shape (hidden 4096, 32 heads, 8 KV heads, "
    "head_dim 128, intermediate 14336, vocab 128256, untied embeddings, 32 layers; rope_theta left at the class default: it does not change the cost), "
    "built under torch.device('cuda') with default dtype bf16, random weights from transformers' own "
    "init (seed 0), config attn_implementation='sdpa' (the manager switches it to 'paged|sdpa'). "
    "Engine: manager = model.init_continuous_batching(generation_config=GenerationConfig(do_sample="
    "False, max_new_tokens=<max of the mix>, eos_token_id=-1), continuous_batching_config="
    "ContinuousBatchingConfig(<engine overrides>)); 'default' passes no overrides, 'cudagraph' "
    "passes use_cuda_graph=True; everything else (block size, number of blocks, max batch tokens, "
    "memory fraction, scheduler, padding intervals, async batching) is transformers' default, "
    "resolved by the library and recorded in meta.engines.<engine>.resolved. manager.warmup() "
    "(timed: warmup_s), manager.start(), then one untimed warm-up run of 8 requests; the same "
    "manager (one background generation thread) serves every run of that engine, one run at a "
    "time (a run starts after the previous one's last result), then manager.stop(). Requests: "
    "prompt token ids uniform random over the vocabulary (Python random, seed fixed per run), "
    "eos_token_id=-1 so every request generates exactly its max_new_tokens (greedy), "
    "record_timestamps=True. Mixes: fixed (input, output) lengths, or 'lognormal' (input "
    "lognormal median 384 sigma 0.8 clipped to [32, 3072]; output median 128 sigma 0.7 clipped "
    "to [16, 384]; seeded). Arrivals: 'burst' = all requests added in one loop at t=0 (maximum "
    "throughput); 'poissonF' = exponential inter-arrival times at rate F * (the burst run's "
    "requests/s for the same mix and engine, measured just before in this process), seeded, "
    "submitted by a timer thread that sleeps until each arrival time and calls add_request; the "
    "request count of a Poisson run (96 planned) is cut to max(48, rate * --poisson-span-s) (35 s). "
    "Times are time.perf_counter() in the same process as the engine: arrival = the "
    "GenerationOutput's created_time (set when add_request builds the request), first token = "
    "timestamps[0] (the engine's host time when it appended the first generated token, after "
    "the device-to-host copy of the sampled ids), finish = lifespan[1], scheduled = lifespan[0] "
    "(when the request left PENDING); TTFT = first token - arrival; TPOT = (last token - first "
    "token) / (output tokens - 1); e2e = finish - arrival; queue = scheduled - arrival; ITL = "
    "differences of consecutive token timestamps (median/p90/max per request). Run throughput: "
    "requests, output tokens and input+output tokens over (last finish - first arrival). Step "
    "log: scheduler.schedule_batch wrapped after the batch processor exists; per call: host time, "
    "requests in the batch, query tokens and KV tokens read as the scheduler returns them, and "
    "the number of those requests whose status was not DECODING when scheduled (i.e. prefilling); step_ms = time between consecutive calls. "
    "Percentiles linear-interpolated. Split: each run record split_of(id) (sha256 of the id, "
    "30% holdout), as op_grid.py does.")

MODEL = "hf-llama3-8b"
LAYERS = 32


# ---------------------------------------------------------------------------
# Case list (pure Python)
# ---------------------------------------------------------------------------

def mix_name(mix):
    return "lognormal" if mix == "lognormal" else f"in{mix[0]}-out{mix[1]}"


def case(engine, mix, n, arrival, fraction=None):
    arr = "burst" if arrival == "burst" else f"poisson{fraction:g}"
    cid = f"hf-cb-llama3-8b-L{LAYERS}-{engine}-{mix_name(mix)}-n{n}-{arr}"
    # the request set (lengths, prompts, arrival draws) is the same for both engines
    seed = seed_of(f"{mix_name(mix)}-n{n}-{arr}")
    return {"id": cid, "split": split_of(cid), "kind": "cb_run", "seed": seed, "engine": engine, "mix": mix_name(mix),
            "mix_spec": mix, "requests_planned": n, "arrival": "burst" if arrival == "burst" else "poisson",
            "rate_fraction_of_burst": fraction}


def cases_for(smoke=False):
    if smoke:
        return [case("default", (128, 16), 16, "burst"), case("default", (128, 16), 16, "poisson", 0.5),
                case("cudagraph", (128, 16), 16, "burst"), case("cudagraph", (128, 16), 16, "poisson", 0.5)]
    out = []
    for engine in ("default", "cudagraph"):
        ln_n = 96 if engine == "default" else 128
        for mix, n in [((128, 64), 128), ((512, 256), 64), ((2048, 64), 64), ("lognormal", ln_n)]:
            out.append(case(engine, mix, n, "burst"))
        poisson = [((128, 64), 0.3), ((128, 64), 0.7), ("lognormal", 0.7)]
        if engine == "cudagraph":
            poisson = [("lognormal", 0.3), ("lognormal", 0.7), ((128, 64), 0.7)]
        for mix, f in poisson:
            out.append(case(engine, mix, 96, "poisson", f))
    return out


def request_lengths(mix, n, seed):
    rng = random.Random(seed)
    if mix != "lognormal":
        return [(mix[0], mix[1])] * n
    out = []
    for _ in range(n):
        i = int(round(math.exp(math.log(384) + 0.8 * rng.gauss(0, 1))))
        o = int(round(math.exp(math.log(128) + 0.7 * rng.gauss(0, 1))))
        out.append((min(3072, max(32, i)), min(384, max(16, o))))
    return out


def seed_of(cid):
    import hashlib
    return int(hashlib.sha256(cid.encode()).hexdigest()[:8], 16)


# ---------------------------------------------------------------------------
# Engine
# ---------------------------------------------------------------------------

def log(msg):
    print(f"[{elapsed_s():7.1f}s] {msg}", flush=True)


def pct(vals, q):
    return percentile(sorted(vals), q) if vals else None


def build_model():
    import transformers as tf
    cfg = tf.LlamaConfig(hidden_size=4096, num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                         intermediate_size=14336, vocab_size=128256, num_hidden_layers=LAYERS,
                         max_position_embeddings=8192, rms_norm_eps=1e-5,
                         tie_word_embeddings=False, attn_implementation="sdpa")
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    t = time.perf_counter()
    try:
        torch.manual_seed(0)
        with torch.device("cuda"):
            model = tf.LlamaForCausalLM(cfg)
    finally:
        torch.set_default_dtype(old)
    model.eval()
    info = {"class": type(model).__name__, "build_s": round(time.perf_counter() - t, 2),
            "params": sum(p.numel() for p in model.parameters()), "layers": LAYERS,
            "config": {k: v for k, v in cfg.to_dict().items() if isinstance(v, (int, float, str, bool))}}
    return model, info


def cb_config_class():
    try:
        from transformers.generation import ContinuousBatchingConfig
        return ContinuousBatchingConfig
    except ImportError:
        from transformers.generation.configuration_utils import ContinuousBatchingConfig
        return ContinuousBatchingConfig


def plain(obj, depth=0):
    """A JSON-able view of a config object (dataclass, object with __dict__, or value)."""
    if depth > 3:
        return str(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: plain(getattr(obj, f.name), depth + 1) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): plain(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v, depth + 1) for v in obj]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return str(obj)


class StepLog:
    """Wraps scheduler.schedule_batch: one row per scheduled batch."""

    def __init__(self):
        self.rows = []
        self.lock = threading.Lock()
        self.error = None

    def wrap(self, scheduler):
        orig = scheduler.schedule_batch
        log_self = self

        def wrapped(*a, **k):
            t = time.perf_counter()
            res = orig(*a, **k)
            try:
                log_self.record(t, res)
            except Exception as exc:  # noqa: BLE001  (never break the engine)
                log_self.error = err_text(exc)
            return res
        scheduler.schedule_batch = wrapped

    def record(self, t, res):
        reqs, fast, q, kv = res, None, None, None
        if isinstance(res, tuple):
            reqs = res[0]
            if len(res) >= 4:
                fast, q, kv = res[1], res[2], res[3]
        if reqs is None:
            n, npre = None, None
        else:
            items = list(reqs.values()) if isinstance(reqs, dict) else list(reqs)
            n = len(items)
            npre = 0
            for r in items:
                st = getattr(r, "state", r)
                status = getattr(st, "status", getattr(st, "_status", None))
                if status is not None and "DECOD" not in str(getattr(status, "name", status)):
                    npre += 1  # PENDING / PREFILLING when scheduled: this step prefills it
        with self.lock:
            self.rows.append((t, n, npre, q if isinstance(q, int) else None,
                              kv if isinstance(kv, int) else None, bool(fast) if fast is not None else None))

    def between(self, t0, t1):
        with self.lock:
            rows = [r for r in self.rows if t0 <= r[0] <= t1]
        out = []
        for i, r in enumerate(rows):
            step_ms = (rows[i + 1][0] - r[0]) * 1e3 if i + 1 < len(rows) else None
            out.append([round((r[0] - t0) * 1e3, 2), r[1], r[2], r[3], r[4], r[5],
                        round(step_ms, 3) if step_ms is not None else None])
        return out


STEP_COLUMNS = ["t_ms", "requests", "not_decoding_requests", "q_tokens", "kv_read_tokens", "decode_fast_path",
                "step_ms"]


class Engine:
    def __init__(self, model, name, max_new_tokens):
        from transformers import GenerationConfig
        self.name = name
        self.model = model
        self.steps = StepLog()
        self.info = {"name": name}
        gen = GenerationConfig(do_sample=False, max_new_tokens=max_new_tokens, eos_token_id=-1, pad_token_id=0)
        overrides = {"use_cuda_graph": True} if name == "cudagraph" else {}
        self.info["overrides"] = dict(overrides)
        kwargs = {"generation_config": gen}
        try:
            cls = cb_config_class()
            kwargs["continuous_batching_config"] = cls(**overrides)
            self.info["api"] = "ContinuousBatchingConfig"
        except Exception as exc:  # noqa: BLE001  (older API: overrides as init kwargs)
            self.info["cb_config_error"] = err_text(exc)
            kwargs.update(overrides)
            self.info["api"] = "init_continuous_batching kwargs"
        self.manager = model.init_continuous_batching(**kwargs)
        self.info["manager_class"] = type(self.manager).__name__
        self.info["attn_implementation"] = getattr(model.config, "_attn_implementation", None)
        self.add_params = set(inspect.signature(self.manager.add_request).parameters)
        t = time.perf_counter()
        if hasattr(self.manager, "warmup"):
            try:
                self.manager.warmup()
                self.info["warmup_s"] = round(time.perf_counter() - t, 2)
            except Exception as exc:  # noqa: BLE001
                self.info["warmup_error"] = err_text(exc)
                self.info["warmup_traceback"] = traceback.format_exc()[-2000:]
        else:
            self.info["warmup"] = "manager has no warmup()"
        self.manager.start()
        bp = None
        deadline = time.monotonic() + 120
        while bp is None and time.monotonic() < deadline:
            bp = getattr(self.manager, "batch_processor", None)
            if bp is None:
                time.sleep(0.05)
        if bp is None:
            raise RuntimeError("the manager's batch processor did not appear within 120 s")
        self.steps.wrap(bp.scheduler)
        self.record_resolved(bp)

    def record_resolved(self, bp):
        m = self.manager
        res = {"cb_config": plain(getattr(m, "continuous_batching_config", None)),
               "scheduler_class": type(bp.scheduler).__name__}
        cache = getattr(bp, "cache", None)
        if cache is not None:
            res["cache_class"] = type(cache).__name__
            for key in ("block_size", "num_blocks", "max_batch_tokens", "num_pages", "num_hidden_layers",
                        "num_key_value_heads", "head_dim", "use_prefix_sharing", "num_groups",
                        "num_full_attention_groups", "num_sliding_attention_groups", "sliding_windows"):
                if hasattr(cache, key):
                    res["cache_" + key] = plain(getattr(cache, key))
        for key in ("use_cuda_graph_varlen", "use_cuda_graph_decode", "use_async_batching", "_pad_inputs",
                    "max_batch_tokens", "sliding_window"):
            if hasattr(bp, key):
                res["processor_" + key.lstrip("_")] = plain(getattr(bp, key))
        res["attn_implementation_after_init"] = getattr(self.model.config, "_attn_implementation", None)
        res["memory_allocated_bytes"] = torch.cuda.memory_allocated()
        res["memory_reserved_bytes"] = torch.cuda.memory_reserved()
        free, total = torch.cuda.mem_get_info()
        res["mem_get_info"] = {"free_bytes": free, "total_bytes": total}
        self.info["resolved"] = res
        log(f"engine {self.name}: {json.dumps(sanitize(res))[:1500]}")

    def add(self, ids, rid, max_new):
        kw = {"request_id": rid, "max_new_tokens": max_new}
        if "record_timestamps" in self.add_params:
            kw["record_timestamps"] = True
        if "eos_token_id" in self.add_params:
            kw["eos_token_id"] = -1
        return self.manager.add_request(ids, **kw)

    def stop(self):
        try:
            self.manager.stop(block=True, timeout=120)
        except Exception as exc:  # noqa: BLE001
            self.info["stop_error"] = err_text(exc)
        self.manager = None
        gc.collect()
        torch.cuda.empty_cache()


# ---------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------

def run_requests(engine, c, lengths, rate_rps, seed, timeout_s, vocab):
    rng = random.Random(seed)
    prompts = [[rng.randrange(vocab) for _ in range(i)] for i, _ in lengths]
    n = len(lengths)
    if rate_rps:
        arng = random.Random(seed + 1)
        arrivals, t = [], 0.0
        for _ in range(n):
            arrivals.append(t)
            t += arng.expovariate(rate_rps)
    else:
        arrivals = [0.0] * n
    rids = [f"{c['id']}#{i}" for i in range(n)]
    submit = [None] * n
    sub_err = []
    t0 = time.perf_counter()

    def submitter():
        try:
            for i in range(n):
                wait = t0 + arrivals[i] - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                submit[i] = time.perf_counter()
                engine.add(prompts[i], rids[i], lengths[i][1])
        except Exception as exc:  # noqa: BLE001
            sub_err.append(err_text(exc))
    th = threading.Thread(target=submitter, name="arrivals", daemon=True)
    th.start()
    results = {}
    deadline = t0 + timeout_s
    while len(results) < n and time.perf_counter() < deadline and not sub_err:
        r = engine.manager.get_result(timeout=0.5)
        if r is None:
            if not engine.manager.is_running():
                raise RuntimeError("the generation thread died")
            continue
        if r.request_id in results or r.request_id not in rids:
            continue
        finished = getattr(r, "is_finished", lambda: True)()
        status = str(getattr(getattr(r, "status", None), "name", getattr(r, "status", None)))
        if finished or "FAIL" in status:
            results[r.request_id] = r
    th.join(timeout=5)
    t_end = time.perf_counter()
    reqs = []
    for i, rid in enumerate(rids):
        r = results.get(rid)
        rec = {"i": i, "input_tokens": lengths[i][0], "max_new_tokens": lengths[i][1],
               "arrival_scheduled_ms": round(arrivals[i] * 1e3, 3),
               "submit_ms": round((submit[i] - t0) * 1e3, 3) if submit[i] else None}
        if r is None:
            rec["missing"] = True
            reqs.append(rec)
            continue
        created = getattr(r, "created_time", None)
        life = getattr(r, "lifespan", (-1, -1))
        ts = getattr(r, "timestamps", None) or []
        out_n = len(getattr(r, "generated_tokens", []) or [])
        rec.update({"status": str(getattr(getattr(r, "status", None), "name", getattr(r, "status", None))),
                    "output_tokens": out_n, "error": getattr(r, "error", None)})

        def rel(x):
            return round((x - t0) * 1e3, 3) if x is not None and x > 0 else None
        rec["arrival_ms"] = rel(created)
        rec["scheduled_ms"] = rel(life[0])
        rec["finish_ms"] = rel(life[1])
        rec["first_token_ms"] = rel(ts[0]) if ts else None
        rec["last_token_ms"] = rel(ts[-1]) if ts else None
        rec["timestamps_recorded"] = len(ts)
        if ts and created:
            rec["ttft_ms"] = round((ts[0] - created) * 1e3, 3)
            if len(ts) > 1:
                rec["tpot_ms"] = round((ts[-1] - ts[0]) * 1e3 / (len(ts) - 1), 4)
                itl = [(b - a) * 1e3 for a, b in zip(ts, ts[1:])]
                rec["itl_median_ms"] = round(pct(itl, 50), 4)
                rec["itl_p90_ms"] = round(pct(itl, 90), 4)
                rec["itl_max_ms"] = round(max(itl), 4)
        if created and life[1] and life[1] > 0:
            rec["e2e_ms"] = round((life[1] - created) * 1e3, 3)
        if created and life[0] and life[0] > 0:
            rec["queue_ms"] = round((life[0] - created) * 1e3, 3)
        reqs.append(rec)
    ok = [r for r in reqs if not r.get("missing") and r.get("e2e_ms") is not None]
    run = {"requests": reqs, "requests_completed": len(ok), "requests_missing": n - len(results),
           "submit_errors": sub_err, "run_wall_s": round(t_end - t0, 3),
           "steps_columns": STEP_COLUMNS, "steps": engine.steps.between(t0, t_end)}
    if rate_rps:
        run["rate_rps"] = rate_rps
        late = [(submit[i] - t0 - arrivals[i]) * 1e3 for i in range(n) if submit[i]]
        run["submit_lateness_ms"] = {"median": pct(late, 50), "p90": pct(late, 90), "max": max(late) if late else None}
    if ok:
        first = min(r["arrival_ms"] for r in ok)
        last = max(r["finish_ms"] for r in ok)
        span_s = (last - first) / 1e3
        out_tok = sum(r["output_tokens"] for r in ok)
        in_tok = sum(r["input_tokens"] for r in ok)
        run["span_s"] = round(span_s, 4)
        run["throughput"] = {"requests_per_s": len(ok) / span_s, "output_tokens_per_s": out_tok / span_s,
                             "total_tokens_per_s": (out_tok + in_tok) / span_s, "output_tokens": out_tok,
                             "input_tokens": in_tok}
        for key in ("ttft_ms", "tpot_ms", "e2e_ms", "queue_ms", "itl_median_ms"):
            vals = [r[key] for r in ok if r.get(key) is not None]
            if vals:
                run[key.replace("_ms", "")] = {"mean_ms": sum(vals) / len(vals), "p50_ms": pct(vals, 50),
                                               "p90_ms": pct(vals, 90), "p99_ms": pct(vals, 99),
                                               "max_ms": max(vals), "n": len(vals)}
        steps = run["steps"]
        if steps:
            run["steps_summary"] = {"count": len(steps),
                                    "step_ms_median": pct([s[6] for s in steps if s[6] is not None], 50),
                                    "requests_max": max((s[1] or 0) for s in steps),
                                    "q_tokens_max": max((s[3] or 0) for s in steps)}
    return run


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="hf-cb.json")
    ap.add_argument("--budget-s", type=float, default=480)
    ap.add_argument("--hard-limit-s", type=float, default=None)
    ap.add_argument("--poisson-span-s", type=float, default=35.0)
    ap.add_argument("--run-timeout-s", type=float, default=150.0)
    ap.add_argument("--only", default=None)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    cases = cases_for(args.smoke)
    if args.only:
        cases = [c for c in cases if re.search(args.only, c["id"])]
    if args.dry_run:
        for c in cases:
            ln = request_lengths(c["mix_spec"], c["requests_planned"], c["seed"])
            print(c["id"], c["split"], f"in={sum(i for i, _ in ln)} out={sum(o for _, o in ln)}")
        print(f"{len(cases)} runs, {sum(c['split'] == 'holdout' for c in cases)} holdout", file=sys.stderr)
        return
    hard = args.hard_limit_s or args.budget_s + 60
    meta = start_meta(METHOD_TEXT, cpu_model=cpu_model(), cpu_count=os.cpu_count())
    meta["versions"]["transformers"] = transformers_version()
    device_meta(meta, ("device_name", "compute_capability", "sm_count", "total_memory_bytes", "l2_cache_bytes"))
    smi_start_meta(meta)
    meta["backend_flags"] = backend_flags()
    meta["config"] = vars(args)
    meta["engines"] = {}
    meta["skipped_ids"] = []
    meta["splits"] = {c["id"]: c["split"] for c in cases}
    doc = {"meta": meta, "records": []}

    def write():
        meta["utc_written"] = utc_now()
        meta["wall_s"] = round(elapsed_s(), 1)
        write_atomic(args.out, json.dumps(sanitize(doc), indent=1))

    def final():
        meta["watchdog_exit"] = True
        meta["nvidia_smi_end"] = nvidia_smi()
        write()
    start_watchdog(hard, final)
    import logging
    logging.getLogger("ContinuousBatchingLogger").setLevel(logging.ERROR)
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(20):
        a @ a
    torch.cuda.synchronize()
    del a
    meta["nvidia_smi_after_warmup"] = nvidia_smi()
    model, info = build_model()
    meta["model"] = info
    log(f"built model: {info['params']} params in {info['build_s']} s")
    vocab = model.config.vocab_size
    burst_rps, burst_span = {}, {}
    for engine_name in dict.fromkeys(c["engine"] for c in cases):
        ecases = [c for c in cases if c["engine"] == engine_name]
        if elapsed_s() > args.budget_s * 0.85:
            meta["skipped_ids"] += [c["id"] for c in ecases]
            continue
        max_new = max(max(o for _, o in request_lengths(c["mix_spec"], c["requests_planned"], c["seed"]))
                      for c in ecases)
        log(f"engine {engine_name}: init + warmup")
        try:
            eng = Engine(model, engine_name, max_new)
        except Exception as exc:  # noqa: BLE001
            meta["engines"][engine_name] = {"error": err_text(exc), "traceback": traceback.format_exc()[-3000:]}
            log(f"ENGINE ERROR {engine_name}: {err_text(exc)}")
            meta["skipped_ids"] += [c["id"] for c in ecases]
            write()
            continue
        meta["engines"][engine_name] = eng.info
        try:
            warm = run_requests(eng, {"id": f"warmup-{engine_name}"}, [(128, 16)] * 8, None, 1, 120, vocab)
            eng.info["warmup_run"] = {"run_wall_s": warm["run_wall_s"], "completed": warm["requests_completed"]}
            log(f"  warm-up run: {warm['run_wall_s']} s, {warm['requests_completed']}/8")
        except Exception as exc:  # noqa: BLE001
            eng.info["warmup_run_error"] = err_text(exc)
        write()
        broken = False
        for c in ecases:
            rec = {k: v for k, v in c.items() if k != "mix_spec"}
            rec.update({"model": MODEL, "layers": LAYERS})
            n = c["requests_planned"]
            lengths = request_lengths(c["mix_spec"], n, c["seed"])
            rate = None
            if c["arrival"] == "poisson":
                base = burst_rps.get((engine_name, c["mix"]))
                if base is None:
                    rec["error"] = "not run: no burst run of this mix and engine to take the rate from"
                    doc["records"].append(rec)
                    continue
                rate = c["rate_fraction_of_burst"] * base
                n_cap = max(48, int(rate * args.poisson_span_s))
                if n_cap < n:
                    n = n_cap
                    lengths = lengths[:n]
                rec["burst_requests_per_s"] = base
            rec["request_count"] = n
            est = (n / rate if rate else 0) + burst_span.get((engine_name, c["mix"]), 10) + 5
            if broken or elapsed_s() + est > args.budget_s:
                meta["skipped_ids"].append(c["id"])
                rec["skipped"] = True
                rec["error"] = "not run: engine broken" if broken else "not run: budget"
                doc["records"].append(rec)
                continue
            log(f"run {c['id']} n={n} rate={rate}")
            rec["utc_start"] = utc_now()
            try:
                run = run_requests(eng, c, lengths, rate, c["seed"], args.run_timeout_s, vocab)
                rec.update(run)
                if run["requests_missing"]:
                    rec["error"] = f"{run['requests_missing']} requests not finished within {args.run_timeout_s} s"
                    broken = True
                if c["arrival"] == "burst" and run.get("throughput"):
                    burst_rps[(engine_name, c["mix"])] = run["throughput"]["requests_per_s"]
                    burst_span[(engine_name, c["mix"])] = run["span_s"]
                th = run.get("throughput", {})
                log(f"   -> {run['requests_completed']}/{n} in {run['run_wall_s']} s, "
                    f"{th.get('output_tokens_per_s', 0):.0f} out tok/s, {th.get('requests_per_s', 0):.2f} req/s, "
                    f"TTFT p50 {run.get('ttft', {}).get('p50_ms')} ms, TPOT p50 {run.get('tpot', {}).get('p50_ms')} ms, "
                    f"steps {run.get('steps_summary')}")
            except Exception as exc:  # noqa: BLE001
                rec["error"] = err_text(exc)
                rec["traceback"] = traceback.format_exc()[-3000:]
                log(f"ERROR {c['id']}: {rec['error']}")
                broken = True
            if eng.steps.error:
                rec["step_log_error"] = eng.steps.error
            doc["records"].append(rec)
            write()
        eng.info["peak_memory_allocated_bytes"] = torch.cuda.max_memory_allocated()
        eng.stop()
        torch.cuda.reset_peak_memory_stats()
        write()
    meta["nvidia_smi_end"] = nvidia_smi()
    meta["utc_end"] = utc_now()
    write()
    log("done")
    os._exit(0)  # the engine's threads must not keep the process alive


if __name__ == "__main__":
    main()
