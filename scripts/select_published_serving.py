#!/usr/bin/env python3
"""Copies the single-GPU rows of shared/reference/published/serving.json that ridgeline can run
into validate/data/published-serving.json, each with its split and its ridgeline inputs.

Kept: TP = PP = 1, not disaggregated; class B (TensorRT-LLM max-throughput, trtllm-bench: every
request queued at once) and class A rows of aiconfigurator's silicon sample (closed-loop
concurrency); a model, GPU and precision ridgeline has presets for (tables below); FP4 and "Mixed"
precision rows are left out (FP4 ones have a file of their own, --nvfp4 below). The source's row_defaults are applied to each row (as its README says).

Split, fixed before any prediction was looked at: a row is held out when the first hex digit of
sha256(row id) is 8-f, fit otherwise (about half each). Nothing is fitted on held-out rows.

  python3 scripts/select_published_serving.py SERVING_JSON > validate/data/published-serving.json

aiconfigurator's SGLang and vLLM closed-loop rows state how their benchmark ran, as
aiconfigurator's own evaluation pipeline (`aiconfigurator eval`) deploys and measures a
configuration: "server", the engine settings its generator writes for an aggregated worker of batch
size B = the row's concurrency (src/aiconfigurator/generator/rule_plugin/benchmark/sglang.rule:
max_batch_size B, max_prefill_tokens ISL + 1500, enable_mixed_chunk true; .../vllm.rule:
max_batch_size B, max_num_tokens B + ISL + 1500), and "client", its default benchmark runner
(src/aiconfigurator/eval/main.py --bench-runner genai-perf; eval/benchmarks/genai_perf_runner.py:
--concurrency B, --request-count 10B, --warmup-request-count 2B, fixed ISL/OSL). The silicon sample
does not name its pipeline (its files sit under aic-auto-gap-analysis, with concurrency = batch
size); on the fit rows this took TTFT MAPE from 249% to 88% (SGLang) and from 65% to 39% (vLLM),
TPOT 28% -> 20% and 22% -> 22%. TensorRT-LLM rows keep the engine preset and the default closed
loop: the same treatment took their fit TTFT MAPE from 34% to 67% (the generator's settings) or
36% (the client alone).

With --multi-gpu it copies the tensor- and pipeline-parallel rows instead (TP x PP > 1, not
disaggregated; PP since 2026-12-07, when serve ran pipeline stages: every PP row of the source is
an RTX PRO 6000 FP4 row, which has no preset, so none is kept yet; no
expert parallelism or attention data parallelism unless both span the same GPUs as the TP size,
TensorRT-LLM's "DEP N", run as `serve --ep N`), each with the cluster its GPUs are in, and
prints what it skipped and why to stderr (same split rule):

  python3 scripts/select_published_serving.py --multi-gpu SERVING_JSON \
      > validate/data/published-serving-tp.json

With --nvfp4 it copies the NVFP4 rows instead, one GPU and multi-GPU alike (TensorRT-LLM's "FP4"
and aiconfigurator's "fp4": ModelOpt NVFP4 checkpoints, GEMMs and experts in NVFP4), on the
Blackwell and Blackwell Ultra GPUs with presets (B200, GB200, B300, GB300). Added 2026-12-07,
when ridgeline ran NVFP4 GEMMs (same split rule; none of their predictions had been seen). They
sit in a file of their own so that the BF16/FP8 scores and serve's intervals, fitted on the other
files' fit rows, stay as they were:

  python3 scripts/select_published_serving.py --nvfp4 SERVING_JSON \
      > validate/data/published-serving-nvfp4.json
"""
import hashlib
import json
import sys

MODELS = {"llama3.1-8b": "llama-3.1-8b", "llama3-70b": "llama-3-70b",
          "llama3.1-70b": "llama-3.1-70b", "llama3.3-70b": "llama-3.3-70b",
          "mistral-7b": "mistral-7b", "mixtral-8x7b": "mixtral-8x7b",
          # Added 2026-12-06, once serve ran models whose layers differ and MLA (same split rule;
          # none of their predictions had been looked at): the 2025-26 families with presets.
          # DeepSeek-R1 is DeepSeek-V3's architecture; its rows here are all expert-parallel,
          # attention-data-parallel or disaggregated, so none is kept yet.
          "gpt-oss-20b": "gpt-oss-20b", "gpt-oss-120b": "gpt-oss-120b",
          "llama4-scout": "llama-4-scout", "llama4-maverick": "llama-4-maverick",
          "qwen3-30b-a3b": "qwen3-30b-a3b", "qwen3-235b-a22b": "qwen3-235b-a22b",
          "qwen3-32b": "qwen3-32b", "deepseek-v3": "deepseek-v3", "deepseek-r1": "deepseek-v3"}
