"""The op builders' shared parts (ops_builders.py, ops_elementwise.py): Bench, one op's set
factory and candidate implementations, and the device tensors its sets are made of.
"""

import contextlib

from .optional import torch

from . import device


class Bench:
    """One op: a set factory, candidate implementations, bytes per set."""

    def __init__(self, make_set, candidates, bytes_per_set, flags=None,
                 alt_candidates=()):
        self.make_set = make_set                # () -> tuple of tensors
        self.candidates = candidates            # [(name, fn(set))], first that works
        self.bytes_per_set = int(bytes_per_set)  # bytes one call reads + writes
        self.flags = flags or contextlib.nullcontext
        self.alt_candidates = alt_candidates    # optional second implementation


def torch_dtype(name):
    table = {"fp32": torch.float32, "tf32": torch.float32,
             "bf16": torch.bfloat16, "fp16": torch.float16}
    if name not in table:
        raise ValueError(f"dtype {name!r} not supported for this op")
    return table[name]


def elem_bytes(dtype):
    return torch.empty((), dtype=dtype).element_size()


def randn(shape, dtype):
    return torch.randn(tuple(shape), device=device.DEVICE, dtype=dtype)


def empty(shape, dtype):
    return torch.empty(tuple(shape), device=device.DEVICE, dtype=dtype)
