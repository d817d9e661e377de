#!/usr/bin/env python3
"""Time and profile a few decoder layers of the 2026 model families with transformers' real classes.

    python3 measure_hf_families.py --out families.json [--budget-s 240] [--smoke] [--only REGEX]
    python3 measure_hf_families.py --dry-run       # the case list and configs; needs no torch

Ground truth for issue 14: Qwen3 (Qwen3-32B shape, QK-norm), Qwen3-MoE (Qwen3-30B-A3B), Gemma-3-27B
text (5 sliding : 1 global), gpt-oss-20b (attention sinks, sliding/full, MoE; bf16 experts),
DeepSeek-V3 (MLA, 2 dense + 2 MoE layers), Phi-3-medium and OLMo-2-7B shapes, built from their
public config.json values with fewer layers and random bf16 weights (nothing downloaded). Cases:
prefill b1 s2048, decode b1 and b16 at kv 2048 with DynamicCache (eager) and with StaticCache in
a CUDA graph. Pass 1 times every case; pass 2 (after all timing: a profiler session leaves CUPTI
attached) profiles one step of each: kernels (name, count, device us) and the top CPU ops. The
timing, capture and profiling functions are measure_hf.py's (same method). METHOD_TEXT is the
method (also meta.method and HF.md); the models, their configs and the step setups are in
hf_families_models.py.
"""

import argparse
import gc
import json
import os
import re
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import measure_hf as mh  # noqa: E402  (time_eager, capture, time_replays, profile_step, caches)
from op_grid import split_of  # noqa: E402
from ridgeline_measure.harness import elapsed_s, err_text, sanitize, utc_now, write_atomic  # noqa: E402
from ridgeline_measure.environment import nvidia_smi  # noqa: E402
from ridgeline_measure.hf_run import hf_run_meta, start_doc_writer, warm_gpu  # noqa: E402
from hf_families_models import DEVIATIONS, FAMILIES, _BUILT, family_config, log, setup  # noqa: E402

torch = mh.torch

