"""transformers' continuous-batching engine as measure_hf_cb.py drives it: the model, the manager
with its resolved configuration, the step log around the scheduler, and one run of requests.

Split out of measure_hf_cb.py (see that script and HF_CB.md for the method); the model is built
from a spec of hf_cb_models.MODELS (--model: the Llama-3-8B shape, or the Qwen3-MoE one). Imports
without torch (py_compile, --dry-run); what needs torch looks it up when called.
"""

import dataclasses
import gc
import inspect
import json
import random
import threading
import time
import traceback

from ridgeline_measure.harness import elapsed_s, err_text, percentile, sanitize
from ridgeline_measure.optional import torch


def log(msg):
    print(f"[{elapsed_s():7.1f}s] {msg}", flush=True)


def pct(vals, q):
    return percentile(sorted(vals), q) if vals else None


def build_model(spec):
    """spec (hf_cb_models.MODELS): transformers' classes by name, built under torch.device('cuda') with
    default dtype bf16, seed 0, attn_implementation 'sdpa'."""
    import transformers as tf
    cfg_cls, cls = getattr(tf, spec["config_class"], None), getattr(tf, spec["class"], None)
    if cfg_cls is None or cls is None:
        raise RuntimeError(f"transformers {getattr(tf, '__version__', '?')} has no "
                           f"{spec['config_class']} / {spec['class']}")
    cfg = cfg_cls(**spec["config"], attn_implementation="sdpa")
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    t = time.perf_counter()
    try:
        torch.manual_seed(0)
        with torch.device("cuda"):
            model = cls(cfg)
    finally:
        torch.set_default_dtype(old)
    model.eval()
    info = {"class": type(model).__name__, "build_s": round(time.perf_counter() - t, 2),
            "params": sum(p.numel() for p in model.parameters()), "layers": spec["layers"],
            "config": {k: v for k, v in cfg.to_dict().items() if isinstance(v, (int, float, str, bool))}}
    if spec.get("moe"):
        try:
            info.update(moe_info(model, spec))
        except Exception as exc:  # noqa: BLE001  (a record of the build, never a reason to stop)
            info["moe_info_error"] = err_text(exc)
    return model, info


def moe_info(model, spec):
    """What the MoE model's build resolved: the experts' implementation, its blocks, and where the built
    config differs from the model_config recorded (a renamed key reads through the config's
    attribute_map; a key the class moved, e.g. rope_theta into rope_parameters, shows here)."""
    info = {"config_class": type(model.config).__name__,
            "experts_implementation": getattr(model.config, "_experts_implementation", None),
            "param_dtype": str(next(model.parameters()).dtype)}
    try:
        info["mlp_classes"] = sorted({type(layer.mlp).__name__ for layer in model.model.layers})
        info["layer_classes"] = sorted({type(m).__name__ for m in model.model.layers[0].modules()})[:40]
    except Exception as exc:  # noqa: BLE001
        info["layer_classes_error"] = err_text(exc)
    missing = object()
    diff = {}
    for k, v in spec["model_config"].items():
        if k in ("architectures", "torch_dtype", "dtype"):
            continue
        got = getattr(model.config, k, missing)
        if got is missing or got != v:
            diff[k] = {"model_config": v, "built": "(no attribute)" if got is missing else plain(got)}
    info["model_config_vs_built"] = diff
    return info


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
