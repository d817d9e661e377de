#!/usr/bin/env python3
"""Torch-free checks of op_grid.py and of measure_ops.py's planning helpers.

Runs with `python3 test_op_grid.py` (prints 'N passed, 0 failed') or under
pytest.  It checks that the grid is deterministic, within its intended size,
has unique ids, follows the contract, and splits ~30% of ids into the
holdout set by a stable hash; and that the launch / set planning of
measure_ops.py obeys its rules (which needs no GPU: measure_ops imports
without torch).
"""

import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import measure_ops  # noqa: E402
import op_grid      # noqa: E402

CONTRACT_KEYS = {
    "gemm": {"id", "op", "m", "n", "k", "dtype", "split"},
    "attention": {"id", "op", "batch", "heads", "kv_heads", "head_dim",
                  "q_len", "kv_len", "causal", "dtype", "split"},
    "elementwise": {"id", "op", "kind", "numel", "dtype", "split"},
    "reduce": {"id", "op", "kind", "numel", "dtype", "split"},
    "rmsnorm": {"id", "op", "rows", "cols", "dtype", "split"},
    "layernorm": {"id", "op", "rows", "cols", "dtype", "split"},
    "softmax": {"id", "op", "rows", "cols", "dtype", "split"},
}
OPTIONAL_KEYS = {"gemm": {"batch"}, "elementwise": {"warm_l2"},
                 "reduce": {"warm_l2"}, "rmsnorm": {"warm_l2"},
                 "layernorm": {"warm_l2"}, "softmax": {"warm_l2"}}


def grid_lines():
    out = io.StringIO()
    real = sys.stdout
    sys.stdout = out
    try:
        assert op_grid.main([]) == 0
    finally:
        sys.stdout = real
    return out.getvalue().splitlines()


def test_size_and_unique_ids():
    ops = op_grid.build_grid()
    assert 450 <= len(ops) <= 600, len(ops)
    assert len({op["id"] for op in ops}) == len(ops)
    assert op_grid.validate(ops) == []


def test_deterministic_output():
    assert grid_lines() == grid_lines()


def test_lines_follow_contract():
    for line in grid_lines():
        op = json.loads(line)
        kind = op["op"]
        keys = set(op)
        assert CONTRACT_KEYS[kind] <= keys, (op["id"], CONTRACT_KEYS[kind] - keys)
        assert keys <= CONTRACT_KEYS[kind] | OPTIONAL_KEYS.get(kind, set()), op["id"]
        assert op["dtype"] in op_grid.DTYPES
        assert op.get("warm_l2", True) is True
        for key, value in op.items():
            if key not in ("id", "op", "kind", "dtype", "split", "causal", "warm_l2"):
                assert isinstance(value, int) and value > 0, (op["id"], key)


def test_holdout_fraction_and_stability():
    ops = op_grid.build_grid()
    frac = sum(op["split"] == "holdout" for op in ops) / len(ops)
    assert 0.25 <= frac <= 0.35, frac
    # The split depends on the id alone.
    for op in ops:
        assert op["split"] == op_grid.split_of(op["id"])
    assert op_grid.split_of("gemm-bf16-4096x4096x4096") == \
        op_grid.split_of("gemm-bf16-4096x4096x4096")


def test_grid_sections_present():
    ids = {op["id"] for op in op_grid.build_grid()}
    for must in ("gemm-bf16-16384x16384x16384", "gemm-bf16-4096x4095x4096",
                 "gemm-bf16-1x128256x4096", "bgemm-bf16-b256-2048x2048x128",
                 "gemm-fp8-16x128256x4096", "gemm-tf32-8192x8192x8192",
                 "gemm-fp32-256x256x256", "gemm-fp16-512x512x512",
                 "attn-prefill-b1-h32-kv8-d128-s16384-causal",
                 "attn-decode-b128-h32-kv8-d128-ctx32768",
                 "attn-chunk-b1-h32-kv8-d128-q128-ctx4096",
                 "ew-silu_mul-bf16-n268435456", "ew-copy-fp32-n134217728",
                 "reduce-sum-fp32-n268435456", "rmsnorm-bf16-65536x8192",
                 "softmax-bf16-4096x32768", "rmsnorm-bf16-1024x4096-warm"):
        assert must in ids, must


def test_warm_sweep_spans_l2_knee():
    warm = [op for op in op_grid.build_grid()
            if op["op"] == "elementwise" and op.get("warm_l2")]
    for kind, tensors in (("copy", 2), ("add", 3)):
        ws = sorted(op["numel"] * tensors * 2 / op_grid.MIB
                    for op in warm if op["kind"] == kind)
        assert len(ws) >= 18
        assert ws[0] <= 2.01 and ws[-1] >= 190
        assert sum(25 <= w <= 90 for w in ws) >= 10


def _args(**kw):
    argv = ["--input", "x", "--out", "y"]
    for key, value in kw.items():
        argv += ["--" + key.replace("_", "-"), str(value)]
    return measure_ops.parse_args(argv)


def test_plan_sets():
    cfg = measure_ops.Config(_args())
    cfg.l2_bytes = 50 * op_grid.MIB
    assert measure_ops.plan_sets(1000, True, cfg) == 1
    assert measure_ops.plan_sets(1000, False, cfg) == 64          # capped
    assert measure_ops.plan_sets(100 * op_grid.MIB, False, cfg) == 2
    assert measure_ops.plan_sets(20 * 10**9, False, cfg) == 1
    cfg.mem_cap_bytes = 100 * op_grid.MIB                          # memory cap
    assert measure_ops.plan_sets(10 * op_grid.MIB, False, cfg) == 10


def test_choose_launches():
    cfg = measure_ops.Config(_args())
    for t_call in (1e-6, 5e-6, 3e-5, 1e-4, 1e-3, 5e-3, 2e-2, 1.0):
        for n_sets in (1, 2, 3, 7, 25, 64):
            L, S = measure_ops.choose_launches(t_call, n_sets, cfg)
            assert 1 <= L <= 400 and 1 <= S <= n_sets
            if S <= L:
                assert L % S == 0, (t_call, n_sets, L, S)
            assert L >= S


def test_percentile_and_sanitize():
    vals = sorted([5.0, 1.0, 3.0, 2.0, 4.0])
    assert measure_ops.percentile(vals, 50) == 3.0
    assert measure_ops.percentile(vals, 0) == 1.0
    assert measure_ops.percentile(vals, 100) == 5.0
    assert abs(measure_ops.percentile(vals, 10) - 1.4) < 1e-12
    clean = measure_ops.sanitize({"a": float("nan"), "b": (1, 2.5), "c": object()})
    assert clean["a"] is None and clean["b"] == [1, 2.5] and isinstance(clean["c"], str)
    json.dumps(clean, allow_nan=False)


def test_interleave_keeps_all_ops():
    ops = op_grid.build_grid()
    order = measure_ops.interleave(ops)
    assert sorted(op["id"] for op in order) == sorted(op["id"] for op in ops)
    # Every fine family of >= 10 ops shows up within the first 10% of the run.
    counts = {}
    for op in ops:
        key = measure_ops.interleave_key(op)
        counts[key] = counts.get(key, 0) + 1
    head = {measure_ops.interleave_key(op) for op in order[:len(order) // 10]}
    assert {k for k, c in counts.items() if c >= 10} <= head


def main():
    tests = [(name, fn) for name, fn in sorted(globals().items())
             if name.startswith("test_") and callable(fn)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
        except Exception as exc:  # report and go on
            failed += 1
            print(f"FAIL {name}: {type(exc).__name__}: {exc}")
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