METHOD_TEXT = (
    "Models: transformers' own classes (Qwen3ForCausalLM, Qwen3MoeForCausalLM, Gemma3ForCausalLM, "
    "GptOssForCausalLM, DeepseekV3ForCausalLM, Phi3ForCausalLM, Olmo2ForCausalLM) built from the public "
    "config.json values of Qwen3-32B, Qwen3-30B-A3B, gemma-3-27b (text), gpt-oss-20b, DeepSeek-V3, "
    "Phi-3-medium-4k and OLMo-2-1124-7B with num_hidden_layers reduced (4; Gemma 6; DeepSeek "
    "first_k_dense_replace 2, i.e. 2 dense + 2 MoE layers, experts not reduced), each record's config "
    "in 'config' and changes in 'deviation'; attn_implementation sdpa (eager where the class refuses "
    "sdpa: recorded); built under torch.device('cuda') with default dtype bf16, random weights from "
    "transformers' init (seed 0); inputs random token ids; torch.inference_mode; logits_to_keep=1. "
    "Prefill: model(ids b1 s2048, use_cache=True) (the model's DynamicCache). Dynamic decode: "
    "DynamicCache(config) filled by a real prefill of kv=2048 random tokens, then each step is one "
    "token per sequence at the next position (position_ids and cache_position tensors made ahead); "
    "the steps are not cropped (sliding layers cannot crop), so the timed steps see kv 2048+3 .. "
    "2048+3+N (kv_len_end recorded); eager. 'dynamic_crop' decode (a second run, same day): the same, "
    "but DynamicCache.crop(kv) before every step outside the timed region, so every step is the step "
    "at position kv (measure_hf.py's method; a growing cache is a new KV length every step); "
    "'eager-sdpa_flash': the growing-cache decode under sdpa_kernel([FLASH_ATTENTION]) (diagnostic). "
    "Static decode: StaticCache(config, max_cache_len=kv+16) "
    "holding kv=2048 tokens of randn K/V written with cache.update(cache_position 0..kv-1), the K/V "
    "shapes per layer read from a one-token forward into a DynamicCache (MLA: K and V head dims "
    "differ), reset and rewritten before every step outside the timed region (measure_hf.py's "
    "method), each step at position kv; captured in a CUDA graph "
    "(measure_hf.capture: 3 warm-up steps on the default stream, one step captured, 2 warm replays, "
    "N replays timed). Timing as measure_hf.py: eager 3 warm-up steps then >= 10 steps (~1 s), each "
    "synchronized, CUDA events (device_ms), perf_counter around the call (host_ms) and call + "
    "synchronize (wall_ms), GC paused; graph: CUDA events around each replay. Pass 2, after every "
    "timing of its family (each family runs in its own process: eager cases timed, then profiled, then "
    "each graph case timed and profiled): each case set up again, one warm step, torch.profiler "
    "(CPU + CUDA) over one step (one "
    "replay in graph mode): kernels with count and device us (names cut to 200 chars), the 40 most "
    "frequent CPU ops. Second run (h200-sxm-families2-*.json): the same method for Gemma2ForCausalLM "
    "(gemma-2-27b), Qwen2MoeForCausalLM (Qwen2-57B-A14B), Llama4ForCausalLM (Llama-4-Scout text, 16 "
    "experts top-1, chunked attention, NoPE every 4th layer) and DeepseekV2ForCausalLM (DeepSeek-V2-Lite), "
    "their configs from ridgeline's presets (workloads/models/*.json, the published config.json values); "
    "and for every family six more shapes: prefill b2 s1024 and b4 s512, decode b4 kv1024 and b8 kv512, each "
    "cropped-cache eager and StaticCache graph. Third run (--third, 2026-12-02): prefill b1 s1024, b8 s256 and "
    "b1 s4096, decode b32 kv1024 cropped-cache eager and StaticCache graph, every family. Fourth run (--fourth, "
    "2026-12-02, measured after that day's model changes): prefill b2 s2048, b1 s3072, b16 s128, decode b2 kv3072 "
    "and b64 kv512 cropped-cache eager and StaticCache graph, every family, every record held out. Fifth run "
    "(--fifth, 2026-12-06, measured after the masked-softmax rule): prefill b1 s2560, b4 s1024, b1 s5120, decode "
    "b8 kv2048 and b24 kv1536 cropped-cache eager and StaticCache graph, every family, every record held out. "
    "Split: split_of(id), sha256 of the id, 30% holdout.")


FOURTH = [("prefill", 2, 2048, "dynamic", "eager"), ("prefill", 1, 3072, "dynamic", "eager"),
          ("prefill", 16, 128, "dynamic", "eager"), ("decode", 2, 3072, "dynamic_crop", "eager"),
          ("decode", 64, 512, "dynamic_crop", "eager"), ("decode", 2, 3072, "static", "graph"),
          ("decode", 64, 512, "static", "graph")]


# Fifth run (2026-12-06, after the masked-softmax rule): other prompt lengths (the causal and window
# masks' share of the scores), batch sizes and cache lengths, every record held out.
FIFTH = [("prefill", 1, 2560, "dynamic", "eager"), ("prefill", 4, 1024, "dynamic", "eager"),
         ("prefill", 1, 5120, "dynamic", "eager"), ("decode", 8, 2048, "dynamic_crop", "eager"),
         ("decode", 24, 1536, "dynamic_crop", "eager"), ("decode", 8, 2048, "static", "graph"),
         ("decode", 24, 1536, "static", "graph")]


