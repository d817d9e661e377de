#!/usr/bin/env python3
"""Measure the device time of every op in an op grid on one NVIDIA GPU.

    python3 measure_ops.py --input ops.jsonl --out results.json \
        [--budget-s 420] [--only REGEX | --only-ops REGEX]

Reads the op list written by op_grid.py (one JSON object a line) and, for
each op, measures "the device time of one kernel replayed back to back, as
in a CUDA graph, with its inputs not left in L2 by an earlier launch" -- the
quantity ridgeline predicts.  The method, per op:

  1. Build S independent input/output sets with torch.randn (never zeros, so
     power and clocks are those of real data), S large enough that the sets
     together span >= 3x the L2 size (S <= 64, S x set <= ~24 GB).  An op
     marked "warm_l2" uses S = 1: the same buffers every launch.
  2. Pick the implementation (first of a short list of candidates that runs;
     out= variants first so that the timed region launches only the op's own
     kernels), warm it up eagerly on a side stream (cuBLAS / Triton
     autotuning, handle and workspace creation), and estimate its per-call
     time with CUDA events.
  3. Capture one CUDA graph whose body calls the op L times, cycling through
     the S sets, with L chosen so that one replay takes ~12 ms.  Replay it
     twice to warm, then time R replays one by one with CUDA events
     (R chosen so that the timed part is ~0.15 s).  Time per call = replay
     time / L; median, p10 and p90 over the R replays are recorded.  If the
     capture fails, L eager calls back to back are timed instead
     (method "eager").
  4. Profile two eager calls with torch.profiler (CUDA activity only) to
     record the names of the kernels that ran and how many per call.

Every op runs under try/except (the error is recorded and the run goes on);
no new op starts after --budget-s seconds; the output file is rewritten every
25 ops and at the end (also on SIGTERM / Ctrl-C), so a killed run loses
little.  Needs torch with CUDA and triton (for the fused silu_mul and the
alternative RMSNorm / LayerNorm / softmax kernels); everything else is the
standard library.
"""

import argparse
import contextlib
import copy
import gc
import os
import re
import shutil
import signal
import sys

# The harness shared with measure_models.py and measure_launch.py; importing it needs no GPU.
from ridgeline_measure.environment import MIB, backend_flags, detect_l2_bytes, nvidia_smi
from ridgeline_measure.harness import (_on_sigterm, elapsed_s, log, percentile, sanitize,
                                       utc_now)
from ridgeline_measure.harness import start_watchdog as harness_watchdog  # noqa: E402
from ridgeline_measure.run import run_guarded, stamp_end  # noqa: E402
from ridgeline_measure.environment import device_meta, smi_start_meta, start_meta
# The op-specific steps, in the package beside the harness (imported here also for the tests).
from ridgeline_measure.ops_one import (cuda_alive, interleave, interleave_key, load_ops,
                                       print_summary, progress_line, run_one, write_output)
from ridgeline_measure.ops_timing import Config, choose_launches, plan_sets
from ridgeline_measure import device  # noqa: E402  (a CPU smoke test sets device.DEVICE)
from ridgeline_measure.ops_triton import triton_preflight  # noqa: E402
# Re-exported for test_op_grid.py, which checks the planning helpers through this script.
__all__ = ["Config", "choose_launches", "interleave", "interleave_key", "percentile", "plan_sets",
           "sanitize"]


from ridgeline_measure.optional import torch

# Re-measured at the start, every REFERENCE_EVERY ops and at the end, to show
# clock / thermal drift and any lasting effect of the profiler on timings.
REFERENCE_OPS = (
    {"id": "ref-gemm-bf16-4096x4096x4096", "op": "gemm", "m": 4096,
     "n": 4096, "k": 4096, "dtype": "bf16"},
    {"id": "ref-ew-copy-bf16-n67108864", "op": "elementwise", "kind": "copy",
     "numel": 1 << 26, "dtype": "bf16"},
)
REFERENCE_EVERY = 150

