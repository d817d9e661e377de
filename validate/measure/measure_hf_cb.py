#!/usr/bin/env python3
"""Measure transformers' own continuous batching (paged attention) on one GPU, per request.

    python3 measure_hf_cb.py --out cb.json [--budget-s 480] [--smoke] [--only REGEX]
    python3 measure_hf_cb.py --model qwen3-moe-l24 --out cb-moe.json --budget-s 400 --hard-limit-s 460
    python3 measure_hf_cb.py --dry-run [--model M] [--engines E,..] [--mixes M,..]   # needs no torch

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
async batching) is recorded per engine. METHOD_TEXT is the method (also meta.method, HF_CB.md);
the engine side (model, manager, step log, one run of requests) is hf_cb_engine.py.

--model qwen3-moe-l24 serves a Mixture-of-Experts model instead: transformers' Qwen3MoeForCausalLM,
Qwen3-30B-A3B shape, 24 of its 48 layers, built the same way (hf_cb_models.py), with its own shorter
run list (engines default and cudagraph, mixes in512-out256 and lognormal, burst and Poisson) whose
ids carry the model (hf-cb-qwen3-moe-L24-...) and whose records carry model_config (the config as a
config.json); the default (llama3-8b) is the 2026-12-01 run, unchanged. --engines / --mixes keep
only the named engines / mixes; for a model with step-time priors --dry-run also prints each run's
estimated span and end, with the budget guard replayed.
"""

import argparse
import json
import math
import os
import random
import re
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from op_grid import split_of  # noqa: E402  (the project's stable 30% holdout hash)
from ridgeline_measure.harness import elapsed_s, err_text, utc_now  # noqa: E402
from ridgeline_measure.environment import nvidia_smi  # noqa: E402
from ridgeline_measure.hf_run import hf_run_meta, start_doc_writer, warm_gpu  # noqa: E402
from ridgeline_measure.optional import torch  # noqa: E402
from hf_cb_engine import Engine, build_model, log, run_requests  # noqa: E402
from hf_cb_models import MODELS, plan  # noqa: E402

ENGINE_METHOD = (
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
    "the number of those requests whose status was not DECODING when scheduled (i.e. prefilling); "
    "step_ms = time between consecutive calls. "
    "Percentiles linear-interpolated. Split: each run record split_of(id) (sha256 of the id, "
    "30% holdout), as op_grid.py does.")
METHOD_TEXT = MODELS["llama3-8b"]["method_model"] + ENGINE_METHOD
MOE_POISSON_N = 24


def method_text(spec):
    if spec is MODELS["llama3-8b"]:
        return METHOD_TEXT
    return spec["method_model"] + ENGINE_METHOD.replace("(96 planned)", f"({MOE_POISSON_N} planned)")


# ---------------------------------------------------------------------------
# Case list (pure Python)
# ---------------------------------------------------------------------------

def mix_name(mix):
    return "lognormal" if mix == "lognormal" else f"in{mix[0]}-out{mix[1]}"


def case(engine, mix, n, arrival, fraction=None, spec=MODELS["llama3-8b"]):
    arr = "burst" if arrival == "burst" else f"poisson{fraction:g}"
    cid = f"hf-cb-{spec['tag']}-L{spec['layers']}-{engine}-{mix_name(mix)}-n{n}-{arr}"
    # the request set (lengths, prompts, arrival draws) is the same for both engines
    seed = seed_of(f"{mix_name(mix)}-n{n}-{arr}")
    return {"id": cid, "split": split_of(cid), "kind": "cb_run", "seed": seed, "engine": engine, "mix": mix_name(mix),
            "mix_spec": mix, "requests_planned": n, "arrival": "burst" if arrival == "burst" else "poisson",
            "rate_fraction_of_burst": fraction}


def cases_for(smoke=False, model="llama3-8b"):
    spec = MODELS[model]
    if smoke:
        return [case(e, (128, 16), 16, a, 0.5 if a == "poisson" else None, spec)
                for e in ("default", "cudagraph") for a in ("burst", "poisson")]
    if spec.get("moe"):
        return moe_cases(spec)
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