def cases_for(smoke=False, third=False, fourth=False, fifth=False):
    out = []
    for fam, (_, _, layers, _) in FAMILIES.items():
        L = 2 if smoke else layers
        if fourth or fifth:  # the fourth and fifth runs: new shapes, all held out
            for phase, b, n, cache, launch in (FIFTH if fifth else FOURTH):
                size = f"b{b}-s{n}" if phase == "prefill" else f"b{b}-kv{n}"
                cid = f"hf-{fam}-L{L}-{phase}-{size}-{cache}-{launch}"
                out.append({"id": cid, "split": "holdout", "kind": "workload", "family": fam, "layers": L,
                            "phase": phase, "batch": b, "seq": n if phase == "prefill" else None,
                            "kv_len": n if phase == "decode" else None, "cache": cache, "launch": launch})
            continue
        kv = 256 if smoke else 2048
        specs = [("prefill", 1, 512 if smoke else 2048, "dynamic", "eager")]
        for b in ([1] if smoke else [1, 16]):
            specs.append(("decode", b, kv, "dynamic", "eager"))
            specs.append(("decode", b, kv, "static", "graph"))
            specs.append(("decode", b, kv, "dynamic_crop", "eager"))
        # second run (2026-12-01): more shapes for every family, so that each has held-out records
        specs.append(("prefill", 2, 256 if smoke else 1024, "dynamic", "eager"))
        specs.append(("prefill", 4, 128 if smoke else 512, "dynamic", "eager"))
        if not smoke:
            specs.append(("decode", 4, 1024, "dynamic_crop", "eager"))
            specs.append(("decode", 4, 1024, "static", "graph"))
            specs.append(("decode", 8, 512, "dynamic_crop", "eager"))
            specs.append(("decode", 8, 512, "static", "graph"))
        if third and not smoke:  # third run (2026-12-02): other prefill token counts, batch-32 decodes
            specs.append(("prefill", 1, 1024, "dynamic", "eager"))
            specs.append(("prefill", 8, 256, "dynamic", "eager"))
            specs.append(("prefill", 1, 4096, "dynamic", "eager"))
            specs.append(("decode", 32, 1024, "dynamic_crop", "eager"))
            specs.append(("decode", 32, 1024, "static", "graph"))
        if fam == "qwen3-32b":  # diagnostic: the growing-cache decode with SDPA held to the flash backend
            specs.append(("decode", 1, kv, "dynamic", "eager-sdpa_flash"))
        for phase, b, n, cache, launch in specs:
            size = f"b{b}-s{n}" if phase == "prefill" else f"b{b}-kv{n}"
            cid = f"hf-{fam}-L{L}-{phase}-{size}-{cache}-{launch}"
            out.append({"id": cid, "split": split_of(cid), "kind": "workload", "family": fam, "layers": L,
                        "phase": phase, "batch": b, "seq": n if phase == "prefill" else None,
                        "kv_len": n if phase == "decode" else None, "cache": cache, "launch": launch})
    return out




def run_timing(case, rec):
    t = time.perf_counter()
    try:
        st = setup(case)
        if st["graph"]:
            rec.update(st["extra"])
            rec["stage"] = "capturing (a record that stops here died in the capture or its warm-up)"
            if WRITE_HOOK:
                WRITE_HOOK[0]()
            g, cap_s = mh.capture(st["step"], pre=st.get("pre"))
            rec.pop("stage", None)
            rec["capture_s"] = round(cap_s, 3)
            rec.update(mh.time_replays(g, pre=st.get("pre")))
            del g
        else:
            rec.update(mh.time_eager(st["step"], st.get("pre")))
        state = st["extra"].pop("_state", None)
        if state is not None:
            rec["kv_len_end"] = case["kv_len"] + state["n"]
        rec.update(st["extra"])
        rec["peak_mem_bytes"] = torch.cuda.max_memory_allocated()
        del st
    except Exception as exc:  # noqa: BLE001
        rec["error"] = err_text(exc)
        rec["traceback"] = traceback.format_exc()[-2500:]
        log(f"ERROR {case['id']}: {rec['error'][:300]}")
    rec["wall_s"] = round(time.perf_counter() - t, 2)
    gc.collect()
    mh_alive_or_raise()
    torch.cuda.reset_peak_memory_stats()


WRITE_HOOK = []  # the child's write(), so a record is on disk before a risky capture


