"""transformers' paged|sdpa attention path, as continuous batching runs it, on one GPU.

Why: ridgeline's hf-cb engines price attention per request (causal, each over its own cache),
but transformers' `sdpa_attention_paged_forward` (transformers 5.17, integrations/sdpa_paged.py
and its successor in sdpa_attention.py) gathers the whole batch's K and V from the paged cache
(`cache.update` returns them by read index), expands them to every query head (`repeat_kv`),
makes them contiguous, and runs ONE `scaled_dot_product_attention` over all the step's query
tokens against all of its keys with an additive mask (`is_causal=False`), so a step's attention
grows with (query tokens) x (the batch's total KV). This probe measures that path's pieces and
profiles the real engine:

  A. micro: SDPA with a [1, 1, Q, KV] bf16 additive mask (masked entries at the dtype's min, as
     transformers' build_attention_mask writes them), q [1, 32, Q, 128], k/v [1, 32, KV, 128]
     (Llama-3-8B's heads after repeat_kv), SDPA's default backend; and the gather chain of one
     layer (index the paged cache [slots, 8, 128] by KV read indices, transpose, repeat_kv to 32
     heads, contiguous) for K and V. CUDA-event medians of 10 calls after 3, plus the kernels of
     one call from torch.profiler.
  B. engine: transformers' own LlamaForCausalLM (Llama-3-8B shape, LAYERS layers) under
     init_continuous_batching (hf_cb_engine.Engine, as measure_hf_cb.py builds it), engines
     'default' and 'cudagraph', one burst of requests under torch.profiler (CUDA activity):
     every kernel's name, count and total time over the run, and the step log; so the device
     time per step can be compared with the step's wall time (the host's share).

Output: one JSON file (meta with versions, device, nvidia-smi; "micro" rows; "engine" rows).
Split: each micro row's id hashed as op_grid.split_of does (sha256, 30% holdout), fixed here
before any prediction is compared with it.
"""

import argparse
import json
import sys
import time
import traceback

from ridgeline_measure.environment import device_meta, smi_start_meta, start_meta, transformers_version
from ridgeline_measure.harness import elapsed_s, err_text, log, sanitize, start_watchdog, write_atomic
from ridgeline_measure.optional import torch
from ridgeline_measure.profiling import _is_kernel_event, sdpa_backend_guess

import hf_cb_engine
from op_grid import split_of

HEADS, KV_HEADS, HEAD_DIM = 32, 8, 128
MICRO_GRID = [(q, kv) for q in (64, 128, 512, 2048, 8192) for kv in (16384, 32768, 65536, 131072)
              if q <= kv]

RESULT = {"meta": {}, "micro": [], "engine": []}
OUT = [None]


def write():
    if OUT[0]:
        write_atomic(OUT[0], json.dumps(sanitize(RESULT), indent=1))


def cuda_ms(fn, warmup=3, reps=10):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2], times