METHOD_TEXT = (
    "Each op is timed as the device time of one call replayed back to back "
    "inside a CUDA graph, with inputs not left in L2 by an earlier launch: "
    "S independent randn input/output sets (S x bytes >= 3 x L2, S <= 64, "
    "S x bytes <= ~24 GB; S = 1 for warm_l2 ops, which reuse the same "
    "buffers) are cycled through by a graph that calls the op L times "
    "(L <= 400, a multiple of S, one replay ~12 ms). After eager warm-up on "
    "a side stream (>= 3 calls, so cuBLAS/Triton choose and load their "
    "kernels) and 2 warm replays, R (5..30) replays are timed one by one "
    "with CUDA events; measured_us is the median of replay/L, p10_us and "
    "p90_us the 10th/90th percentiles. If capture fails, L eager calls are "
    "timed back to back instead (method 'eager'). Kernel names and kernels "
    "per call come from torch.profiler over 2 eager calls. Implementations: "
    "GEMM torch.mm/bmm(out=) (fp32: allow_tf32 False; tf32: True), fp8 "
    "torch._scaled_mm(e4m3 row-major A, column-major B, unit fp32 scales, "
    "bf16 out); attention F.scaled_dot_product_attention(enable_gqa when "
    "kv_heads != heads, backend left to PyTorch); elementwise torch out= "
    "ops, silu_mul a fused Triton kernel (alt: unfused torch); reduce "
    "torch.sum(out=); rmsnorm F.rms_norm (alt: single-kernel Triton "
    "RMSNorm); layernorm F.layer_norm (alt: single-pass Triton LayerNorm, "
    "one program per row, row held in registers in fp32); softmax "
    "aten._softmax.out (alt: single-pass Triton softmax, likewise, cols <= "
    "32768). Alternatives are timed on the same sets with the same rules; "
    "a Triton kernel that fails the preflight check against torch in fp32 "
    "(max|err|/max|ref| >= 1e-2 in bf16) is recorded as alt_error.")


# ---------------------------------------------------------------------------
# Small utilities
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Environment description (meta)
# ---------------------------------------------------------------------------


def collect_meta(args, cfg):
    meta = start_meta(METHOD_TEXT)
    device_meta(meta)
    meta["l2_cache_bytes"] = cfg.l2_bytes
    meta["l2_cache_from_device_properties"] = cfg.l2_from_props
    smi_start_meta(meta)
    meta["backend_flags"] = backend_flags()
    meta["c_compiler"] = shutil.which(os.environ.get("CC", "") or "cc") or shutil.which("gcc")
    meta["config"] = dict(vars(cfg))
    meta["env"] = {k: os.environ[k] for k in sorted(os.environ)
                   if k.startswith(("CUDA_", "PYTORCH_", "TORCH_", "TRITON_",
                                    "CUBLAS", "NVIDIA_"))}
    return meta


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description="Measure op device times on one NVIDIA GPU (see docstring).")
    ap.add_argument("--input", required=True, help="ops.jsonl from op_grid.py")
    ap.add_argument("--out", required=True, help="results JSON to write")
    ap.add_argument("--budget-s", type=float, default=420.0,
                    help="start no new op after this many seconds (default 420)")
    ap.add_argument("--hard-limit-s", type=float, default=None,
                    help="write the output and exit after this many seconds "
                         "even if an op hangs (default budget + 120)")
    ap.add_argument("--only", "--only-ops", dest="only", default=None, metavar="REGEX",
                    help="measure only ops whose id matches this regex (re.search); "
                         "ids start with the op name, e.g. '^(layernorm|softmax)-'")
    ap.add_argument("--max-ops", type=int, default=None, help="stop after this many ops")
    ap.add_argument("--order", choices=("interleave", "file"), default="interleave",
                    help="op order: families spread evenly (default) or file order")
    ap.add_argument("--target-replay-ms", type=float, default=12.0)
    ap.add_argument("--timed-s", type=float, default=0.15)
    ap.add_argument("--max-launches", type=int, default=400)
    ap.add_argument("--max-sets", type=int, default=64)
    ap.add_argument("--mem-cap-gb", type=float, default=24.0)
    ap.add_argument("--no-profile", action="store_true",
                    help="skip the torch.profiler kernel-name pass")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the ops in run order and exit (no GPU needed)")
    return ap.parse_args(argv)


def select_ops(args):
    ops = load_ops(args.input)
    if args.only:
        pattern = re.compile(args.only)
        ops = [op for op in ops if pattern.search(op["id"])]
    if args.order == "interleave":
        ops = interleave(ops)
    if args.max_ops is not None:
        ops = ops[:args.max_ops]
    return ops


def preflight(meta):
    """Initialises CUDA, cuBLAS and Triton once, outside any op's timing."""
    torch.manual_seed(0)
    a = torch.randn(256, 256, device=device.DEVICE, dtype=torch.bfloat16)
    torch.mm(a, a.t())
    torch.cuda.synchronize()
    meta["triton_preflight"] = triton_preflight()
    # torch.cuda.graph() runs gc.collect() at every capture; freezing the
    # objects that exist now (torch's own) keeps those collections cheap.
    gc.collect()
    gc.freeze()


