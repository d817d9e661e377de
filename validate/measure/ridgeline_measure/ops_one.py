"""measure_ops.py's per-op step and op list: one op measured under its own
guard (an error is recorded, the run goes on), alternatives timed on the same
sets, the op list read, interleaved across families, and written one record a
line.
"""

import collections
import contextlib
import gc
import json
import time
import traceback

from .optional import torch

from .harness import elapsed_s, err_text, log, sanitize
from . import device
from .device import BIG_OP_BYTES
from .environment import read_tf32_flag
from .harness import cuda_alive as _cuda_alive
from .harness import write_atomic
from .ops_builders import build_bench
from .ops_timing import choose_impl, make_sets, plan_sets, profile_kernels, time_op
from .profiling import sdpa_backend_guess


# ---------------------------------------------------------------------------
# One op
# ---------------------------------------------------------------------------

def measure_impl(candidates, sets, cfg):
    """Chooses an implementation, times it, profiles it."""
    name, run = choose_impl(candidates, sets[0])
    result = {"impl": name}
    result.update(time_op(run, sets, torch.cuda.Stream(), cfg))
    if cfg.profile:
        result.update(profile_kernels(run, sets[0]))
    return result


ALT_KEYS = ("measured_us", "p10_us", "p90_us", "launches", "sets", "reps",
            "method", "kernels", "kernels_per_call", "capture_error",
            "profile_error")


def measure_op(op, cfg, rec):
    """Fills rec (in place, so partial results survive an exception)."""
    bench = build_bench(op)
    if "counts" in op:  # a routed grouped GEMM's drawn rows per expert
        rec["counts"] = op["counts"]
    warm = bool(op.get("warm_l2"))
    rec["bytes_per_set"] = bench.bytes_per_set
    with bench.flags():
        if op["op"] == "gemm" and op["dtype"] in ("fp32", "tf32"):
            rec["tf32_flag"] = read_tf32_flag()
        sets = make_sets(bench, plan_sets(bench.bytes_per_set, warm, cfg))
        try:
            rec.update(measure_impl(bench.candidates, sets, cfg))
        except torch.cuda.OutOfMemoryError:
            raise
        except Exception as exc:
            if not bench.alt_candidates:
                raise
            rec["error"] = err_text(exc)
        if bench.alt_candidates:
            try:
                alt = measure_impl(bench.alt_candidates, sets, cfg)
                rec["alt_impl"] = alt["impl"]
                for key in ALT_KEYS:
                    if key in alt:
                        rec["alt_" + key] = alt[key]
            except torch.cuda.OutOfMemoryError:
                raise
            except Exception as exc:
                rec["alt_error"] = err_text(exc)
    n_sets = rec.get("sets", rec.get("alt_sets", len(sets)))
    rec["rotation_bytes"] = n_sets * bench.bytes_per_set
    rec["l2_cold"] = (not warm) and rec["rotation_bytes"] >= cfg.l2_factor * cfg.l2_bytes
    if op["op"] == "attention":
        rec["sdpa_backend"] = sdpa_backend_guess(rec.get("kernels", []))


def cuda_alive():
    return _cuda_alive(device.DEVICE)


def run_one(op, cfg):
    """Measures one op; never raises (except Interrupted / KeyboardInterrupt)."""
    rec = dict(op)
    t_start = time.monotonic()
    with contextlib.suppress(Exception):
        torch.cuda.reset_peak_memory_stats()
    failed = False
    try:
        measure_op(op, cfg, rec)
    except torch.cuda.OutOfMemoryError as exc:
        rec["error"] = err_text(exc, "OOM: ")
        failed = True
    except Exception as exc:
        rec["error"] = err_text(exc)
        rec["traceback"] = traceback.format_exc(limit=4)[-1500:]
        failed = True
    rec["wall_s"] = round(time.monotonic() - t_start, 3)
    with contextlib.suppress(Exception):
        rec["peak_mem_bytes"] = torch.cuda.max_memory_allocated()
    if failed:
        gc.collect()
    if failed or rec.get("peak_mem_bytes", 0) > BIG_OP_BYTES:
        with contextlib.suppress(Exception):
            torch.cuda.empty_cache()
    return rec


