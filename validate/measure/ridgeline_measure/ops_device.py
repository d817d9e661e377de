"""Where measure_ops.py's tensors live, and when it frees cached memory."""

DEVICE = "cuda"         # (a CPU smoke test of the control flow overrides it)
BIG_OP_BYTES = 4 * (1 << 30)   # empty_cache() after ops that used more
