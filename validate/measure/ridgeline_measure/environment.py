"""What a measurement file's "meta" says about the machine it ran on.

nvidia-smi's clocks, power and temperature (taken at the start, after warm-up
and at the end, to show drift), library versions, the PyTorch switches that
change which kernels run (TF32, reduced-precision reductions, the SDPA
backends), the L2 size and the CPU. Nothing here needs a GPU to import.
"""

import contextlib
import platform
import socket
import subprocess
import sys
import warnings

from .harness import err_text, utc_now
from .optional import torch, triton


MIB = 1 << 20
DEFAULT_L2_BYTES = 50 * MIB
SMI_FIELDS = ("name", "driver_version", "clocks.sm", "clocks.mem",
              "clocks.max.sm", "power.draw", "power.limit", "temperature.gpu")


def nvidia_smi():
    """Clocks / power / temperature per GPU, or {'error': ...}."""
    cmd = ["nvidia-smi", "--query-gpu=" + ",".join(SMI_FIELDS),
           "--format=csv,noheader"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            return {"error": (out.stderr or out.stdout).strip()[:500]}
        gpus = []
        for line in out.stdout.strip().splitlines():
            values = [v.strip() for v in line.split(",")]
            gpus.append(dict(zip(SMI_FIELDS, values)))
        return {"utc": utc_now(), "gpus": gpus}
    except Exception as exc:  # no nvidia-smi, timeout, ...
        return {"error": err_text(exc)}


def detect_l2_bytes():
    try:
        l2 = int(getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0))
        if l2 > 0:
            return l2, True
    except Exception:
        pass
    return DEFAULT_L2_BYTES, False


def library_versions():
    versions = {"python": platform.python_version(), "torch": None,
                "cuda": None, "cudnn": None, "triton": None, "numpy": None}
    try:
        versions["torch"] = torch.__version__
        versions["cuda"] = torch.version.cuda
        versions["cudnn"] = torch.backends.cudnn.version()
    except Exception:
        pass
    if triton is not None:
        versions["triton"] = getattr(triton, "__version__", None)
    try:
        import numpy
        versions["numpy"] = numpy.__version__
    except Exception:
        pass
    return versions


def backend_flags():
    """PyTorch switches that change which kernels run."""
    flags = {}
    probes = {
        "matmul_tf32": read_tf32_flag,
        "cudnn_tf32": lambda: torch.backends.cudnn.allow_tf32,
        "bf16_reduced_precision_reduction":
            lambda: torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
        "fp16_reduced_precision_reduction":
            lambda: torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
        "flash_sdp": lambda: torch.backends.cuda.flash_sdp_enabled(),
        "mem_efficient_sdp": lambda: torch.backends.cuda.mem_efficient_sdp_enabled(),
        "math_sdp": lambda: torch.backends.cuda.math_sdp_enabled(),
        "cudnn_sdp": lambda: torch.backends.cuda.cudnn_sdp_enabled(),
        "float32_matmul_precision": torch.get_float32_matmul_precision,
    }
    for name, probe in probes.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = probe()
            flags[name] = value if isinstance(value, (bool, int, str)) else str(value)
        except Exception as exc:
            flags[name] = "unreadable: " + err_text(exc)[:200]
    return flags


def read_tf32_flag():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(torch.backends.cuda.matmul.allow_tf32)
        except Exception:
            return torch.backends.cuda.matmul.fp32_precision == "tf32"


def set_tf32_flag(enabled):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.backends.cuda.matmul.allow_tf32 = bool(enabled)
        except Exception:   # only the newer API works
            torch.backends.cuda.matmul.fp32_precision = "tf32" if enabled else "ieee"


@contextlib.contextmanager
def tf32_matmul(enabled):
    """Sets the cuBLAS TF32 flag for the duration (warm-up, capture, profile)."""
    try:
        previous = read_tf32_flag()
    except Exception:
        previous = False
    set_tf32_flag(enabled)
    try:
        yield
    finally:
        set_tf32_flag(previous)


def cpu_model():
    with contextlib.suppress(Exception):
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    return platform.processor() or None


def transformers_version():
    try:
        from importlib.metadata import version
        return version("transformers")
    except Exception:
        return None


def start_meta(method, **before_method):
    """The opening of a run's meta: when, where, how it was called, then any
    script-specific fields, the method text and the library versions."""
    meta = {"utc_start": utc_now(), "hostname": socket.gethostname(),
            "argv": sys.argv, "platform": platform.platform()}
    meta.update(before_method)
    meta["method"] = method
    meta["versions"] = library_versions()
    return meta


DEVICE_FIELDS = ("device_name", "compute_capability", "sm_count", "total_memory_bytes")


def device_meta(meta, fields=DEVICE_FIELDS):
    """Adds the GPU's properties named in fields to meta and returns them; None
    (and meta["device_error"]) where there is no usable GPU."""
    try:
        props = torch.cuda.get_device_properties(0)
        known = {"device_name": props.name,
                 "compute_capability": f"{props.major}.{props.minor}",
                 "sm_count": props.multi_processor_count,
                 "total_memory_bytes": props.total_memory,
                 "l2_cache_bytes": getattr(props, "L2_cache_size", None)}
        meta.update({k: known[k] for k in fields})
        return props
    except Exception as exc:
        meta["device_error"] = err_text(exc)
        return None


def smi_start_meta(meta):
    """nvidia-smi at the start of a run, and the driver version it reports."""
    smi = nvidia_smi()
    meta["nvidia_smi_start"] = smi
    meta["driver_version"] = (smi.get("gpus") or [{}])[0].get("driver_version")
