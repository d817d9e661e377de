// Capacity under an SLA: the highest Poisson request rate one replica sustains with every SLO
// term met (e.g. ttft_p99 <= 2 s and tpot_p99 <= 100 ms), as MLPerf Server and Vidur-Search
// define it. The rate is found by bisection between a rate far below saturation and the
// saturation rate (the requests/s of a --rate inf run: above it the queue only grows), on the
// same requests and the same arrival seed at every rate, so the criterion is a deterministic
// function of the rate (monotone in practice: more load, longer queues). The search stops when
// the bracket is within 1% of the rate. Replicas for a target = ceil(target / rate); GPUs =
// replicas x GPUs a replica; cost = GPUs x price an hour, when priced. A configuration that
// cannot meet the SLA at any rate is a result with its reason, not an error.
#pragma once

#include "serve/serve_run.h"

#include <optional>
#include <string>

namespace ridgeline {

struct CapacityResult {
  std::string label;  // "h200-sxm vllm bf16"
  bool met = false;
  std::string reason;  // when not met
  double saturation_requests_per_s = 0;
  double max_requests_per_s = 0;  // the highest rate found to meet the SLA
  // What bounds it: "sla" (a faster rate breaks a term) or "saturation" (the SLA still holds at
  // the saturation rate, above which the queue only grows).
  std::string bound;
  ServeReport at_max;  // the run at that rate
  int64_t evaluations = 0;
  int64_t replicas = 0, gpus = 0;
  std::optional<double> cost_per_hour;
};

// `setup.arrivals` is ignored (the search sets it); `workload` holds the requests' lengths.
CapacityResult search_capacity(const Workload& workload, ServeSetup setup, const KvSizing& kv,
                               double target_requests_per_s,
                               std::optional<double> price_per_gpu_hour);

}  // namespace ridgeline
