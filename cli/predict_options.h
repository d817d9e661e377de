// The flags of `ridgeline predict` (and `ridgeline sweep`), and their translation into a
// RunConfig. Flag values are checked here (names) and by check_run_config (combinations).
#pragma once

#include "workloads/run_config.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ridgeline {

struct PredictOptions {
  std::string gpu = "h100-sxm";
  std::vector<std::string> sets;
  std::string profile;  // "" = automatic, "none", or a profile file
  std::string model;
  std::string phase;
  long long batch = 1, seq = 0, kv_len = 0, blocks = 0, max_cache_len = 0;
  std::string kv_cache_impl;  // --kv-cache-impl: empty = the runtime's own
  std::string logits = "last";
  std::string launch = "graph";
  std::string runtime = "pytorch-eager";
  std::string weights = "bf16", activations = "bf16", kv_cache = "bf16";
  std::string optimizer = "none";
  bool recompute = false, ignore_memory = false;
  double moe_imbalance = 1.0;
  std::string format = "table";
  std::string trace;
  int top = 10;
};

// The GPU (--gpu, --set, --profile), the workload flags and --format: what predict and sweep
// share.
void add_target_flags(CLI::App& cmd, PredictOptions& o);
// add_target_flags and predict's own (--ignore-memory, --trace, --top).
void add_predict_flags(CLI::App& cmd, PredictOptions& o);
// Only the flags that say what runs (model, phase, sizes, precision, runtime, launch);
// `required`: --model and --phase must be given.
void add_workload_flags(CLI::App& cmd, PredictOptions& o, bool required);
RunConfig run_config_from(const PredictOptions& o);

}  // namespace ridgeline
