"""The guard around a measurement run's main loop, shared by every entry script.

A run must always leave a file: an interrupt (SIGTERM, Ctrl-C) or a bug outside
the per-case guard is recorded in meta ("interrupted", or "fatal_error" with
its traceback) instead of escaping, then SIGTERM is ignored so the final write
finishes, and close() stamps the end (stamp_end) and writes the file.
"""

import signal
import traceback

from .environment import nvidia_smi
from .harness import Interrupted, elapsed_s, err_text, log, utc_now


def run_guarded(meta_of, body, close):
    """Runs body(), recording an interrupt or a bug in meta_of() (the run's meta
    as it is then), and always calls close()."""
    try:
        body()
    except (Interrupted, KeyboardInterrupt) as exc:
        meta = meta_of()
        meta["interrupted"] = str(exc) or type(exc).__name__
        log(f"interrupted ({meta['interrupted']}); writing what was measured")
    except Exception as exc:   # a bug outside the per-case guard: keep the data
        meta = meta_of()
        meta["fatal_error"] = err_text(exc)
        meta["fatal_traceback"] = traceback.format_exc()[-3000:]
        log("fatal: " + meta["fatal_error"])
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)   # let the write finish
        close()


def stamp_end(meta):
    """The end of a run in its meta: clocks and power, time, wall seconds."""
    meta["nvidia_smi_end"] = nvidia_smi()
    meta["utc_end"] = utc_now()
    meta["wall_s"] = round(elapsed_s(), 1)
