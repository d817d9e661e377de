// Published large-model training runs (validate/data/published-training-runs.json, a verbatim
// copy of shared/reference/published/training_runs.json: NVIDIA DGX Cloud recipes, NeMo and
// Megatron-Bridge performance tables, each row with its source and full parallel configuration).
// Each row becomes a model, a run and a parallel strategy on a cluster, with its measured
// iteration time, or a skip with the reason ridgeline cannot model it yet.
//
// Held-out split, fixed before anything was predicted or fitted: a row is held out when the
// FNV-1a 64-bit hash of its `id` string (UTF-8 bytes, offset basis 0xcbf29ce484222325, prime
// 0x100000001b3) is a multiple of 3; the rest are the fit rows.
//
// Mapping (each convention the row did not print is listed in the case's `assumptions`):
//  - models: the file's `models` table, as a Hugging Face config of the matching structure:
//    arch "gpt" -> GPT-2 structure (GELU MLP, LayerNorm, learned positions, biases, tied head);
//    "llama" -> Llama (SwiGLU, RMSNorm, RoPE); "moe" with 8 experts top-2 (Mixtral, Grok-1) ->
//    Mixtral; "moe" of a qwen3 key without shared experts -> Qwen3-MoE; "nemotron" -> Nemotron
//    (GQA, RoPE, LayerNorm, squared-ReLU MLP without a gate). gpt-oss-120b, Llama 4 Maverick
//    and Scout (sinks, windows, NoPE and chunked layers the table does not print) are
//    ridgeline's presets of those checkpoints, every figure the table prints checked against
//    them; their layers of several kinds go over the pipeline stages as each chunk holds them.
//    DeepSeek-V3 (MLA, MTP and custom pipeline layouts) and the hybrid Mamba Nemotrons are
//    skipped. `layers_override` (DGX Cloud proxy models) cuts the layers.
//  - attention: gpt-oss's sinks in Transformer Engine's fused kernel (Megatron rows), not
//    transformers' eager path; RoPE fused there.
//  - GPUs: H100-SXM5 -> h100-sxm on dgx-h100, A100-SXM4-80GB -> a100-sxm-80gb on dgx-a100 and
//    H200 -> h200-sxm on hgx-h200 (no such row published yet), B200 -> b200 on dgx-b200, GB200 ->
//    gb200 on gb200-nvl72, B300 -> b300 on dgx-b300, GB300 -> gb300 on gb300-nvl72 (Blackwell
//    Ultra, added 2026-12-07). The cluster gets as many nodes as the row used when the preset has
//    fewer.
//  - precision: bf16, or FP8 through Transformer Engine (workloads/fp8_training.h) with the
//    recipe the row prints: "current scaling" / "FP8-CS" -> current; "MXFP8" / "FP8-MX" ->
//    mxfp8; "different quantization granularity" -> blockwise; "fp8" and "hybrid" (NeMo's
//    DelayedScaling default) -> delayed; Megatron-Bridge's bare "FP8" (and its 25.09 rows with no
//    precision column) -> current, assumed (its performance scripts' fp8 default). The
//    parameter all-gather is in fp8 for NeMo 2.0 and Megatron-Bridge rows with the distributed
//    optimizer (their recipes' fp8_params / fp8_param_gather), assumed; bf16 for NeMo 1.x and
//    the JAX frameworks. NVFP4 rows are skipped (fp4 training is not modelled).
//  - MoE kernels: rows whose framework names NeMo or Megatron run Megatron-Core's MoE layer with
//    Transformer Engine (runtime moe impl megatron_te, workloads/moe_megatron.cpp), the other
//    kernels as the default runtime's.
//  - not printed: recompute -> none; sequence parallelism -> on when tp > 1 (the NeMo and
//    Megatron-Bridge recipes' default); the distributed optimizer (ZeRO-1) when dp > 1 (their
//    default); vp -> 1 (and vp printed with pp 1 -> 1), except in DGX Cloud Benchmarking's
//    rows, where a pipeline-parallel row's VP printed as NA takes the VP the source prints for
//    the same model, GPU and layout in its other releases (added 2026-12-07); micro-batch -> 1.
//  - expert tensor parallelism: `etp` as printed, tp or 1 (Megatron's MoE parallel folding,
//    ParallelConfig::etp); not printed, tp, or 1 where EP does not divide dp (the only layout
//    Megatron runs there; the Qwen3-MoE recipes set expert_tensor_parallel_size 1).
//  - FSDP: `fsdp` 0 is off (the NeMo and Megatron-Bridge tables' column); 1 with dp > 1 is NeMo's
//    on/off flag, sharded over all dp ranks (a group of one rank shards nothing); dp ranks ->
//    ZeRO-3; N < dp dividing dp -> ZeRO-3 over N ranks, dp / N replicas (HSDP, --fsdp-shard N);
//    MaxText's "dcn_FSDP=a x ici_FSDP=b, dcn_DP=c" -> a x b FSDP ranks; a split not printed
//    ("FSDP+DP") is a skip.
//  - measured: iter_time_s where printed, else global batch x seq / (tokens/s/GPU x GPUs).
#pragma once

#include "workloads/fp8_training.h"
#include "workloads/model_config.h"
#include "workloads/parallel_config.h"
#include "workloads/run_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ridgeline {

struct TrainingRunCase {
  std::string id, source, split;  // split: "holdout" or "fit"
  std::string family;             // gpt3, llama2, llama3, mixtral, grok1, nemotron
  std::string gpu, cluster;       // presets: "h100-sxm", "dgx-h100"
  int64_t nodes = 0;              // nodes the row used (cluster size needed)
  ModelConfig model;
  RunConfig run;
  ParallelConfig parallel;
  double measured_us = 0;     // one iteration
  std::string measured_from;  // "iter_time_s" or "tokens_per_s_per_gpu"
  std::vector<std::string> assumptions;
  std::string precision = "bf16";  // "bf16" or "fp8" (then fp8.recipe says which)
  Fp8Training fp8{};
};

struct TrainingRunSkip {
  std::string id, reason;  // reason: a short class ("fp8 training not modelled"), then details
};

struct TrainingRunSet {
  std::string file;
  int64_t rows = 0;
  std::vector<TrainingRunCase> cases;
  std::vector<TrainingRunSkip> skipped;
};

// FNV-1a, 64 bits, over the bytes of `s`.
uint64_t fnv1a64(std::string_view s);
// "holdout" when fnv1a64(id) % 3 == 0, else "fit".
std::string training_run_split(const std::string& id);

TrainingRunSet load_training_runs(const std::string& path);
TrainingRunSet parse_training_runs(const nlohmann::json& doc, const std::string& label);

}  // namespace ridgeline