def reference_check(cfg, meta, label):
    """Times the reference ops (no profiling) and appends them to meta."""
    ref_cfg = copy.copy(cfg)
    ref_cfg.profile = False
    entry = {"label": label, "elapsed_s": round(elapsed_s(), 1)}
    with torch.no_grad():
        for op in REFERENCE_OPS:
            rec = run_one(op, ref_cfg)
            entry[op["id"]] = rec.get("measured_us", rec.get("error"))
    smi = nvidia_smi()
    if smi.get("gpus"):
        gpu = smi["gpus"][0]
        entry["smi"] = {k: gpu.get(k) for k in ("clocks.sm", "power.draw",
                                                "temperature.gpu")}
    meta.setdefault("reference_checks", []).append(entry)
    log(f"reference ({label}): " + "  ".join(
        f"{k}={v:.1f}us" if isinstance(v, float) else f"{k}={v}"
        for k, v in entry.items() if k.startswith("ref-")))


def start_watchdog(limit_s, out_path, meta, records):
    """Hard stop past limit_s: writes what was measured and exits (harness.start_watchdog)."""
    def write_final():
        snapshot = dict(meta)            # meta may change under us: the watchdog tries again
        snapshot["hard_limit_hit_s"] = round(elapsed_s(), 1)
        snapshot["utc_end"] = utc_now()
        write_output(out_path, snapshot, list(records))

    return harness_watchdog(limit_s, write_final)


def run_all(ops, args, cfg, meta, records, skipped):
    """The measurement loop; appends to records and skipped (ids) in place,
    so that an interrupt keeps what was measured."""
    total = len(ops)
    with torch.no_grad():
        for i, op in enumerate(ops):
            if elapsed_s() > cfg.budget_s:
                skipped.extend(o["id"] for o in ops[i:])
                log(f"budget of {cfg.budget_s:.0f}s used: skipping {len(skipped)} ops")
                break
            rec = run_one(op, cfg)
            records.append(rec)
            log(progress_line(i + 1, total, rec))
            if "error" in rec and not cuda_alive():
                meta["cuda_context_lost_at"] = op["id"]
                skipped.extend(o["id"] for o in ops[i + 1:])
                log("CUDA context is no longer usable; stopping")
                break
            if (i + 1) % 25 == 0:
                write_output(args.out, meta, records)
            if (i + 1) % REFERENCE_EVERY == 0 and i + 1 < total:
                reference_check(cfg, meta, f"after {i + 1} ops")
    if "cuda_context_lost_at" not in meta:
        reference_check(cfg, meta, "end")


def main(argv=None):
    args = parse_args(argv)
    ops = select_ops(args)
    if args.dry_run:
        with contextlib.suppress(BrokenPipeError):
            for i, op in enumerate(ops):
                print(f"{i + 1:>4} {op['id']}")
            sys.stdout.flush()
        return 0
    if torch is None or not torch.cuda.is_available():
        log("error: torch with CUDA is required")
        write_output(args.out, {"error": "torch with CUDA is not available",
                                "utc_start": utc_now()}, [])
        return 2
    signal.signal(signal.SIGTERM, _on_sigterm)
    cfg = Config(args)
    cfg.l2_bytes, cfg.l2_from_props = detect_l2_bytes()
    meta = collect_meta(args, cfg)
    meta["ops_selected"] = len(ops)
    log(f"{meta.get('device_name')}  L2={cfg.l2_bytes / MIB:.0f} MiB  "
        f"torch {meta['versions']['torch']}  triton {meta['versions']['triton']}  "
        f"{len(ops)} ops, budget {cfg.budget_s:.0f}s")
    records, skipped = [], []

    def body():
        start_watchdog(cfg.hard_limit_s, args.out, meta, records)
        preflight(meta)
        log(f"triton preflight: {meta['triton_preflight']}")
        reference_check(cfg, meta, "start")
        run_all(ops, args, cfg, meta, records, skipped)

    def close():
        done = {r["id"] for r in records}
        if not skipped:
            skipped.extend(op["id"] for op in ops if op["id"] not in done)
        meta["skipped_ids"] = skipped
        meta["records"] = len(records)
        stamp_end(meta)
        write_output(args.out, meta, records)
        log(f"wrote {args.out}")

    run_guarded(lambda: meta, body, close)
    print_summary(records, skipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
