"""measure_hf.py's single kernels: setup_op builds one kernel by implementation (an SDPA backend,
ATen's norm or softmax, HF's RMSNorm module) over rotated input sets larger than L2, and
time_op_graph times it by CUDA-graph replay over those sets.
"""

import math

from .hf_timing import err_text, pct
from .optional import F, torch


def l2_bytes():
    try:
        return int(torch.cuda.get_device_properties(0).L2_cache_size)
    except Exception:  # noqa: BLE001
        return 50 << 20


def setup_op(case):
    """Returns (run(set) callable, sets, extra)."""
    g = torch.Generator(device="cuda").manual_seed(3)
    bf = torch.bfloat16
    extra = {}
    if case["op"] == "attention":
        from torch.nn.attention import SDPBackend, sdpa_kernel
        # The case's own heads (the second kernel run's records were timed at 32/8/128 whatever
        # the case said, before this read them: scripts/relabel_hf_kernels_01b.py).
        b, q, kv = case["batch"], case["q_len"], case["kv_len"]
        H, KV, D = case["heads"], case["kv_heads"], case["head_dim"]
        per = (b * H * q * D + 2 * b * KV * kv * D + b * H * q * D) * 2
        S = max(1, min(32, math.ceil(3 * l2_bytes() / per)))
        sets = [(torch.randn(b, H, q, D, device="cuda", dtype=bf, generator=g),
                 torch.randn(b, KV, kv, D, device="cuda", dtype=bf, generator=g),
                 torch.randn(b, KV, kv, D, device="cuda", dtype=bf, generator=g)) for _ in range(S)]
        causal = case["causal"]
        if case.get("mask"):  # transformers' window mask (masking_utils.sdpa_mask): bool [b, 1, q, kv]
            return setup_masked_attention(case, sets, extra)
        backend = getattr(SDPBackend, case["impl"].upper())
        # The shapes handed to SDPA, so that a record shows what ran (ridgeline validate checks
        # them against the record's batch, heads, kv_heads, head_dim and lengths).
        extra["ran_q_shape"] = list(sets[0][0].shape)
        extra["ran_kv_shape"] = list(sets[0][1].shape)

        def run_gqa(st):
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(st[0], st[1], st[2], is_causal=causal, enable_gqa=True)
        try:
            run_gqa(sets[0])
            torch.cuda.synchronize()
            extra["gqa"] = "enable_gqa"
            return run_gqa, sets, extra
        except Exception as exc:  # noqa: BLE001
            extra["enable_gqa_error"] = err_text(exc)
        sets = [(qq, kk.repeat_interleave(H // KV, 1), vv.repeat_interleave(H // KV, 1)) for qq, kk, vv in sets]
        extra["ran_kv_shape"] = list(sets[0][1].shape)

        def run_exp(st):
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(st[0], st[1], st[2], is_causal=causal)
        run_exp(sets[0])
        torch.cuda.synchronize()
        extra["gqa"] = "expanded"
        return run_exp, sets, extra
    rows, cols = case["rows"], case["cols"]
    dt = {"bf16": bf, "fp16": torch.float16, "fp32": torch.float32}[case.get("dtype", "bf16")]
    elem = torch.tensor([], dtype=dt).element_size()
    per = rows * cols * elem * 2
    S = max(1, min(32, math.ceil(3 * l2_bytes() / per)))
    sets = [torch.randn(rows, cols, device="cuda", dtype=dt, generator=g) for _ in range(S)]
    w = torch.ones(cols, device="cuda", dtype=dt)
    bias = torch.zeros(cols, device="cuda", dtype=dt)
    impl = case["impl"]
    if impl == "aten_rms_norm":
        def run(x):
            return F.rms_norm(x, (cols,), w, 1e-5)
    elif impl == "hf_llama_rmsnorm":
        from transformers.models.llama.modeling_llama import LlamaRMSNorm
        with torch.device("cuda"):
            mod = LlamaRMSNorm(cols, eps=1e-5).to(dt)

        def run(x):
            return mod(x)
    elif impl == "aten_layer_norm":
        def run(x):
            return F.layer_norm(x, (cols,), w, bias, 1e-5)
    elif impl == "aten_softmax":
        def run(x):
            return torch.softmax(x, dim=-1)
    else:
        raise ValueError(impl)
    return run, sets, extra


def setup_masked_attention(case, sets, extra):
    """SDPA as transformers calls it on a sliding layer outside a decode: K/V expanded to every head
    by repeat_kv (use_gqa_in_sdpa is False with a mask), a bool mask [b, 1, q, kv] that keeps key j
    for query i when j <= i and i - j < window, no is_causal, and no backend forced (impl "sdpa":
    what PyTorch picks). The repeat_kv copies are not timed (ridgeline prices them apart); SDPA's
    conversion of the bool mask is (it runs inside the call)."""
    b, q, kv, H, KV = case["batch"], case["q_len"], case["kv_len"], case["heads"], case["kv_heads"]
    assert case["impl"] == "sdpa" and case["mask"] in ("window", "none"), case
    sets = [(qq, kk.repeat_interleave(H // KV, 1), vv.repeat_interleave(H // KV, 1)) for qq, kk, vv in sets]
    extra["ran_kv_shape"] = list(sets[0][1].shape)
    extra["gqa"] = "expanded"
    mask = None
    if case["mask"] == "window":
        i = torch.arange(kv - q, kv, device="cuda")[:, None]
        j = torch.arange(kv, device="cuda")[None, :]
        mask = ((j <= i) & (i - j < case["window"]))[None, None].expand(b, 1, q, kv)
        extra["mask_shape"] = list(mask.shape)

    def run(st):
        return F.scaled_dot_product_attention(st[0], st[1], st[2], attn_mask=mask, is_causal=case["causal"])
    run(sets[0])
    torch.cuda.synchronize()
    return run, sets, extra


def time_op_graph(run, sets):
    S = len(sets)
    with torch.inference_mode():
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for i in range(3):
                run(sets[i % S])
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for i in range(10):
            run(sets[i % S])
        e1.record()
        torch.cuda.synchronize()
        est_us = e0.elapsed_time(e1) * 1e3 / 10
        L = int(max(1, min(400, round(10000 / max(est_us, 1.0)))))
        L = max(S, (L // S) * S)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for i in range(L):
                run(sets[i % S])
        for _ in range(2):
            g.replay()
        torch.cuda.synchronize()
        reps = int(max(10, min(30, 150000 / max(1.0, est_us * L))))
        vals = []
        for _ in range(reps):
            a, z = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            g.replay()
            z.record()
            torch.cuda.synchronize()
            vals.append(a.elapsed_time(z) * 1e3 / L)
        del g
    return {"measured_us": pct(vals, 50), "p10_us": pct(vals, 10), "p90_us": pct(vals, 90), "launches": L,
            "sets": S, "reps": reps, "eager_estimate_us": est_us, "method": "graph"}