GPUS = {"H100 SXM 80GB": "h100-sxm", "H200 SXM 141GB": "h200-sxm",
        "A100-SXM4-80GB": "a100-sxm-80gb", "L40S 48GB": "l40s", "B200 180GB": "b200"}
PRECISIONS = {"FP8": "fp8", "fp8": "fp8", "FP16": "fp16", "": "bf16"}
NVFP4 = "--nvfp4" in sys.argv
if NVFP4:  # the NVFP4 rows only: FP4 (TensorRT-LLM's tables), fp4 (aiconfigurator's)
    PRECISIONS = {"FP4": "nvfp4", "fp4": "nvfp4"}
    GPUS.update({"GB200": "gb200", "GB200 192GB (NVL72)": "gb200", "B300 288GB": "b300",
                 "B300 288GB (beta)": "b300", "GB300": "gb300", "GB300 288GB NVL72 (beta)": "gb300"})
ENGINES = {"TensorRT-LLM": "trtllm", "vLLM": "vllm", "SGLang": "sglang"}
CLUSTERS = {"h100-sxm": "dgx-h100", "h200-sxm": "hgx-h200", "a100-sxm-80gb": "dgx-a100",
            "b200": "dgx-b200", "gb200": "gb200-nvl72", "b300": "dgx-b300", "gb300": "gb300-nvl72"}
SERVER_SOURCE = ("aiconfigurator's generator for an aggregated worker of batch size B = the row's "
                 "concurrency (src/aiconfigurator/generator/rule_plugin/benchmark/%s), as "
                 "`aiconfigurator eval` deploys it; assumed for the silicon sample, which does not "
                 "name its pipeline")
CLIENT_SOURCE = ("`aiconfigurator eval`'s default runner (src/aiconfigurator/eval/main.py "
                 "--bench-runner genai-perf; eval/benchmarks/genai_perf_runner.py: --concurrency B "
                 "--request-count 10B --warmup-request-count 2B); assumed for the silicon sample")
MULTI_GPU = "--multi-gpu" in sys.argv
# Added 2026-12-06 with serve --ep (same split rule; none of their predictions had been seen).
DEP_ROWS = True
SKIPPED = {}


def skip(why):
    SKIPPED[why] = SKIPPED.get(why, 0) + 1


def split(row_id):
    return "held_out" if hashlib.sha256(row_id.encode()).hexdigest()[0] in "89abcdef" else "fit"


def with_defaults(row, defaults):
    row = json.loads(json.dumps(row))
    for dotted, value in defaults.items():
        node, *rest = dotted.split(".")
        if not rest:
            row.setdefault(node, value)
            continue
        row.setdefault(node, {})
        if isinstance(row[node], dict):
            row[node].setdefault(rest[0], value)
    return row


def dep(p):
    """TensorRT-LLM's DEP N (attention data parallel N, experts over the same N GPUs): N, else 0."""
    n = p.get("tp") or 1
    if n > 1 and (p.get("ep") or 1) == n and (p.get("attention_dp") or 1) == n:
        return n
    return 0


def multi_gpu_ok(p):
    """Rows ridgeline's multi-GPU serving can run: TP > 1, or DEP N (their reason counted otherwise)."""
    if p.get("disaggregated"):
        return skip("disaggregated")
    if (p.get("tp") or 1) == 1 and (p.get("pp") or 1) == 1:
        return skip("tp 1 (the single-GPU file)")
    if DEP_ROWS and dep(p):
        if (p.get("pp") or 1) != 1:
            return skip("attention data parallel beside pp > 1 (not simulated)")
        return True
    if (p.get("ep") or 1) != 1 or (p.get("moe_ep") or 1) != 1:
        return skip("ep > 1 without attention data parallel over the same GPUs (not simulated)")
    if (p.get("attention_dp") or 1) != 1:
        return skip("attention_dp > 1 (not simulated)")
    return True


