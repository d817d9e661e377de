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
import os
import re
import signal
import sys
import time
import json

# The harness shared with measure_ops.py and measure_launch.py; importing it needs no GPU.
from ridgeline_measure.environment import (backend_flags, cpu_model, nvidia_smi,
                                           transformers_version)
from ridgeline_measure.harness import (_on_sigterm, cuda_alive, elapsed_s, log, sanitize,
                                       utc_now, write_atomic)
from ridgeline_measure.harness import start_watchdog as harness_watchdog  # noqa: E402
from ridgeline_measure.run import run_guarded, stamp_end  # noqa: E402
from ridgeline_measure.environment import (DEVICE_FIELDS, device_meta,  # noqa: E402
                                           smi_start_meta, start_meta)
# The grid and the per-case steps, in the package beside the harness (measure_moe.py reads
# MODEL_SPECS, make_case, moe_spec, METHOD_TEXT, lm and device through this module).
from ridgeline_measure import device  # noqa: E402  (a CPU smoke test sets device.DEVICE)
from ridgeline_measure.models_case import run_case  # noqa: E402
from ridgeline_measure.models_cases import (GIB, GRID, METHOD_TEXT, MODEL_SPECS, ROPE_LEN,
                                            case_counts, llama_config, make_case, model_config,
                                            model_parameters, moe_spec)
from ridgeline_measure.models_steps import State  # noqa: E402
__all__ = ["METHOD_TEXT", "MODEL_SPECS", "device", "lm", "log", "main", "make_case", "moe_spec"]

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from ridgeline_measure.optional import torch

from ridgeline_measure.models_cases import lm  # noqa: E402


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
    meta = start_meta(GRID["method"], cpu_model=cpu_model(), cpu_count=os.cpu_count(),
                      grid=GRID["name"])
    key = "transformers_installed_not_used" if GRID["name"] == "llama" else "transformers"
    meta["versions"][key] = transformers_version()
    props = device_meta(meta, DEVICE_FIELDS + ("l2_cache_bytes",))
    if props is not None:
        cfg.total_mem = props.total_memory
    smi_start_meta(meta)
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
    a = torch.randn(4096, 4096, device=device.DEVICE, dtype=torch.bfloat16)
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
        if failed and not rec.get("oom_predicted") and not cuda_alive(device.DEVICE):
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
