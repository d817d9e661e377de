"""measure_hf.py's case lists (pure Python): the workload cases of transformers' own models
(prefill, decode with each cache, generate, training, optimizer steps, compiled steps) and the
single kernels by implementation (SDPA backends, ATen norms and softmax, HF's RMSNorm module).
Each case carries its split (split_of, the project's stable 30% holdout hash).
"""

from op_grid import split_of  # the project's stable 30% holdout hash


LLAMA = "hf-llama3-8b"
GRAPH_ELEMS_LIMIT = 1 << 28


def wcase(**kw):
    parts = [kw["model"], f"L{kw['layers']}", kw["phase"]]
    if kw["phase"] in ("prefill", "train"):
        parts.append(f"b{kw['batch']}-s{kw['seq']}")
    elif kw["phase"] == "decode":
        parts.append(f"b{kw['batch']}-kv{kw['kv_len']}")
    elif kw["phase"] == "generate":
        parts.append(f"b{kw['batch']}-p{kw['seq']}-n{kw['new_tokens']}")
    elif kw["phase"] == "optimizer":
        parts.append(kw["optimizer"])
    for key in ("cache", "precision", "ckpt", "launch"):
        if kw.get(key):
            parts.append(kw[key])
    kw["id"] = "-".join(parts)
    kw["split"] = split_of(kw["id"])
    kw["kind"] = "workload"
    return kw


def workload_cases(smoke=False):
    cases = []
    L = 8
    prefill = [(1, 512)] if smoke else [(1, 512), (1, 2048), (1, 8192), (4, 512), (4, 2048), (4, 8192)]
    decode_b = [1] if smoke else [1, 8, 32, 128]
    decode_kv = [512] if smoke else [512, 2048, 8192]
    for b, s in prefill:
        for cache in ("dynamic", "static"):
            cases.append(wcase(model=LLAMA, layers=L, phase="prefill", batch=b, seq=s, cache=cache,
                               launch="eager"))
    for b in decode_b:
        for kv in decode_kv:
            cases.append(wcase(model=LLAMA, layers=L, phase="decode", batch=b, kv_len=kv, cache="dynamic",
                               launch="eager"))
            cases.append(wcase(model=LLAMA, layers=L, phase="decode", batch=b, kv_len=kv, cache="static",
                               launch="eager"))
            cases.append(wcase(model=LLAMA, layers=L, phase="decode", batch=b, kv_len=kv, cache="static",
                               launch="graph"))
    for b in ([1] if smoke else [1, 8]):
        cases.append(wcase(model=LLAMA, layers=L, phase="generate", batch=b, seq=512,
                           new_tokens=8 if smoke else 64, cache="dynamic", launch="eager"))
    for prec in ("bf16", "fp32amp"):
        for ckpt in ("nockpt", "ckpt"):
            if smoke and prec == "fp32amp" and ckpt == "ckpt":
                continue
            cases.append(wcase(model=LLAMA, layers=L, phase="train", batch=1, seq=2048, precision=prec,
                               ckpt=ckpt, launch="eager"))
        for opt in ("adamw_foreach", "adamw_fused"):
            cases.append(wcase(model=LLAMA, layers=L, phase="optimizer", batch=1, seq=2048, optimizer=opt,
                               precision=prec, launch="eager"))
    for b in ([1] if smoke else [1, 16, 64]):
        cases.append(wcase(model="hf-mixtral-8x7b", layers=2, phase="decode", batch=b, kv_len=2048,
                           cache="dynamic", launch="eager"))
    for b in ([1] if smoke else [1, 16]):
        cases.append(wcase(model="hf-qwen2moe-a2.7b", layers=2, phase="decode", batch=b, kv_len=2048,
                           cache="dynamic", launch="eager"))
    if not smoke:
        for b, s in [(1, 2048), (4, 2048)]:
            cases.append(wcase(model=LLAMA, layers=32, phase="prefill", batch=b, seq=s, cache="dynamic",
                               launch="eager"))
        for b in (1, 8, 32):
            for kv in (512, 2048):
                cases.append(wcase(model=LLAMA, layers=32, phase="decode", batch=b, kv_len=kv, cache="dynamic",
                                   launch="eager"))
                cases.append(wcase(model=LLAMA, layers=32, phase="decode", batch=b, kv_len=kv, cache="static",
                                   launch="graph"))
        cases.append(wcase(model=LLAMA, layers=32, phase="generate", batch=1, seq=512, new_tokens=64,
                           cache="dynamic", launch="eager"))
        for b, s in [(1, 512), (1, 2048)]:
            cases.append(wcase(model=LLAMA, layers=L, phase="prefill", batch=b, seq=s, cache="dynamic",
                               launch="compile"))
        for b in (1, 8):
            cases.append(wcase(model=LLAMA, layers=L, phase="decode", batch=b, kv_len=2048, cache="static",
                               launch="compile"))
    return cases


