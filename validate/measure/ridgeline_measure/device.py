"""Where a measurement's tensors live (measure_ops.py, measure_models.py), and when
measure_ops.py frees cached memory."""

DEVICE = "cuda"         # (a CPU smoke test of the control flow overrides it)
BIG_OP_BYTES = 4 * (1 << 30)   # empty_cache() after ops that used more
