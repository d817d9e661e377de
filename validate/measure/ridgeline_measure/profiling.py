"""Which torch.profiler device records are a measured op's kernels.

A record counts when it ran on the GPU and is neither a synchronisation or
profiler-buffer event nor a driver API call; kernels, memcpys and memsets all
count. The SDPA backend is guessed from the kernel names attention ran.
"""

import re

# Profiler device-side records that are not work of the op.
NON_KERNEL_EVENTS = {"Context Sync", "Stream Sync", "Event Sync", "Device Sync",
                     "Activity Buffer Request", "Command Buffer Full",
                     "Lazy Function Loading"}
API_CALL_NAME = re.compile(r"^cu(da)?[A-Z]")   # cudaLaunchKernel, cuLaunchKernel


def _is_kernel_event(evt):
    """True for a kernel / memcpy / memset that ran on the GPU."""
    device_type = getattr(evt, "device_type", None)
    if device_type is None or not str(device_type).endswith("CUDA"):
        return False
    return evt.name not in NON_KERNEL_EVENTS and not API_CALL_NAME.match(evt.name)


def sdpa_backend_guess(kernel_names):
    text = " ".join(kernel_names).lower()
    if not text:
        return None
    if "cudnn" in text:
        return "cudnn"
    if "flash" in text:
        return "flash"
    if "fmha" in text or "memeff" in text or "mem_eff" in text:
        return "mem_efficient"
    return "math_or_other"