TRACE_IDS = ("hf-llama3-8b-L8-decode-b8-kv2048-dynamic-eager", "hf-llama3-8b-L8-prefill-b1-s2048-dynamic-eager",
             "hf-llama3-8b-L8-train-b1-s2048-bf16-nockpt-eager",
             "hf-llama3-8b-L8-generate-b1-p512-n64-dynamic-eager",
             # smoke run equivalents
             "hf-llama3-8b-L8-decode-b1-kv512-dynamic-eager")

SDPA_BACKENDS = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH")


def attn_base_id(b, q, kv, h=32, kvh=8, d=128):
    shape = f"b{b}-h{h}-kv{kvh}-d{d}"
    return f"attn-prefill-{shape}-s{q}-causal" if q == kv else f"attn-decode-{shape}-ctx{kv}"


def kernel_cases(smoke=False):
    cases = []
    prefill = [(1, 2048)] if smoke else [(1, 512), (1, 2048), (1, 8192), (4, 2048), (8, 512)]
    decode = [(8, 2048)] if smoke else [(1, 512), (1, 2048), (1, 8192), (8, 512), (8, 2048), (8, 8192)]
    shapes = [(b, s, s) for b, s in prefill] + [(b, 1, kv) for b, kv in decode]
    for b, q, kv in shapes:
        base = attn_base_id(b, q, kv)
        for be in SDPA_BACKENDS:
            cases.append({"kind": "op", "id": f"{base}-impl-{be.lower()}", "split_key": base,
                          "split": split_of(base), "op": "attention", "batch": b, "heads": 32, "kv_heads": 8,
                          "head_dim": 128, "q_len": q, "kv_len": kv, "causal": q == kv, "dtype": "bf16",
                          "impl": be.lower()})
    rows_list = [1, 2048] if smoke else [1, 64, 1024, 4096, 16384]
    cols_list = [4096] if smoke else [4096, 8192]
    return cases + row_op_cases(rows_list, cols_list)


ROW_OP_IMPLS = (("rmsnorm", ("aten_rms_norm", "hf_llama_rmsnorm")), ("layernorm", ("aten_layer_norm",)),
                ("softmax", ("aten_softmax",)))


def row_op_cases(rows_list, cols_list, dtypes=("bf16",), impls=ROW_OP_IMPLS):
    """ATen's norms and softmax (and HF's RMSNorm module) at each rows x cols and dtype."""
    cases = []
    for op, op_impls in impls:
        for dtype in dtypes:
            for cols in cols_list:
                for rows in rows_list:
                    base = f"{op}-{dtype}-{rows}x{cols}"
                    for impl in op_impls:
                        cases.append({"kind": "op", "id": f"{base}-impl-{impl}", "split_key": base,
                                      "split": split_of(base), "op": op, "rows": rows, "cols": cols,
                                      "dtype": dtype, "impl": impl})
    return cases


def row_grid_cases():
    """The row-kernel grid (2026-12-02, measure_hf.py --set row-grid): ATen's rms_norm, layer_norm
    and softmax alone, bf16 and fp32, 12 row counts from one row (a decode step's norm) to 32768
    and 9 widths of the hidden sizes in use (GPT-2's 768 to 16384), plus softmax over vocabulary
    widths (rows longer than shared memory). Split by the hash of each shape's id, as every set."""
    aten = (("rmsnorm", ("aten_rms_norm",)), ("layernorm", ("aten_layer_norm",)), ("softmax", ("aten_softmax",)))
    rows = (1, 4, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 32768)
    cols = (768, 1024, 2048, 2880, 4096, 5120, 7168, 8192, 16384)
    vocab = row_op_cases((1, 16, 256, 2048), (32000, 151936), ("bf16", "fp32"), (("softmax", ("aten_softmax",)),))
    return row_op_cases(rows, cols, ("bf16", "fp32"), aten) + vocab


def extra_kernel_cases():
    """The second kernel run (2026-12-01, measure_hf.py --set extra-kernels): other head shapes
    (Llama-3-70B's 64/8/128, Qwen2.5-7B-like 28/4/128, GPT-2-like 16/16/64) and sizes, and norms /
    softmax at other widths, so that each implementation has held-out shapes beyond Llama-3-8B's."""
    cases = []
    heads = [(64, 8, 128), (28, 4, 128), (16, 16, 64)]
    shapes = [(2, 1024, 1024), (1, 4096, 4096), (4, 1, 4096), (16, 1, 1024), (32, 1, 512)]
    for h, kvh, d in heads:
        for b, q, kv in shapes:
            base = attn_base_id(b, q, kv, h, kvh, d)
            for be in SDPA_BACKENDS:
                cases.append({"kind": "op", "id": f"{base}-impl-{be.lower()}", "split_key": base,
                              "split": split_of(base), "op": "attention", "batch": b, "heads": h, "kv_heads": kvh,
                              "head_dim": d, "q_len": q, "kv_len": kv, "causal": q == kv, "dtype": "bf16",
                              "impl": be.lower()})
    return cases + row_op_cases((8, 256, 2048, 8192), (2048, 3584, 5120))


