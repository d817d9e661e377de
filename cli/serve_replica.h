// The GPUs of one serving replica, shared by `ridgeline serve` and `ridgeline capacity`: either
// --gpu G (one GPU) or --cluster C with --tp N (a tensor-parallel replica of N of the cluster's
// GPUs; its all-reduces priced on the cluster's links), and the step model that prices it
// (serve/gpu_step_model.h for one GPU, serve/parallel_step_model.h for TP > 1), or --cluster C
// with --ep N (attention data parallel over N GPUs, the experts spread over them: "DEP N"), and
// --pp P pipeline stages of tp GPUs each (vllm, trtllm, sglang: P batches in flight).
#pragma once

#include "hardware/cluster_spec.h"
#include "hardware/gpu_spec.h"
#include "serve/disaggregated.h"
#include "serve/engine.h"
#include "serve/step_model.h"
#include "workloads/model_config.h"
#include "workloads/run_config.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

struct ReplicaFlags {
  std::string cluster, tp = "1";
  long long pp = 1, ep = 1;
};

// --cluster, --tp (a list when `tp_list`: capacity compares several), --pp, --ep.
void add_replica_flags(CLI::App& cmd, ReplicaFlags& f, bool tp_list);

// Throws InputError for a bad combination: --tp/--pp/--ep without --cluster, --gpu with
// --cluster, neither. Returns the --tp values (each >= 1).
std::vector<int64_t> replica_tp_sizes(const ReplicaFlags& f, const CLI::App& cmd, bool gpu_given);

struct ReplicaGpus {
  GpuSpec gpu;
  std::optional<ClusterSpec> cluster;
  int64_t tp = 1, pp = 1, ep = 1;
  std::string label() const;       // "h200-sxm", "h200-sxm tp4" or "h200-sxm tp4 pp2"
  std::string long_label() const;  // "h200-sxm" or "h200-sxm tp4 (hgx-h200)"
  // One GPU, aggregated, 16- or 8-bit: the only replicas whose serving intervals are stated (they
  // come from one GPU's kernel errors, which cover neither collectives nor disaggregated KV
  // transfers, and from the BF16/FP8 serving rows: on the published NVFP4 rows, predicted faster
  // than measured, they held far under 80%; validate/serving_baseline_nvfp4.json, README).
  bool states_intervals(bool disaggregated, const std::string& precision) const {
    return tp * pp * ep == 1 && !disaggregated && precision != "nvfp4";
  }
};

// Throws InputError when the engine cannot run the replica's layout: pipeline stages under an
// engine that runs the model in one process (hf-cb), or beside attention data parallelism.
void check_replica_engine(const ReplicaGpus& r, const EngineConfig& engine);

// --gpu G alone, or --cluster C's GPU with `tp` of them.
ReplicaGpus load_replica(const ReplicaFlags& f, const std::string& gpu, int64_t tp);

// --disaggregate P:D on `r` (needs --cluster; P + D replicas of r's GPUs must fit in it).
DisaggSpec replica_disaggregation(const std::string& text, const ReplicaGpus& r);

std::unique_ptr<StepModel> make_replica_step_model(const ReplicaGpus& r, const ModelConfig& model,
                                                   const RunConfig& run);

}  // namespace ridgeline
