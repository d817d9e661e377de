// Views of prediction intervals: the fields a predict or op JSON output carries, the one line a
// table shows, and the held-out coverage table of `calibrate intervals --coverage`.
#pragma once

#include "model/interval.h"
#include "validate/interval_build.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <vector>

namespace ridgeline {

// {"p10_us", "p90_us", "coverage": 0.8, "category", "calibration", "fit_count", "basis"}, in
// that order, for any writer with field(key, value): interval_json's and the op views'
// (op_fields.h).
template <class Out>
void interval_fields(const PredictionInterval& i, Out& o) {
  o.field("p10_us", i.p10_us);
  o.field("p90_us", i.p90_us);
  o.field("coverage", 0.8);
  o.field("category", i.category);
  o.field("calibration", i.calibration);
  o.field("fit_count", i.count);
  o.field("basis", i.basis);
}
nlohmann::ordered_json interval_json(const PredictionInterval& i);
// "80% interval 1.210-1.350 ms (pytorch-eager/decode-graph, own calibration, 24 fit
// measurements)"
std::string interval_line(const PredictionInterval& i);
// "190.1-215.9 us": both bounds in the unit of the upper one.
std::string interval_range(const PredictionInterval& i);
// The cluster-step rows (validate/cluster_coverage.h): not part of the overall check.
void print_cluster_coverage(std::ostream& os, const std::vector<CoverageRow>& rows);
// Held-out coverage per output kind (category: the kind) against the nominal 80%, with each
// entry's fit rows; returns true when one is too low (coverage_too_low).
bool print_output_coverage(std::ostream& os, const IntervalTable& t,
                           const std::vector<CoverageRow>& held);
void print_interval_coverage(std::ostream& os, const IntervalTable& t,
                             const std::vector<CoverageRow>& rows, double min, double max);

}  // namespace ridgeline
