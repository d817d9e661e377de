"""measure_models.py's case grid: the models (Llama-3-8B, four blocks of it,
eight layers for training), the prefill, decode and training sizes, eager and
CUDA-graph launch, the method text a data file carries, and what a case needs
in memory (so a case that cannot fit is not tried). measure_moe.py passes its
own grid through GRID.
"""

import collections

from .optional import torch

if torch is not None:
    import llama_model as lm   # validate/measure is on sys.path (the entry script's folder)
else:
    lm = None

from op_grid import split_of  # the same stable 30% hash split as the kernel grid
from .harness import percentile


GIB = 1 << 30
NAME_CHARS = 160
TOP_KERNELS = 40
ROPE_LEN = 8192 + 64          # RoPE table rows: positions up to kv 8192 + 1

# A spec may also carry "config" (a function returning the model's LlamaConfig;
# default Llama-3-8B), "moe" (moe_block.MoeSpec keyword arguments: MoE MLPs) and
# "id_name" (the name in case ids, when the record's "model" is a path).
MODEL_SPECS = {
    "blocks4": {"num_layers": 4, "blocks_only": True},
    "llama-3-8b": {"num_layers": 32, "blocks_only": False},
    "llama-3-8b-8layers": {"num_layers": 8, "blocks_only": False},
}
PHASE_MODELS = {"prefill": ("blocks4", "llama-3-8b"),
                "decode": ("blocks4", "llama-3-8b"),
                "train": ("blocks4", "llama-3-8b-8layers")}
MODEL_ORDER = ("blocks4", "llama-3-8b", "llama-3-8b-8layers")
PREFILL_SIZES = ((1, 512), (1, 2048), (1, 8192), (4, 512), (4, 2048))
DECODE_BATCHES = (1, 8, 32, 128)
DECODE_KV = (512, 2048, 8192)
TRAIN_SIZES = tuple((b, s) for b in (1, 2, 4) for s in (512, 2048))
MODES = ("eager", "graph")
TRACE_CASES = ("blocks4-decode-b8-kv2048-eager", "blocks4-prefill-b1-s2048-eager")
ADAMW = {"lr": 1e-6, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}

METHOD_TEXT = (
    "Model: validate/measure/llama_model.py, a Hugging-Face-style Llama in "
    "plain PyTorch (Llama-3-8B shape: hidden 4096, 32 heads, 8 KV heads, "
    "head_dim 128, intermediate 14336, vocab 128256, untied embeddings), "
    "random bf16 weights (normal std 0.02, norms 1) and bf16 activations, "
    "built on the GPU. Per block: F.rms_norm (one kernel), q/k/v_proj "
    "separate nn.Linear, RoPE as x*cos + cat(-x2, x1)*sin (mul, neg, cat, "
    "mul, add per q and k; cos/sin tables precomputed), "
    "F.scaled_dot_product_attention (is_causal for prefill/train, "
    "enable_gqa=True, backend left to PyTorch), transpose(1,2).contiguous(), "
    "o_proj, residual add, F.rms_norm, gate_proj, up_proj, F.silu, mul, "
    "down_proj, residual add. Decode: static KV cache [batch, 8, kv_len+1, "
    "128] per layer filled with randn, new K/V written with "
    "narrow(2, kv_len, 1).copy_(), attention over narrow(2, 0, kv_len+1) "
    "without mask; every timed step is the step at position kv_len. "
    "Inference (torch.inference_mode): final norm over all positions, LM head "
    "on the last position. Training: logits for all positions, loss "
    "F.cross_entropy(logits.float(), labels) (labels random, taken as "
    "shifted), loss.backward(); blocks4: out.backward(static randn grad), "
    "input requires grad; grads set to None before each step (no "
    "accumulation kernels); 'adamw' adds torch.optim.AdamW(fused=True, lr "
    "1e-6, wd 0.01; graph mode also capturable=True) step, its state in the "
    "parameters' dtype (bf16) as torch creates it. Timing pass: eager: >= 3 "
    "warm-up steps (each synchronized; max_memory_allocated reset before the "
    "last), then N steps (N = clamp(0.2 s / step, 5, 400), <= ~3 s), each "
    "between two CUDA events, Python GC paused; median/p10/p90 of the "
    "per-step event times; cpu_ms_per_step = perf_counter around the loop "
    "(launch/issue time), wall_ms_per_step = around loop + synchronize, / N. "
    "graph: 3 warm-up steps on a side stream, max_memory_allocated reset, one "
    "step captured with torch.cuda.graph (grads None before capture), 2 warm "
    "replays, N replays timed the same way. Profile pass (after all timings, "
    "because a torch.profiler session leaves CUPTI attached and slows later "
    "launches): per case the same setup, then torch.profiler (CUDA activity "
    "only, schedule warmup=1 active=1) over one eager step or one graph "
    "replay (an eager step if the replay shows no kernels); kernels incl. "
    "memcpy/memset, names cut to 160 chars, durations = device time.")


# ---------------------------------------------------------------------------
# Small utilities
# ---------------------------------------------------------------------------


