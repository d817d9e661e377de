#!/usr/bin/env python3
"""CPU checks of llama_model.py on a tiny config, in fp32.

    /usr/bin/python3 test_llama_model.py        (prints 'N passed, 0 failed')

or under pytest. Works with torch 1.13 (Debian's CPU build: the RMSNorm and
attention fallbacks run) and with torch >= 2.5 (the primary paths run); the
first line printed says which. Checks: output shapes of prefill, decode and
training; that decoding with the static KV cache reproduces the logits of a
full prefill on the same tokens (last position after a cached prefill, and
every position when decoding token by token from position 0); the same for
a blocks-only stack; attention against a per-head reference (GQA head
mapping, causal mask); that a training step gives finite, non-zero
gradients for every weight and that an AdamW step moves them; the parameter
count; and that a fallback refuses to run on a non-CPU tensor.
"""

import math
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch                     # noqa: E402
import torch.nn.functional as F  # noqa: E402

import llama_model as lm         # noqa: E402

TOL = 1e-4     # fp32, max |err| / max |ref|


def tiny(**overrides):
    return lm.LlamaConfig.tiny(**overrides)


def make(num_layers=None, blocks_only=False, seed=0, **cfg):
    torch.manual_seed(1234)
    return lm.build_model(tiny(**cfg), num_layers=num_layers, blocks_only=blocks_only,
                          device="cpu", dtype=torch.float32, seed=seed).eval()


