// The flags of `ridgeline predict` (and `ridgeline sweep`), and their translation into a
// RunConfig. Flag values are checked here (names) and by check_run_config (combinations).
#pragma once

#include "workloads/parallel_config.h"
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
  long long new_tokens = 0;       // --new-tokens (--phase generate); 0 = not given
  std::string kv_cache_impl;      // --kv-cache-impl: empty = the runtime's own
  std::string attention_backend;  // --attention-backend: empty = the runtime's own
  std::string logits = "last";
  std::string launch = "graph";
  std::string runtime = "pytorch-eager";
  std::string weights = "bf16", activations = "bf16", kv_cache = "bf16";
  std::string expert_weights = "same";  // --expert-weights same|mxfp4
  std::string optimizer = "none";
  std::string recompute = "none";  // --recompute alone means full (as before the modes existed)
  std::string master_weights = "none";  // --master-weights none|fp32 (train)
  bool grad_scaler = false;             // --grad-scaler (fp16 training)
  bool ignore_memory = false;
  double moe_imbalance = 1.0;
  std::string format = "table";
  std::string trace;
  int top = 10;
  // Many GPUs (--cluster and the strategy flags; predict only).
  std::string cluster;
  long long gpus = 0, tp = 1, pp = 1, vp = 1, dp = 0, cp = 1, ep = 1,
            etp = 0;  // dp 0: gpus / (tp pp cp)
  bool sp = false;
  int zero = 0;
  long long fsdp_shard = 0;  // 0: ZeRO-3 over all dp ranks
  long long microbatch = 0, global_batch = 0;
  std::string schedule = "1f1b";
  std::vector<std::string> split_counts;  // --pipeline-split-counts: embedding and/or loss
};

// The GPU (--gpu, --set, --profile), the workload flags and --format: what predict and sweep
// share.
void add_target_flags(CLI::App& cmd, PredictOptions& o);
// add_target_flags and predict's own (--ignore-memory, --trace, --top).
void add_predict_flags(CLI::App& cmd, PredictOptions& o);
// Only the flags that say what runs (model, phase, sizes, precision, runtime, launch);
// `required`: --model and --phase must be given.
void add_workload_flags(CLI::App& cmd, PredictOptions& o, bool required);
// --phase generate is the prompt's prefill (its tokens generated are PredictOptions::new_tokens).
RunConfig run_config_from(const PredictOptions& o);
// --phase generate and --new-tokens go together: InputError naming --new-tokens when given
// without generate, and --seq / --new-tokens when generate lacks them (a command whose phases are
// single steps passes generate_allowed false: generate is then an error naming --phase).
void check_generate_flags(const CLI::App& cmd, const PredictOptions& o, bool generate_allowed);
// The strategy flags (predict): --cluster, --gpus, --tp ... --recompute's mode.
void add_parallel_flags(CLI::App& cmd, PredictOptions& o);
// The strategy the flags give, for `run` (a training run's micro-batch becomes run.batch). Throws
// InputError for a strategy flag given without --cluster, --batch in training with --cluster, and
// --microbatch / --global-batch missing (train) or given (inference); check_parallel_config checks
// the rest.
ParallelConfig parallel_config_from(const CLI::App& cmd, const PredictOptions& o, RunConfig& run);

}  // namespace ridgeline
