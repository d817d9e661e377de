// What the multi-GPU benchmarks share, parsed once outside their timing loops: the dgx-h100
// cluster with its GPU, and GPT-3 175B training (seq 2048, AdamW) that bench_parallel times as one
// prediction and bench_search as a whole search.
#pragma once

#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "workloads/model_config.h"
#include "workloads/run_config.h"

namespace ridgeline::bench {

struct DgxH100 {
  ClusterSpec cluster;
  GpuSpec gpu;
};

inline const DgxH100& dgx_h100() {
  static const DgxH100 d = [] {
    ClusterSpec c = load_cluster("dgx-h100");
    GpuSpec g = load_gpu(c.gpu);
    return DgxH100{std::move(c), std::move(g)};
  }();
  return d;
}

inline const ModelConfig& gpt3_175b() {
  static const ModelConfig m = load_model("gpt3-175b");
  return m;
}

// One training step of GPT-3 175B's published runs: sequences of 2048, AdamW, micro-batch 1.
inline RunConfig gpt3_train_run() {
  RunConfig r;
  r.phase = Phase::Train;
  r.seq = 2048;
  r.batch = 1;
  r.optimizer = Optimizer::AdamW;
  return r;
}

}  // namespace ridgeline::bench
