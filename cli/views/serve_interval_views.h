// Views of a serving run's and a capacity row's 80% intervals (validate/output_intervals.h says
// how they are propagated from the step model's interval): a JSON object beside the numbers it
// bounds, and the lines the serve table adds.
#pragma once

#include "serve/capacity.h"
#include "serve/metrics.h"
#include "validate/output_intervals.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ridgeline {

// {"coverage", "basis", "step_ratio": {prefill, decode}, "throughput": {...}, "ttft_ms": {"mean":
// {"p10", "p90"}, "p50": ...}, "tpot_ms", "itl_ms", "e2e_ms", "queue_ms"}
nlohmann::ordered_json serving_intervals_json(const ServingIntervals& s, const ServeReport& r);
// A capacity row's: the highest rate per replica and the replicas for the target, then the run
// at that rate's.
nlohmann::ordered_json capacity_intervals_json(const ServingIntervals& s, const CapacityResult& c,
                                               double target_requests_per_s);
// "  80% intervals: TTFT p99 1.2-1.4 s, TPOT p99 ..., output tokens/s ..." and the basis.
std::string serving_intervals_lines(const ServingIntervals& s, const ServeReport& r);
// Why a one-GPU run at `precision` states no interval (cli/serve_replica.h), "" when one is
// stated for it: the table's "80% intervals" line and the JSON's intervals_note.
std::string no_interval_note(const std::string& precision);

}  // namespace ridgeline
