#!/usr/bin/env python3
"""CPU checks of moe_block.py's local port (and llama_model's moe= option) on tiny configs.

    /usr/bin/python3 test_moe_block.py        (prints 'N passed, 0 failed')

Works with torch 1.13 (Debian's CPU build: without torch._grouped_mm the groups run as a loop
of torch.mm, which only the CPU allows) and newer. Checks, in fp32: the local MoE block against
a token-by-token reference (routing, renormalised weights, SwiGLU experts, weighted sum), for
one token, for many tokens and for a routing that leaves experts without tokens; the routing
recorder's counts; a decoder with MoE MLPs (decode with the KV cache reproduces a prefill);
the parameter count; and that the loop fallback refuses a non-CPU tensor.
"""

import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch                     # noqa: E402

import llama_model as lm         # noqa: E402
import moe_block as mb           # noqa: E402

TOL = 1e-5     # fp32, relative norm


def spec(e=8, k=2, inter=24):
    return mb.MoeSpec(num_experts=e, top_k=k, expert_intermediate=inter, impl="local")


def block(s, hidden=32, seed=0):
    torch.manual_seed(seed)
    b = mb.LocalMoeBlock(hidden, s, dtype=torch.float32)
    for p in b.parameters():
        p.data.normal_(0.0, 0.2)
    return b


def rel(a, ref):
    return ((a - ref).norm() / ref.norm()).item()


def check_block(tokens, s):
    b = block(s)
    x = torch.randn(1, tokens, 32)
    err = rel(b(x), mb.reference_fp32(b, x))
    assert err < TOL, f"{tokens} tokens, {s}: rel err {err}"


def test_one_token():
    check_block(1, spec())


def test_many_tokens():
    check_block(64, spec())
    check_block(33, spec(e=16, k=4, inter=8))


def test_top_k_equals_experts():
    check_block(5, spec(e=4, k=4))


def test_routing_recorder_counts():
    s = spec(e=16, k=2)
    model = lm.build_model(lm.LlamaConfig.tiny(hidden_size=32, head_dim=8, intermediate_size=24),
                           num_layers=2, blocks_only=True, dtype=torch.float32, moe=s).eval()
    rec = mb.RoutingRecorder(model)
    with torch.no_grad():
        model(torch.randn(1, 3, 32))
    rec.remove()
    assert len(rec.calls) == 2, rec.calls
    for c in rec.calls:
        assert sum(c["tokens_per_expert"]) == 3 * 2
        assert 2 <= c["distinct_experts"] <= 6
        assert c["max_tokens_per_expert"] <= 3   # an expert gets a token at most once
    summary = mb.routing_summary(rec.calls)
    assert len(summary["distinct_experts_per_layer"]) == 2


def test_moe_decoder_decode_matches_prefill():
    cfg = lm.LlamaConfig.tiny(hidden_size=32, head_dim=8, intermediate_size=24)
    torch.manual_seed(0)
    model = lm.build_model(cfg, num_layers=2, blocks_only=True, dtype=torch.float32,
                           moe=spec()).eval()
    x = torch.randn(2, 6, 32)
    with torch.no_grad():
        full = model(x)
        cache = model.new_cache(2, 6, fill="zeros")
        model(x[:, :5], cache=cache, pos=0)
        last = model(x[:, 5:], cache=cache, pos=5)
    err = rel(last, full[:, 5:])
    assert err < 1e-4, err


def test_parameter_count():
    cfg = lm.LlamaConfig.tiny(hidden_size=32, head_dim=8, intermediate_size=24)
    s = spec()
    model = lm.build_model(cfg, num_layers=2, blocks_only=True, dtype=torch.float32, moe=s)
    got = sum(p.numel() for p in model.parameters())
    assert got == lm.parameter_count(cfg, 2, blocks_only=True, moe=s), got
    dense = lm.build_model(cfg, num_layers=2, blocks_only=True, dtype=torch.float32)
    assert sum(p.numel() for p in dense.parameters()) == lm.parameter_count(cfg, 2, True)


def test_loop_fallback_refuses_non_cpu():
    if mb.HAS_GROUPED_MM:
        return
    a = torch.randn(2, 4, device="meta")
    try:
        mb._grouped_mm(a, torch.randn(1, 4, 3, device="meta"), torch.tensor([2]))
    except RuntimeError as exc:
        assert "_grouped_mm is missing" in str(exc)
        return
    raise AssertionError("the loop fallback ran on a meta tensor")


def main():
    print(f"torch {torch.__version__}; grouped_mm: {mb.HAS_GROUPED_MM}", flush=True)
    tests = [(n, f) for n, f in sorted(globals().items())
             if n.startswith("test_") and callable(f)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print(f"ok    {name}")
        except Exception:
            failed += 1
            print(f"FAIL  {name}")
            traceback.print_exc()
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