def rel_err(out, ref):
    return ((out - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def tokens(b, s, vocab=100, seed=7):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (b, s), generator=g)


# ---------------------------------------------------------------------------

def test_config_and_paths():
    c = tiny()
    assert (c.hidden_size, c.num_layers, c.num_heads, c.num_kv_heads, c.head_dim,
            c.intermediate_size, c.vocab_size) == (64, 2, 4, 2, 16, 128, 100)
    big = lm.LlamaConfig.llama3_8b()
    assert (big.hidden_size, big.num_layers, big.num_heads, big.num_kv_heads,
            big.head_dim, big.intermediate_size, big.vocab_size) == \
        (4096, 32, 32, 8, 128, 14336, 128256)
    assert not big.tie_word_embeddings
    paths = lm.kernel_paths()
    assert paths["rms_norm"] and paths["attention"]
    assert paths["primary"] == (lm.HAS_F_RMS_NORM and lm.SDPA_HAS_ENABLE_GQA)


def test_parameter_count():
    for blocks_only in (False, True):
        model = make(blocks_only=blocks_only)
        n = sum(p.numel() for p in model.parameters())
        assert n == lm.parameter_count(model.config, blocks_only=blocks_only), n
    # Llama-3-8B: 8.03e9 weights
    assert lm.parameter_count(lm.LlamaConfig.llama3_8b()) == 8030261248


def test_prefill_shapes():
    model = make()
    ids = tokens(3, 10)
    with torch.no_grad():
        last = model(ids)
        every = model(ids, logits="all")
        hidden = model(ids, logits="none")
    assert last.shape == (3, 1, 100), last.shape
    assert every.shape == (3, 10, 100), every.shape
    assert hidden.shape == (3, 10, 64), hidden.shape
    assert rel_err(last[:, 0], every[:, -1]) < TOL
    assert torch.isfinite(every).all()


def test_blocks_only_shapes():
    model = make(num_layers=3, blocks_only=True)
    assert len(model.layers) == 3
    assert not hasattr(model, "embed_tokens") and not hasattr(model, "lm_head")
    x = torch.randn(2, 9, 64)
    with torch.no_grad():
        y = model(x)
    assert y.shape == (2, 9, 64)


def test_decode_step_shape():
    model = make()
    cache = model.new_cache(batch=2, max_len=32)
    assert cache.keys[0].shape == (2, 2, 32, 16) and len(cache.keys) == 2
    assert cache.nbytes() == lm.kv_cache_bytes(model.config, 2, 2, 32, elem_bytes=4)
    with torch.no_grad():
        out = model(tokens(2, 1), cache=cache, pos=17)
    assert out.shape == (2, 1, 100), out.shape


def test_cached_prefill_then_decode_matches_full_prefill():
    model = make()
    ids = tokens(2, 12)
    with torch.no_grad():
        ref = model(ids)[:, 0]                    # full prefill, last position
        cache = model.new_cache(batch=2, max_len=20, fill="randn")  # garbage beyond pos
        pre = model(ids[:, :-1], cache=cache, pos=0)
        got = model(ids[:, -1:], cache=cache, pos=11)[:, 0]
    assert pre.shape == (2, 1, 100)
    err = rel_err(got, ref)
    assert err < TOL, err


def test_token_by_token_decode_matches_every_position():
    model = make()
    ids = tokens(3, 9, seed=11)
    with torch.no_grad():
        ref = model(ids, logits="all")
        cache = model.new_cache(batch=3, max_len=9)
        steps = [model(ids[:, p:p + 1], cache=cache, pos=p)[:, 0] for p in range(9)]
    got = torch.stack(steps, dim=1)
    err = rel_err(got, ref)
    assert err < TOL, err


def test_blocks_only_decode_matches_prefill():
    model = make(num_layers=2, blocks_only=True)
    x = torch.randn(2, 7, 64)
    with torch.no_grad():
        ref = model(x)
        cache = model.new_cache(batch=2, max_len=16)
        model(x[:, :-1], cache=cache, pos=0)
        got = model(x[:, -1:], cache=cache, pos=6)
    err = rel_err(got[:, 0], ref[:, -1])
    assert err < TOL, err


def reference_attention(q, k, v, causal):
    """Per-head loop: q head i reads kv head i // (heads / kv_heads)."""
    b, h, lq, d = q.shape
    n_rep = h // k.shape[1]
    out = torch.empty_like(q)
    for i in range(h):
        s = q[:, i] @ k[:, i // n_rep].transpose(-1, -2) / math.sqrt(d)
        if causal:
            lk = k.shape[2]
            mask = torch.ones(lq, lk, dtype=torch.bool).tril()
            s = s.masked_fill(~mask, float("-inf"))
        out[:, i] = torch.softmax(s, dim=-1) @ v[:, i // n_rep]
    return out


def test_attention_against_reference():
    torch.manual_seed(3)
    for heads, kv_heads in ((4, 2), (4, 4), (8, 1)):
        q = torch.randn(2, heads, 6, 16)
        k = torch.randn(2, kv_heads, 6, 16)
        v = torch.randn(2, kv_heads, 6, 16)
        for causal in (True, False):
            err = rel_err(lm.attention(q, k, v, causal), reference_attention(q, k, v, causal))
            assert err < TOL, (heads, kv_heads, causal, err)
        # one query over a longer strided view (the decode layout)
        kc = torch.randn(2, kv_heads, 10, 16)
        vc = torch.randn(2, kv_heads, 10, 16)
        q1 = q[:, :, :1]
        got = lm.attention(q1, kc.narrow(2, 0, 7), vc.narrow(2, 0, 7), False)
        ref = reference_attention(q1, kc[:, :, :7].contiguous(), vc[:, :, :7].contiguous(), False)
        assert rel_err(got, ref) < TOL


def test_rmsnorm_and_rope_pieces():
    norm = lm.RMSNorm(64, 1e-5)
    with torch.no_grad():
        norm.weight.copy_(torch.linspace(0.5, 1.5, 64))
    x = torch.randn(3, 5, 64)
    ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * norm.weight
    assert rel_err(norm(x).detach(), ref.detach()) < TOL
    x = torch.arange(8.0).view(1, 1, 1, 8)
    assert lm.rotate_half(x).flatten().tolist() == [-4, -5, -6, -7, 0, 1, 2, 3]
    cos, sin = lm.rope_tables(16, 500000.0, 4)
    assert cos.shape == (4, 16) and torch.allclose(cos[0], torch.ones(16))
    # RoPE preserves the norm of each head vector
    q = torch.randn(1, 2, 4, 16)
    k = torch.randn(1, 1, 4, 16)
    qe, ke = lm.apply_rope(q, k, cos, sin)
    assert torch.allclose(qe.norm(dim=-1), q.norm(dim=-1), atol=1e-5)
    assert torch.allclose(ke.norm(dim=-1), k.norm(dim=-1), atol=1e-5)


def test_training_step_gradients():
    model = make().train()
    ids = tokens(2, 8)
    labels = tokens(2, 8, seed=99)
    logits = model(ids, logits="all")
    assert logits.shape == (2, 8, 100)
    loss = lm.causal_lm_loss(logits, labels)
    assert torch.isfinite(loss) and abs(loss.item() - math.log(100)) < 0.5, loss.item()
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None, name
        assert p.grad.shape == p.shape, name
        assert torch.isfinite(p.grad).all(), name
        assert p.grad.abs().max() > 0, name
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    torch.optim.AdamW(model.parameters(), lr=1e-3).step()
    moved = [n for n, p in model.named_parameters() if not torch.equal(p, before[n])]
    assert len(moved) == len(before), set(before) - set(moved)


def test_blocks_only_training_gradients():
    model = make(num_layers=2, blocks_only=True).train()
    x = torch.randn(2, 6, 64, requires_grad=True)
    y = model(x)
    y.backward(torch.randn_like(y))
    assert x.grad is not None and x.grad.shape == x.shape
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().max() > 0, name


def test_fallback_refuses_non_cpu():
    t = torch.empty(1, 1, 1, 4, device="meta")
    if lm.ALLOW_DEVICE_FALLBACKS:
        return
    try:
        lm._fallback_guard(t, "attention")
    except RuntimeError as exc:
        assert "fallback" in str(exc)
    else:
        raise AssertionError("the fallback guard let a meta tensor through")
    lm._fallback_guard(torch.empty(1), "attention")   # CPU is fine


def test_errors():
    model = make()
    cache = model.new_cache(batch=1, max_len=4)
    for bad in (lambda: model(tokens(1, 1), cache=cache, pos=4),        # past the cache
                lambda: model(tokens(1, 2), cache=cache, pos=1),        # chunked prefill
                lambda: model(tokens(1, 300)),                          # past rope_len
                lambda: model(tokens(1, 2), logits="first")):
        try:
            with torch.no_grad():
                bad()
        except (ValueError, NotImplementedError):
            pass
        else:
            raise AssertionError("expected an error")


# ---------------------------------------------------------------------------

def main():
    print(f"torch {torch.__version__}; paths: rms_norm={lm.RMS_NORM_PATH}, "
          f"attention={lm.ATTENTION_PATH}", flush=True)
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