def moe_cases(spec):
    """The MoE model's run list, sized for ~400 s on an H100 (--dry-run shows the plan): per engine a
    burst of 64 requests of each mix, then Poisson runs of MOE_POISSON_N requests at half the burst
    throughput, in512-out256 on both engines and lognormal (whose 384-token outputs make a long
    tail) on the cudagraph one."""
    out = []
    for engine in ("default", "cudagraph"):
        for mix in ((512, 256), "lognormal"):
            out.append(case(engine, mix, 64, "burst", None, spec))
        for mix in ((512, 256),) if engine == "default" else ((512, 256), "lognormal"):
            out.append(case(engine, mix, MOE_POISSON_N, "poisson", 0.5, spec))
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


def dry_run(cases, spec, args):
    """The run list; for a model with step-time priors, each run's estimated span and end (s), the
    script's budget guards replayed (hf_cb_models.plan)."""
    def lengths_of(c):
        return request_lengths(c["mix_spec"], c["requests_planned"], c["seed"])
    planned = plan(cases, lengths_of, spec, args.budget_s, args.poisson_span_s)
    for k, c in enumerate(cases):
        ln = lengths_of(c)
        line = f"{c['id']} {c['split']} in={sum(i for i, _ in ln)} out={sum(o for _, o in ln)}"
        if planned:
            _, n, span, end, what = planned[k]
            line += (f" n={n} est~{span:.0f}s end~{end:.0f}s" if what == "run" else
                     f" n={n} SKIPPED by the budget guard at ~{end:.0f}s")
        print(line)
    summary = f"{len(cases)} runs, {sum(c['split'] == 'holdout' for c in cases)} holdout"
    if planned:
        end = planned[-1][3]
        summary += (f"; estimated end ~{end:.0f} s with --budget-s {args.budget_s:g} (hard limit "
                    f"{args.hard_limit_s or args.budget_s + 60:g} s), {sum(p[4] == 'skip' for p in planned)} "
                    "skipped; step priors are a guess, see hf_cb_models.py")
    print(summary, file=sys.stderr)


# ---------------------------------------------------------------------------
# Engine
# ---------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="hf-cb.json")
    ap.add_argument("--budget-s", type=float, default=480)
    ap.add_argument("--hard-limit-s", type=float, default=None)
    ap.add_argument("--poisson-span-s", type=float, default=35.0)
    ap.add_argument("--run-timeout-s", type=float, default=150.0)
    ap.add_argument("--only", default=None)
    ap.add_argument("--model", choices=list(MODELS), default="llama3-8b")
    ap.add_argument("--engines", default=None, help="comma list: keep only these engines (default, cudagraph)")
    ap.add_argument("--mixes", default=None, help="comma list: keep only these mixes (e.g. in512-out256,lognormal)")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    spec = MODELS[args.model]
    cases = cases_for(args.smoke, args.model)
    for key, opt, given in (("engine", "--engines", args.engines), ("mix", "--mixes", args.mixes)):
        if given:
            names = given.split(",")
            unknown = sorted(set(names) - {c[key] for c in cases})
            if unknown:
                ap.error(f"{opt}: {unknown} not in this run list ({sorted({c[key] for c in cases})})")
            cases = [c for c in cases if c[key] in names]
    if args.only:
        cases = [c for c in cases if re.search(args.only, c["id"])]
    if args.dry_run:
        dry_run(cases, spec, args)
        return
    hard = args.hard_limit_s or args.budget_s + 60
    meta = hf_run_meta(method_text(spec), args)
    meta["engines"] = {}
    meta["skipped_ids"] = []
    meta["splits"] = {c["id"]: c["split"] for c in cases}
    doc = {"meta": meta, "records": []}
    write = start_doc_writer(args.out, doc, hard)
    import logging
    logging.getLogger("ContinuousBatchingLogger").setLevel(logging.ERROR)
    warm_gpu()
    meta["nvidia_smi_after_warmup"] = nvidia_smi()
    if spec.get("model_config"):
        meta["model_config"] = spec["model_config"]
    model, info = build_model(spec)
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
            rec.update({"model": spec["model"], "layers": spec["layers"]})
            if spec.get("model_config"):
                rec["model_config"] = spec["model_config"]
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
                    f"TTFT p50 {run.get('ttft', {}).get('p50_ms')} ms, "
                    f"TPOT p50 {run.get('tpot', {}).get('p50_ms')} ms, "
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