def stats_ms(values):
    vals = sorted(values)
    return {"median_ms": percentile(vals, 50), "p10_ms": percentile(vals, 10),
            "p90_ms": percentile(vals, 90), "min_ms": vals[0], "max_ms": vals[-1],
            "mean_ms": sum(vals) / len(vals)}


class PredictedOOM(Exception):
    """Weights (+ KV cache) alone would not fit: the case is not tried."""


def oom_error_types():
    types = []
    if torch is not None and hasattr(torch.cuda, "OutOfMemoryError"):
        types.append(torch.cuda.OutOfMemoryError)
    return tuple(types)


def is_oom(exc):
    return isinstance(exc, oom_error_types()) or "out of memory" in str(exc).lower()


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

def make_case(model, phase, mode, batch, seq=None, kv_len=None, optimizer="none"):
    spec = MODEL_SPECS[model]
    name = spec.get("id_name", model)
    if phase == "decode":
        cid = f"{name}-decode-b{batch}-kv{kv_len}-{mode}"
    else:
        opt = "-adamw" if optimizer != "none" else ""
        cid = f"{name}-{phase}-b{batch}-s{seq}{opt}-{mode}"
    case = {"id": cid, "split": split_of(cid), "model": model, "phase": phase,
            "mode": mode, "batch": batch}
    if phase == "decode":
        case.update({"kv_len": kv_len, "q_len": 1, "attn_kv_len": kv_len + 1,
                     "tokens": batch})
    else:
        case.update({"seq": seq, "q_len": seq, "attn_kv_len": seq, "tokens": batch * seq})
    case.update({"layers": spec["num_layers"], "blocks_only": spec["blocks_only"],
                 "dtype": "bf16", "optimizer": optimizer})
    if "moe" in spec:
        case["moe"] = dict(spec["moe"])
    if spec["blocks_only"]:
        case["logits"] = "none"
    else:
        case["logits"] = "all" if phase == "train" else "last"
    if phase == "train":
        case["loss"] = ("backward(static randn grad_output)" if spec["blocks_only"]
                        else "cross_entropy(logits.float(), labels), all positions")
    if optimizer == "adamw":
        case["adamw"] = {"fused": True, "capturable": mode == "graph",
                         "state_dtype": "bf16 (as the params)", **ADAMW}
    return case


def build_cases():
    """All cases, grouped by model (each model is built once per pass), then
    phase and size; within a size eager before graph (they share inputs)."""
    cases = []
    for model in MODEL_ORDER:
        if model in PHASE_MODELS["prefill"]:
            for b, s in PREFILL_SIZES:
                for mode in MODES:
                    cases.append(make_case(model, "prefill", mode, b, seq=s))
        if model in PHASE_MODELS["decode"]:
            for b in DECODE_BATCHES:
                for kv in DECODE_KV:
                    for mode in MODES:
                        cases.append(make_case(model, "decode", mode, b, kv_len=kv))
        if model in PHASE_MODELS["train"]:
            for b, s in TRAIN_SIZES:
                for opt in ("none", "adamw"):
                    for mode in MODES:
                        cases.append(make_case(model, "train", mode, b, seq=s, optimizer=opt))
    return cases


# The case grid main() measures: this file's Llama grid unless a caller (measure_moe.py)
# passes its own: name, cases (a function), method text, trace_cases, extra_meta (a
# function of the meta, run before the timings, or None).
GRID = {"name": "llama", "cases": build_cases, "method": METHOD_TEXT,
        "trace_cases": TRACE_CASES, "extra_meta": None}


def input_key(case):
    size = case["kv_len"] if case["phase"] == "decode" else case["seq"]
    return (case["model"], case["phase"], case["batch"], size)


def case_counts(cases):
    counts = collections.Counter((c["phase"], c["mode"]) for c in cases)
    return {f"{p}/{m}": n for (p, m), n in sorted(counts.items())}


def llama_config():
    return lm.LlamaConfig.llama3_8b()


def model_config(name):
    """The LlamaConfig of a measured model (Llama-3-8B unless its spec says)."""
    make = MODEL_SPECS[name].get("config")
    return make() if make is not None else llama_config()


def moe_spec(name):
    """The model's moe_block.MoeSpec, or None for a dense model."""
    kwargs = MODEL_SPECS[name].get("moe")
    if kwargs is None:
        return None
    import moe_block
    return moe_block.MoeSpec(**kwargs)


def model_parameters(name):
    spec = MODEL_SPECS[name]
    return lm.parameter_count(model_config(name), spec["num_layers"], spec["blocks_only"],
                              moe=moe_spec(name))


def predicted_bytes(case):
    """A lower bound of what the case needs: weights (+ KV cache for decode)."""
    spec = MODEL_SPECS[case["model"]]
    need = 2 * model_parameters(case["model"])
    if case["phase"] == "decode":
        need += lm.kv_cache_bytes(model_config(case["model"]), spec["num_layers"],
                                  case["batch"], case["kv_len"] + 1)
    return need
