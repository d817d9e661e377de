// The cluster fixture of the parallel tests: the tiny Llama example, the dgx-h100 cluster and its
// GPU, a short training run and a strategy by its three main sizes (one sequence a micro-batch).
#pragma once

#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "workloads/model_config.h"
#include "workloads/parallel_config.h"
#include "workloads/run_config.h"

namespace ridgeline::test {

inline const ModelConfig& tiny() {
  static const ModelConfig m = load_model(RIDGELINE_SOURCE_DIR "/examples/models/tiny-llama.json");
  return m;
}
inline const ClusterSpec& dgx() {
  static const ClusterSpec c = load_cluster("dgx-h100");
  return c;
}
inline const GpuSpec& dgx_gpu() {
  static const GpuSpec g = load_gpu(dgx().gpu);
  return g;
}

inline RunConfig train_run(int64_t seq = 128) {
  RunConfig r;
  r.phase = Phase::Train;
  r.seq = seq;
  r.batch = 1;
  return r;
}

inline ParallelConfig strategy(int64_t tp, int64_t pp, int64_t dp, int64_t global_batch) {
  ParallelConfig p;
  p.tp = tp, p.pp = pp, p.dp = dp, p.gpus = tp * pp * dp;
  p.microbatch = 1;
  p.global_batch = global_batch;
  return p;
}

}  // namespace ridgeline::test
