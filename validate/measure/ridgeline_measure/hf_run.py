"""The run harness of the scripts over measure_hf.py (measure_hf_compile.py, measure_hf_families.py,
measure_hf_cb.py): the data file's meta as each starts it (method, machine, versions, device,
nvidia-smi clocks, backend switches, the command line), the document's write() (rewritten after
every case, atomically) with the watchdog's final() at the hard limit, and the GPU warm-up before
the first timing (clocks up, lazy CUDA initialisation done).
"""

import json
import os

from .environment import (backend_flags, cpu_model, device_meta, nvidia_smi, smi_start_meta, start_meta,
                          transformers_version)
from .harness import elapsed_s, sanitize, start_watchdog, utc_now, write_atomic
from .optional import torch

DEVICE_FIELDS = ("device_name", "compute_capability", "sm_count", "total_memory_bytes", "l2_cache_bytes")


def hf_run_meta(method_text, args):
    """A data file's meta as a run starts: the method, the machine and the command line (args)."""
    meta = start_meta(method_text, cpu_model=cpu_model(), cpu_count=os.cpu_count())
    meta["versions"]["transformers"] = transformers_version()
    device_meta(meta, DEVICE_FIELDS)
    smi_start_meta(meta)
    meta["backend_flags"] = backend_flags()
    meta["config"] = vars(args)
    return meta


def start_doc_writer(path, doc, hard_limit_s):
    """write(): doc ({"meta", "records"}) to path with the time written and the wall time so far.
    A watchdog writes it once more (watchdog_exit, nvidia-smi at the end) and exits past
    hard_limit_s (seconds since process start)."""
    meta = doc["meta"]

    def write():
        meta["utc_written"] = utc_now()
        meta["wall_s"] = round(elapsed_s(), 1)
        write_atomic(path, json.dumps(sanitize(doc), indent=1))

    def final():
        meta["watchdog_exit"] = True
        meta["nvidia_smi_end"] = nvidia_smi()
        write()
    start_watchdog(hard_limit_s, final)
    return write


def warm_gpu():
    """Twenty 8192^3 bf16 GEMMs: the clocks ramped and CUDA initialised before anything is timed."""
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(20):
        a @ a
    torch.cuda.synchronize()
    del a