def mh_alive_or_raise():
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def run_profile(case, rec):
    if "error" in rec:
        return
    try:
        st = setup(case)
        if st["graph"]:
            g, _ = mh.capture(st["step"], pre=st.get("pre"))
            st["pre"]()
            g.replay()
            p = mh.profile_step(g.replay, pre=st.get("pre"))
            p["profile_source"] = "graph_replay"
            del g
        else:
            if st.get("pre"):
                st["pre"]()
            st["step"]()
            p = mh.profile_step(st["step"], pre=st.get("pre"))
        p["cpu_ops"] = p.get("cpu_ops", [])[:40]
        rec.update(p)
        rec["kernels_per_layer_approx"] = p["kernel_count"] / case["layers"]
        del st
    except Exception as exc:  # noqa: BLE001
        rec["profile_error"] = err_text(exc)
        log(f"PROFILE ERROR {case['id']}: {rec['profile_error'][:300]}")
    finally:
        gc.collect()
        mh_alive_or_raise()


def child(args, cases, t_start):
    """One family in this process: eager cases timed then profiled, then the graph cases."""
    meta = {"family": args.family, "utc_start": utc_now(), "skipped_ids": [], "profile_skipped_ids": []}
    recs = {c["id"]: {} for c in cases}
    doc = {"meta": meta, "records": recs}

    def write():
        meta["utc_written"] = utc_now()
        write_atomic(args.out, json.dumps(sanitize(doc), indent=1))
    WRITE_HOOK.append(write)
    write()
    warm_gpu()
    B = args.budget_s
    eager = [c for c in cases if c["launch"] != "graph"]
    graph = [c for c in cases if c["launch"] == "graph"]

    def timed(c):
        if elapsed_s() - t_start > B * 0.7:
            meta["skipped_ids"].append(c["id"])
            recs[c["id"]].update({"error": "not run: budget", "skipped": True})
            return False
        log(f"time {c['id']}")
        meta["current"] = c["id"]
        write()
        run_timing(c, recs[c["id"]])
        r = recs[c["id"]]
        log(f"   -> dev {r.get('device_median_ms')} host {r.get('host_median_ms')} {r.get('error', '')[:200]}")
        write()
        return True

    def profiled(c):
        if elapsed_s() - t_start > B:
            meta["profile_skipped_ids"].append(c["id"])
            return
        log(f"profile {c['id']}")
        meta["current"] = c["id"] + " (profile)"
        write()
        run_profile(c, recs[c["id"]])
        write()
    done = [c for c in eager if timed(c)]
    for c in done:
        profiled(c)
    for c in graph:
        if timed(c):
            profiled(c)
    key = (cases[0]["family"], cases[0]["layers"])
    if key in _BUILT:
        meta["model_info"] = _BUILT[key][1]
    meta.pop("current", None)
    meta["utc_end"] = utc_now()
    write()
    log("child done")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="families.json")
    ap.add_argument("--budget-s", type=float, default=240)
    ap.add_argument("--hard-limit-s", type=float, default=None)
    ap.add_argument("--only", default=None)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--third", action="store_true", help="add the third run's shapes (select them with --only)")
    ap.add_argument("--fourth", action="store_true", help="only the fourth run's shapes (FOURTH), every record held out")
    ap.add_argument("--fifth", action="store_true", help="only the fifth run's shapes (FIFTH), every record held out")
    ap.add_argument("--family", default=None, help="(internal) run one family in this process")
    args = ap.parse_args()
    cases = cases_for(args.smoke, args.third, args.fourth, args.fifth)
    if args.only:
        cases = [c for c in cases if re.search(args.only, c["id"])]
    if args.dry_run:
        for c in cases:
            print(c["id"], c["split"])
        for fam in FAMILIES:
            print(fam, json.dumps(family_config(fam, FAMILIES[fam][2])[2])[:160], file=sys.stderr)
        print(f"{len(cases)} cases, {sum(c['split'] == 'holdout' for c in cases)} holdout", file=sys.stderr)
        return
    t_start = elapsed_s()
    if args.family:
        child(args, [c for c in cases if c["family"] == args.family], t_start)
        return
    import subprocess
    meta = hf_run_meta(METHOD_TEXT, args)
    meta["families_public_config"] = {f: {"config_class": v[0], "model_class": v[1], "layers_built": v[2],
                                          "public": v[3], "deviation": DEVIATIONS.get(f)}
                                      for f, v in FAMILIES.items()}
    meta["process_per_family"] = ("each family runs in its own process (a device-side assert in one "
                                  "family's CUDA-graph capture kills only that process); per family: "
                                  "eager cases timed, then profiled, then each graph case timed + profiled")
    meta["skipped_ids"] = []
    meta["profile_skipped_ids"] = []
    meta["children"] = {}
    meta["models"] = {}
    meta["splits"] = {c["id"]: c["split"] for c in cases}
    recs = {}
    for c in cases:
        r = dict(c)
        r["model"] = f"hf-{c['family']}"
        r["deviation"] = DEVIATIONS.get(c["family"])
        recs[c["id"]] = r
    doc = {"meta": meta, "records": list(recs.values())}
    hard = t_start + (args.hard_limit_s or args.budget_s + 45)
    write = start_doc_writer(args.out, doc, hard)
    fams = list(dict.fromkeys(c["family"] for c in cases))
    for i, fam in enumerate(fams):
        left = args.budget_s - (elapsed_s() - t_start)
        share = left / (len(fams) - i)
        fcases = [c for c in cases if c["family"] == fam]
        if share < 15:
            for c in fcases:
                meta["skipped_ids"].append(c["id"])
                recs[c["id"]].update({"error": "not run: budget", "skipped": True})
            continue
        part = os.path.join(tempfile.gettempdir(), f"{os.path.basename(args.out)}.{fam}.part")
        cmd = [sys.executable, os.path.abspath(__file__), "--family", fam, "--out", part,
               "--budget-s", str(round(share, 1))] + (["--smoke"] if args.smoke else []) + (["--third"] if args.third else []) + (["--fourth"] if args.fourth else []) + (["--fifth"] if args.fifth else []) + \
              (["--only", args.only] if args.only else [])
        log(f"family {fam}: child with budget {share:.0f} s")
        t = time.perf_counter()
        try:
            rc = subprocess.run(cmd, timeout=max(30, min(share * 1.6, hard - elapsed_s() - 5))).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        info = {"rc": rc, "wall_s": round(time.perf_counter() - t, 1)}
        try:
            part_doc = json.load(open(part))
            pm = part_doc["meta"]
            info.update({k: pm.get(k) for k in ("current", "utc_start", "utc_end", "skipped_ids",
                                                "profile_skipped_ids")})
            meta["skipped_ids"] += pm.get("skipped_ids", [])
            meta["profile_skipped_ids"] += pm.get("profile_skipped_ids", [])
            model_info = pm.get("model_info") or {}
            meta["models"][fam] = model_info
            for cid, r in part_doc["records"].items():
                recs[cid].update(r)
                recs[cid]["model_info"] = {k: v for k, v in model_info.items() if k != "config"}
                recs[cid]["config"] = model_info.get("config")
            if rc != 0 and pm.get("current"):
                cur = pm["current"].split(" ")[0]
                recs[cur].setdefault("error", f"the family's process died here (rc {rc}); see the log")
                for c in fcases:
                    if not recs[c["id"]].get("device_median_ms") and "error" not in recs[c["id"]]:
                        recs[c["id"]]["error"] = f"not run: the family's process died earlier (rc {rc})"
            os.remove(part)
        except Exception as exc:  # noqa: BLE001
            info["merge_error"] = err_text(exc)
        meta["children"][fam] = info
        write()
    meta["nvidia_smi_end"] = nvidia_smi()
    meta["utc_end"] = utc_now()
    write()
    log("done")


if __name__ == "__main__":
    main()
