// Serving outputs against published serving measurements (serve/published.h). The FIT rows'
// measured / predicted TTFT, TPOT and output tokens/s give the interval table's output-level
// quantiles (serving_ttft, serving_tpot, serving_output_tokens_per_s; validate/intervals.h);
// coverage gives each scored row's metric the 80% range `serve` prints for it (serving_intervals
// at the row's prompt, its concurrency (or request count) as the decode batch, and the mean cache
// length) and counts the measured value below, inside or above it, per split and metric.
#pragma once

#include "serve/published.h"
#include "validate/interval_build.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

// FAMILY=ENGINE items (--engine-for) as a map; a malformed item names the flag.
std::map<std::string, std::string> engine_map(const std::vector<std::string>& items);

// The output kind of a published metric (ttft*, tpot*, output_tokens_per_s); "" for none.
std::string serving_output_kind(const std::string& metric);

// measured / predicted of the scored rows of `split` ("fit" or "held_out"), by output kind.
std::map<std::string, std::vector<double>> serving_ratios(const PublishedScorecard& c,
                                                          const std::string& split);

// Rows: kind "serving", level the split, category the metric.
std::vector<CoverageRow> serving_coverage(const IntervalTable& t, const PublishedScorecard& c,
                                          const std::map<std::string, std::string>& engine_for);

void print_serving_coverage(std::ostream& os, const std::vector<CoverageRow>& rows);

}  // namespace ridgeline
