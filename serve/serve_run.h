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
#include "serve/request_log.h"
#include "serve/simulator.h"
#include "serve/step_model.h"

#include <memory>
#include <optional>

namespace ridgeline {

// A disaggregated run's pools and KV transfers (serve/disaggregated.h).
struct DisaggStats {
  int64_t prefill_replicas = 0, decode_replicas = 0, gpus_per_replica = 1;
  int64_t transfers = 0, cross_node_transfers = 0;
  double transfer_ms_mean = 0, transfer_ms_max = 0;  // each request's, from its prefill's end
  double kv_MB_mean = 0;                             // a request's prompt KV on one GPU
};

struct ServeRun {
  EngineConfig engine;
  KvSizing kv;
  Workload workload;  // the requests that run, and the rejected ones
  ArrivalSpec arrivals;
  SimResult sim;
  ServeReport report;
  // The finished requests in id order when setup.log_requests (else sim.requests has them).
  std::shared_ptr<RequestLog> request_log;
  std::optional<DisaggStats> disaggregated;
};

struct DisaggSpec;  // serve/disaggregated.h

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
  // A long run's memory: keep_requests false leaves sim.requests and sim.itl_gaps empty (the
  // report is folded as the run goes); log_requests keeps the records in a RequestLog on disk.
  bool keep_requests = true;
  bool log_requests = false;
  // Prefill and decode replicas apart (serve/disaggregated.h); null: one engine does both.
  const DisaggSpec* disaggregate = nullptr;
  // GPUs the run's throughput is divided by: the replica's, times P + D when disaggregated.
  int64_t gpus() const;
};

// run_serving's checks alone: the requests that can run (ids renumbered 0, 1, ...), the rest
// rejected (a counted rejection for a trace line, an error for lengths from flags), arrivals
// assigned from setup.arrivals and the seed.
Workload prepare_workload(Workload workload, const ServeSetup& setup, const KvSizing& kv);

// Sizes the engine's KV pool on the model's GPU (throws when it leaves no block).
// The engine a replica runs: its batch limits (max_num_seqs, the token budget) are per
// attention-data-parallel rank, so the replica's are that many times the engine file's.
EngineConfig replica_engine(const EngineConfig& engine, const StepModel& model);
KvSizing engine_kv(const EngineConfig& engine, StepModel& model);

// Runs `workload` (arrivals assigned here from setup.arrivals and the seed).
ServeRun run_serving(Workload workload, const ServeSetup& setup, const KvSizing& kv);
// Runs generated lengths, each request drawn when it arrives (the same requests and arrivals as
// generate_workload and the Workload form): memory follows the requests in flight. Each request
// is checked as it is drawn (one that can never fit is an error naming --input-len/--output-len,
// thrown from inside the run: nothing of the run is returned).
ServeRun run_serving(const GeneratedWorkload& workload, const ServeSetup& setup,
                     const KvSizing& kv);

}  // namespace ridgeline
