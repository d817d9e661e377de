"""Process clock, logging, statistics and output writing of every measurement.

The budget of a run counts from process start (T0, set when the entry script
first imports this module). A run writes its file atomically (a temporary
file, then a rename) so a killed run never leaves half a file, and a watchdog
thread writes what was measured and exits past the hard limit even when the
main thread is stuck in a CUDA call.
"""

import contextlib
import datetime
import gc
import math
import os
import threading
import time

T0 = time.monotonic()   # the budget counts from process start
from .optional import torch


def log(msg):
    print(msg, flush=True)


def elapsed_s():
    return time.monotonic() - T0


def err_text(exc, prefix=""):
    text = f"{type(exc).__name__}: {exc}"
    return (prefix + text)[:1500]


def percentile(sorted_vals, q):
    """Linear-interpolated percentile of an already sorted list, q in [0, 100]."""
    if not sorted_vals:
        return None
    pos = (len(sorted_vals) - 1) * q / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def clamp(x, lo, hi):
    return max(lo, min(hi, x))


def sanitize(obj):
    """Makes obj JSON-safe: non-finite floats become None, odd types str."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): sanitize(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [sanitize(v) for v in obj]
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    return str(obj)


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class Interrupted(BaseException):
    """Raised by the SIGTERM handler so the main loop can write its output."""


def _on_sigterm(signum, frame):
    raise Interrupted(f"signal {signum}")


def new_event():
    return torch.cuda.Event(enable_timing=True)


@contextlib.contextmanager
def gc_paused():
    """No cyclic garbage collection inside a timed loop."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def cuda_alive(device="cuda"):
    """Whether the GPU still runs a kernel (after an error that may have broken the context)."""
    try:
        x = torch.ones(16, device=device)
        x.add_(1)
        torch.cuda.synchronize()
        return True
    except Exception:
        return False


def write_atomic(path, text):
    """Writes text to path through a temporary file and a rename."""
    tmp = f"{path}.tmp{threading.get_ident()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def start_watchdog(limit_s, write_final, poll_s=1.0):
    """Hard stop: past limit_s, call write_final() (three tries: the main
    thread may be changing what it writes) and exit with status 3, even if the
    main thread is stuck in a CUDA call."""
    def watch():
        while elapsed_s() < limit_s:
            time.sleep(poll_s)
        log(f"hard limit of {limit_s:.0f}s reached: writing and exiting")
        for _ in range(3):
            try:
                write_final()
                break
            except Exception:        # what it writes changed under us: try again
                time.sleep(0.2)
        os._exit(3)

    thread = threading.Thread(target=watch, name="watchdog", daemon=True)
    thread.start()
    return thread