# ---------------------------------------------------------------------------
# Op list, ordering, output
# ---------------------------------------------------------------------------

def load_ops(path):
    ops = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                ops.append(json.loads(line))
    return ops


def interleave_key(op):
    """Fine family used for ordering: gemm dtype, attention phase, ..."""
    kind = op.get("op")
    if kind == "gemm":
        return f"gemm-{op.get('dtype')}-{'b' if op.get('batch') else ''}"
    if kind == "attention":
        phase = "decode" if op.get("q_len") == 1 else (
            "prefill" if op.get("q_len") == op.get("kv_len") else "chunk")
        return f"attention-{phase}-{op.get('head_dim')}"
    return f"{kind}-{op.get('dtype')}-{bool(op.get('warm_l2'))}"


def interleave(ops):
    """Spreads each fine family evenly over the run (a budget cut then drops
    the same fraction of every family, and clocks/thermals drift evenly).
    Within a family the input order is kept."""
    counts = collections.Counter(interleave_key(op) for op in ops)
    seen = collections.Counter()
    keyed = []
    for pos, op in enumerate(ops):
        fam = interleave_key(op)
        keyed.append(((seen[fam] + 0.5) / counts[fam], pos, op))
        seen[fam] += 1
    keyed.sort(key=lambda t: (t[0], t[1]))
    return [op for _, _, op in keyed]


def family(op):
    if op.get("op") == "gemm":
        return f"gemm-{op.get('dtype')}"
    return str(op.get("op"))


def write_output(path, meta, records):
    """Atomic write; one record a line so that the file diffs well."""
    body = ",\n".join(json.dumps(sanitize(r)) for r in records)
    text = ('{"meta": ' + json.dumps(sanitize(meta), indent=1) +
            ',\n"records": [\n' + body + "\n]}\n")
    write_atomic(path, text)


def progress_line(i, total, rec):
    head = f"[{i:>3}/{total}] {rec['id'][:58]:<58}"
    if "measured_us" in rec:
        body = (f"{rec['measured_us']:>11.2f} us  {rec['method']:<5} "
                f"L={rec['launches']:<3} S={rec['sets']:<2} R={rec['reps']:<2} "
                f"k/call={rec.get('kernels_per_call')}")
        if "alt_measured_us" in rec:
            body += f"  alt={rec['alt_measured_us']:.2f} us"
    elif "alt_measured_us" in rec:
        body = (f"ERROR {rec.get('error', '')[:60]}  "
                f"alt={rec['alt_measured_us']:.2f} us")
    else:
        body = "ERROR " + str(rec.get("error", rec.get("alt_error", "?")))[:100]
    return f"{head} {body}  t={elapsed_s():.0f}s"


def print_summary(records, skipped):
    rows = collections.OrderedDict()
    for rec in records:
        row = rows.setdefault(family(rec), collections.Counter())
        row["total"] += 1
        row["ok" if "measured_us" in rec else "error"] += 1
        row["eager"] += rec.get("method") == "eager"
        row["alt_ok"] += "alt_measured_us" in rec
    log("")
    log(f"{'family':<14} {'total':>5} {'ok':>5} {'error':>5} {'eager':>5} {'alt':>5}")
    for fam, c in sorted(rows.items()):
        log(f"{fam:<14} {c['total']:>5} {c['ok']:>5} {c['error']:>5} "
            f"{c['eager']:>5} {c['alt_ok']:>5}")
    errors = [r for r in records if "error" in r]
    for rec in errors[:15]:
        log(f"  error {rec['id']}: {str(rec['error'])[:140]}")
    if len(errors) > 15:
        log(f"  ... and {len(errors) - 15} more errors")
    log(f"measured {len(records)} ops, skipped {len(skipped)}, "
        f"wall {elapsed_s():.0f}s")
