// Coverage of the serving intervals (validate/output_intervals.h) on published serving
// measurements (`validate-serving --data ... --intervals`): each scored row's predicted TTFT,
// TPOT and output tokens/s get the 80% range `serve` prints for them (the step model's ratios at
// the row's prompt, its concurrency (or request count) as the decode batch, and the mean cache
// length), and the measured value is counted below, inside or above it, per split and metric.
#pragma once

#include "serve/published.h"

#include <map>
#include <ostream>
#include <string>

namespace ridgeline {

void print_serving_coverage(std::ostream& os, const PublishedScorecard& c,
                            const std::map<std::string, std::string>& engine_for);

}  // namespace ridgeline
