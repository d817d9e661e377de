// One serving run, from inputs to report: the requests are checked against the model's context
// and the engine's KV pool (a request that can never fit is rejected: an error for lengths from
// flags, a counted rejection for a trace line), the pool is sized (kv_sizing.h), the loop runs
// (simulator.h) and the metrics are taken (metrics.h). `ridgeline serve`, `ridgeline capacity`
// and the published-data scorer all go through here.
#pragma once

#include "serve/arrivals.h"
#include "serve/engine.h"
#include "serve/kv_sizing.h"
#include "serve/metrics.h"
#include "serve/simulator.h"
#include "serve/step_model.h"

namespace ridgeline {

struct ServeRun {
  EngineConfig engine;
  KvSizing kv;
  Workload workload;  // the requests that run, and the rejected ones
  ArrivalSpec arrivals;
  SimResult sim;
  ServeReport report;
};

struct ServeSetup {
  const EngineConfig* engine = nullptr;
  StepModel* model = nullptr;
  ArrivalSpec arrivals;
  uint64_t seed = 0;
  std::vector<SloTerm> slo;
  bool record_steps = false;
  // The first N requests (by id: arrival order; for a closed loop, the first wave of clients)
  // run but are left out of every metric, as benchmarks that report steady state do.
  int64_t warmup_requests = 0;
  bool lengths_from_flags = true;  // false: a trace file (bad lines are rejected, not errors)
  std::function<void(int64_t, int64_t, double)> progress;
};

// Sizes the engine's KV pool on the model's GPU (throws when it leaves no block).
KvSizing engine_kv(const EngineConfig& engine, StepModel& model);

// Runs `workload` (arrivals assigned here from setup.arrivals and the seed).
ServeRun run_serving(Workload workload, const ServeSetup& setup, const KvSizing& kv);

}  // namespace ridgeline