def row_check_cases():
    """The row-kernel check (2026-12-02, measure_hf.py --set row-check), measured after
    model/aten_row_cost.cpp was fitted on the row grid: shapes the grid never had (other row counts
    and widths, and fp16), every record held out, to test the fitted model out of sample."""
    aten = (("rmsnorm", ("aten_rms_norm",)), ("layernorm", ("aten_layer_norm",)), ("softmax", ("aten_softmax",)))
    rows = (2, 8, 48, 96, 200, 384, 1536, 6144, 16384)
    cols = (1536, 2560, 3584, 6144, 12288)
    cases = row_op_cases(rows, cols, ("bf16", "fp16", "fp32"), aten)
    cases += row_op_cases((8, 512, 4096), (50257, 65536), ("bf16", "fp32"), (("softmax", ("aten_softmax",)),))
    for c in cases:
        c["split"] = "holdout"
    return cases



def generate_check_cases():
    """The generate() check (2026-12-07, measure_hf.py --set generate-check): whole generate() calls
    at prompts, batches and lengths no earlier run had, on Llama (8 and 32 layers), Mixtral and
    Qwen2-MoE (2 layers each), measured after every model choice of the runtime; every record held
    out (the three generate records before were all on the fit side)."""
    cases = []
    for b, p, n in ((1, 128, 32), (1, 2048, 32), (4, 1024, 64), (16, 512, 32), (32, 256, 16),
                    (64, 128, 16)):
        cases.append(wcase(model=LLAMA, layers=8, phase="generate", batch=b, seq=p, new_tokens=n,
                           cache="dynamic", launch="eager"))
    cases.append(wcase(model=LLAMA, layers=32, phase="generate", batch=4, seq=512, new_tokens=32,
                       cache="dynamic", launch="eager"))
    for model, batches in (("hf-mixtral-8x7b", (1, 8)), ("hf-qwen2moe-a2.7b", (1, 16))):
        for b in batches:
            cases.append(wcase(model=model, layers=2, phase="generate", batch=b, seq=512, new_tokens=32,
                               cache="dynamic", launch="eager"))
    for c in cases:
        c["split"] = "holdout"
    return cases


def mask_grid_cases():
    """The masked-attention and odd-width softmax set (2026-12-02, measure_hf.py --set mask-grid).
    SDPA as transformers runs a sliding layer's prefill (a bool window mask, K/V expanded, PyTorch's
    own backend pick) beside the same shapes unmasked non-causal and is_causal, at Gemma 2/3's,
    Mistral's and Llama's head shapes; and ATen's softmax at widths off the powers of two (its warp
    kernel pads a row to the next one), as eager attention's score rows of kv + 1 (gpt-oss's sinks).
    Split by the hash of each shape's id before any fit."""
    cases = []
    heads = [(32, 16, 128), (32, 8, 128)]
    shapes = [(1, 1024), (1, 2048), (1, 4096), (1, 8192), (4, 1024), (2, 4096), (8, 512)]
    for h, kvh, d in heads:
        for b, s in shapes:
            for mask, causal, window in (("window", False, 1024), ("window", False, 4096), ("none", False, 0),
                                         ("none", True, 0)):
                if mask == "window" and window > s:  # transformers builds no mask below the window
                    continue
                kind = f"window{window}" if mask == "window" else "causal" if causal else "full"
                base = f"attn-prefill-b{b}-h{h}-kv{kvh}-d{d}-s{s}-{kind}"
                cases.append({"kind": "op", "id": f"{base}-impl-sdpa-mask-{mask}", "split_key": base,
                              "split": split_of(base), "op": "attention", "batch": b, "heads": h,
                              "kv_heads": kvh, "head_dim": d, "q_len": s, "kv_len": s, "causal": causal,
                              "dtype": "bf16", "impl": "sdpa", "mask": mask, "window": window})
    aten = (("softmax", ("aten_softmax",)),)
    cases += row_op_cases((4096, 32768, 131072), (257, 513, 700, 1025, 1500, 2049, 3000, 4097, 5000),
                          ("bf16", "fp32"), aten)
    return cases
