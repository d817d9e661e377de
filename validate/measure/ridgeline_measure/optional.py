"""The optional imports of the measurement package, tried once: torch (and
torch.nn.functional as F) and triton (and triton.language as tl) are None
where they are missing, so that --help, --dry-run, py_compile and the
pure-Python tests run on a machine without them. What needs them checks.
"""

try:
    import torch
    import torch.nn.functional as F
except ImportError:      # lets --dry-run and py_compile work without torch
    torch = None
    F = None

try:
    import triton
    import triton.language as tl
except Exception:        # the ops that need Triton record an error instead
    triton = None
    tl = None

__all__ = ["F", "tl", "torch", "triton"]