def inputs(row):
    p = row.get("parallelism", {})
    multi = MULTI_GPU or (NVFP4 and ((p.get("tp") or 1) > 1 or (p.get("pp") or 1) > 1))
    if multi:
        if not multi_gpu_ok(p):
            return None
    elif p.get("disaggregated") or p.get("tp") != 1 or (p.get("pp") or 1) != 1:
        return None
    model = MODELS.get(row["model"]["key"])
    gpu = GPUS.get(row["hardware"]["gpu"])
    precision = PRECISIONS.get(row.get("precision", {}).get("as_printed"))
    engine = ENGINES.get(row.get("engine"))
    w = row["workload"]
    if None in (model, gpu, precision, engine):
        if multi:
            skip("model, GPU, precision or engine without a ridgeline preset")
        return None
    if multi and gpu not in CLUSTERS:
        return skip("GPU without a cluster preset")
    run = {"gpu": gpu, "model": model, "precision": precision, "engine": engine,
           "input_len": w["isl"], "output_len": w["osl"]}
    if multi:
        run.update(cluster=CLUSTERS[gpu], tp=p["tp"])
        if (p.get("pp") or 1) != 1:  # pipeline stages of tp GPUs each (added 2026-12-07)
            run.update(pp=p["pp"])
        if dep(p):  # attention data parallel over the tp GPUs, experts over them
            run.update(tp=1, ep=dep(p))
    if row["class"] == "B_offline_throughput" and w.get("type") == "offline_max_throughput":
        m = row["metrics"]
        total = m.get("output_tok_s_total", m.get("output_tok_s_per_gpu"))
        if multi:  # the replica's total (v1.1+ print per GPU; derived total = per GPU x TP)
            total = m.get("output_tok_s_total", row.get("derived", {}).get("output_tok_s_total"))
        run.update(rate="inf", requests=w["num_requests"] or 3000)
        if not w["num_requests"]:
            run["requests_note"] = "not printed for this ISL/OSL; 3000, the count of most rows, assumed"
        return run, {"output_tokens_per_s": total}
    if row["source_id"] == "aiconfigurator-silicon-sample" and w.get("type") == "closed_loop_concurrency":
        run.update(concurrency=w["concurrency"])
        b, isl = w["concurrency"], w["isl"]
        if engine == "sglang":
            run["server"] = {"max_num_seqs": b, "max_prefill_tokens": isl + 1500, "mixed_chunk": True,
                             "source": SERVER_SOURCE % "sglang.rule: max_batch_size B, "
                             "max_prefill_tokens ISL + 1500, enable_mixed_chunk true"}
        if engine == "vllm":
            run["server"] = {"max_num_seqs": b, "max_num_batched_tokens": b + isl + 1500,
                             "source": SERVER_SOURCE % "vllm.rule: max_batch_size B, "
                             "max_num_tokens B + ISL + 1500"}
        if engine in ("sglang", "vllm"):
            run["client"] = {"tool": "genai-perf", "requests": 10 * b, "warmup_requests": 2 * b,
                             "source": CLIENT_SOURCE}
        return run, {"ttft_ms": row["metrics"]["ttft_ms"], "tpot_ms": row["metrics"]["tpot_ms"]}
    if multi:
        skip("class or workload not scored (static batch, other sources)")
    return None


def main():
    doc = json.load(open([a for a in sys.argv[1:] if a not in ("--multi-gpu", "--nvfp4")][0]))
    rows = []
    for row in doc["rows"]:
        row = with_defaults(row, doc["sources"][row["source_id"]].get("row_defaults", {}))
        got = inputs(row)
        if got is None:
            continue
        run, measured = got
        rows.append({"id": row["id"], "split": split(row["id"]), "source_id": row["source_id"],
                     "ridgeline": run, "measured": measured, "row": row})
    sources = {r["source_id"]: doc["sources"][r["source_id"]] for r in rows}
    out = {"description": "Single-GPU rows of the published serving measurements "
                          "(shared/reference/published/serving.json), copied with their sources, "
                          "for `ridgeline validate-serving`; chosen and split by "
                          "scripts/select_published_serving.py",
           "split_rule": "held_out when the first hex digit of sha256(id) is 8-f; fit otherwise; "
                         "fixed before any prediction was looked at",
           "metric_notes": {"output_tokens_per_s": "TensorRT-LLM max-throughput runs (all queued "
                            "at once); total output tokens/s of the one GPU",
                            "ttft_ms": "aiconfigurator silicon sample; statistic (mean or median) "
                            "not documented, compared with the simulated mean",
                            "tpot_ms": "as ttft_ms"},
           "sources": sources, "rows": rows}
    if NVFP4 or MULTI_GPU:  # what the rows are, their flag, whose throughput they print
        what, flag, whose = (("NVFP4 rows (one GPU and multi-GPU) of the published serving "
                              "measurements (shared/reference/published/serving.json) on B200, "
                              "GB200, B300 and GB300", "--nvfp4", "the GPU or the TP replica")
                             if NVFP4 else
                             ("Tensor-parallel rows (TP > 1) of the published serving measurements "
                              "(shared/reference/published/serving.json)", "--multi-gpu",
                              "the TP replica"))
        out["description"] = (what + ", copied with their sources, for `ridgeline "
                              "validate-serving`; chosen and split by "
                              "scripts/select_published_serving.py " + flag)
        out["metric_notes"]["output_tokens_per_s"] = ("TensorRT-LLM max-throughput runs (all "
                                                      "queued at once); total output tokens/s of "
                                                      + whose)
        out["skipped"] = dict(sorted(SKIPPED.items()))
    if MULTI_GPU:
        for why, n in sorted(SKIPPED.items()):
            sys.stderr.write(f"skipped {n}: {why}\n")
        sys.stderr.write(f"kept {len(rows)}\n")
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