def kernels_of(fn):
    """(name, device us) of each GPU record one call of fn ran."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    out = []
    for evt in prof.events():
        if _is_kernel_event(evt):
            out.append([evt.name[:160], round(evt.time_range.elapsed_us(), 2)])
    return out


def micro():
    F = torch.nn.functional
    bf16 = torch.bfloat16
    for q_len, kv_len in MICRO_GRID:
        row = {"id": f"paged-sdpa-mask-q{q_len}-kv{kv_len}", "q_tokens": q_len, "kv_tokens": kv_len,
               "heads": HEADS, "kv_heads_after_repeat": HEADS, "head_dim": HEAD_DIM, "dtype": "bf16"}
        row["split"] = split_of(row["id"])
        try:
            q = torch.randn(1, HEADS, q_len, HEAD_DIM, device="cuda", dtype=bf16)
            k = torch.randn(1, HEADS, kv_len, HEAD_DIM, device="cuda", dtype=bf16)
            v = torch.randn_like(k)
            mask = torch.zeros(1, 1, q_len, kv_len, device="cuda", dtype=bf16)
            mask[..., kv_len // 2:] = torch.finfo(bf16).min  # half the keys masked off
            fn = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=False)  # noqa: E731
            row["sdpa_ms"], row["sdpa_ms_all"] = cuda_ms(fn)
            row["sdpa_kernels"] = kernels_of(fn)
            row["sdpa_backend_guess"] = sdpa_backend_guess([n for n, _ in row["sdpa_kernels"]])
            del q, k, v, mask
            # One layer's gather chain for K and V (sdpa_attention_paged_forward after cache.update).
            slots = kv_len + 4096
            k_cache = torch.randn(slots, KV_HEADS, HEAD_DIM, device="cuda", dtype=bf16)
            v_cache = torch.randn_like(k_cache)
            read = torch.randperm(slots, device="cuda")[:kv_len].sort().values

            def gather():
                outs = []
                for cache in (k_cache, v_cache):
                    x = cache[read]                           # [kv, 8, 128]
                    x = x.transpose(0, 1).unsqueeze(0)        # [1, 8, kv, 128] view
                    x = x[:, :, None].expand(1, KV_HEADS, HEADS // KV_HEADS, kv_len, HEAD_DIM)
                    x = x.reshape(1, HEADS, kv_len, HEAD_DIM).contiguous()
                    outs.append(x)
                return outs
            row["gather_ms"], row["gather_ms_all"] = cuda_ms(gather)
            row["gather_kernels"] = kernels_of(gather)
            del k_cache, v_cache, read
        except Exception as exc:  # noqa: BLE001
            row["error"] = err_text(exc)
        torch.cuda.empty_cache()
        RESULT["micro"].append(row)
        log(f"micro {row['id']}: sdpa {row.get('sdpa_ms')} ms ({row.get('sdpa_backend_guess')}), "
            f"gather {row.get('gather_ms')} ms")
        write()


def engine_part(layers, requests, in_len, out_len):
    from torch.profiler import ProfilerActivity, profile
    hf_cb_engine.LAYERS = layers
    model, info = hf_cb_engine.build_model()
    RESULT["meta"]["model"] = info
    for name in ("default", "cudagraph"):
        row = {"id": f"paged-sdpa-engine-{name}-L{layers}-n{requests}-in{in_len}-out{out_len}",
               "engine": name, "layers": layers, "requests": requests, "input_tokens": in_len,
               "output_tokens": out_len}
        eng = None
        try:
            eng = hf_cb_engine.Engine(model, name, max_new_tokens=out_len)
            row["engine_info"] = eng.info
            # The same burst once unprofiled first: the cudagraph engine captures its padded shapes
            # there, not under the profiler.
            warm = {"id": f"warm-{name}"}
            hf_cb_engine.run_requests(eng, warm, [(in_len, out_len)] * requests, None, 2, 120, 128256)
            c = {"id": row["id"]}
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                run = hf_cb_engine.run_requests(eng, c, [(in_len, out_len)] * requests, None, 2, 120,
                                                128256)
                torch.cuda.synchronize()
            kernels = {}
            for evt in prof.events():
                if not _is_kernel_event(evt):
                    continue
                k = kernels.setdefault(evt.name[:160], [0, 0.0])
                k[0] += 1
                k[1] += evt.time_range.elapsed_us()
            row["kernels"] = sorted([[n, c_, round(us, 1)] for n, (c_, us) in kernels.items()],
                                    key=lambda r: -r[2])
            row["kernel_time_total_ms"] = round(sum(r[2] for r in row["kernels"]) / 1e3, 3)
            row["steps_columns"] = run.get("steps_columns")
            row["steps"] = run.get("steps")
            row["run_wall_s"] = run.get("run_wall_s")
            row["throughput"] = run.get("throughput")
            row["requests_completed"] = run.get("requests_completed")
        except Exception as exc:  # noqa: BLE001
            row["error"] = err_text(exc)
            row["traceback"] = traceback.format_exc()[-3000:]
        finally:
            if eng is not None:
                eng.stop()
        RESULT["engine"].append(row)
        log(f"engine {name}: kernels {row.get('kernel_time_total_ms')} ms over "
            f"{len(row.get('steps') or [])} steps, wall {row.get('run_wall_s')} s, error {row.get('error')}")
        write()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--hard-limit-s", type=float, default=230)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--requests", type=int, default=64)
    ap.add_argument("--skip-engine", action="store_true")
    a = ap.parse_args()
    OUT[0] = a.out
    RESULT["meta"] = start_meta(__doc__.strip(), transformers=transformers_version())
    device_meta(RESULT["meta"])
    smi_start_meta(RESULT["meta"])
    start_watchdog(a.hard_limit_s, write)
    write()
    try:
        micro()
    except Exception as exc:  # noqa: BLE001
        RESULT["meta"]["micro_error"] = err_text(exc)
    if not a.skip_engine:
        try:
            engine_part(a.layers, a.requests, 256, 32)
        except Exception as exc:  # noqa: BLE001
            RESULT["meta"]["engine_error"] = err_text(exc)
            RESULT["meta"]["engine_traceback"] = traceback.format_exc()[-3000:]
    RESULT["meta"]["elapsed_s"] = round(elapsed_s(), 1)
    RESULT["meta"]["complete"] = True
    write()
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
