// Building an interval table (validate/intervals.h) from measured data, and checking it.
// The inputs are accuracy baselines (validate/accuracy_baseline*.json) that predict their GPU with
// its own profile: each names a GPU, its kernel and step data sets and the runtime of the steps.
// Every measurement of the asked split is predicted three ways, one per calibration level:
//   own           with the GPU's own profile            (key: the GPU),
//   architecture  with each built-in profile of another GPU of its architecture (key: the arch),
//   none          with no profile                       (key: "any"),
// and, with a collectives data set, every collective row on its cluster (kernels, level none,
// key any, category collective: the collective model has no per-GPU profile).
// build_interval_table() takes the quantiles of measured / predicted per level, key and category
// (and "all" per level and key) from the FIT split as split-conformal ranks (conformal_quantiles:
// a category has from a few to a few hundred fit rows); interval_coverage() counts how
// many HELD-OUT measurements fall inside the intervals the table gives them.
// A GPU's own profile was fitted on its fit kernels, so their own-level residuals are in-sample
// (too narrow); given cross-fitted predictions (calibrate/fit/cross_fit.h), an own-level fit
// kernel takes its out-of-sample prediction instead.
#pragma once

#include "validate/intervals.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ridgeline {

struct IntervalCase {
  std::string id;
  bool step = false;  // a whole step, else a kernel (or a collective)
  std::string gpu, level, key, category;
  double measured_us = 0, predicted_us = 0;
  double ratio() const { return measured_us / predicted_us; }
  // For steps predicted as one graph: the kernels-combined interval (combine_kernels), as a ratio
  // of predicted_us, when a table was given; 0 where not computed (generate() records).
  double combined_p10 = 0, combined_p90 = 0;
};

struct IntervalSources {
  std::vector<std::string> baselines;
  std::string collectives;  // "" for none
};

// Predicted times of kernels by (id, measured_us): one id can be timed twice (two implementations).
using KernelPredictions = std::map<std::pair<std::string, double>, double>;
// Per GPU (its name), its fit kernels predicted out-of-sample (cross_fit_kernels).
using CrossFitKernels = std::map<std::string, KernelPredictions>;

// Every measurement of `split` ("fit" or "holdout") at every level. With `table`, steps also get
// their kernels-combined interval from it. With `cross`, an own-level kernel found in its GPU's
// predictions takes that prediction (the others keep the profile's: it never saw them).
std::vector<IntervalCase> interval_cases(const IntervalSources& sources, const std::string& split,
                                         const IntervalTable* table = nullptr,
                                         const CrossFitKernels* cross = nullptr);

// An output kind's entry from its fit rows' measured / predicted (conformal_quantiles).
OutputQuantiles output_entry(std::vector<double> fit_ratios, std::vector<std::string> data);

// `provenance` goes into the table as given.
IntervalTable build_interval_table(const std::vector<IntervalCase>& fit_cases, int min_count,
                                   const nlohmann::json& provenance);

struct CoverageRow {
  std::string kind;   // "kernels", "steps" or "steps (kernels combined)"
  std::string level;  // "own", "architecture", "none" or "all"
  std::string category;
  int count = 0, below = 0, inside = 0, above = 0;
  double coverage() const { return count ? (double)inside / count : 0; }
};

// Counts `value` below, inside or above [low, high]: a value at a bound is inside.
void count_coverage(CoverageRow& row, double value, double low, double high);

// Whether a held-out coverage is too low for an 80% interval: `inside` of `count` or fewer has
// binomial probability below 5% when the true coverage is 80%. Small samples scatter, so this
// flags intervals that are too narrow, not sampling noise: 17 rows fail at 10 or fewer inside
// (58.8%), 34 at 22 or fewer (64.7%), 226 at 170 or fewer (75.2%).
bool coverage_too_low(int count, int inside);

// Held-out coverage of `table` by kind, level and category, then by kind and level ("all"), then
// per kind over all levels, and last the overall row (kernels and measured steps, kind "all").
// A case is judged with the entry the table gives its own level, key and category (walking to
// wider levels and "all" as a prediction would).
std::vector<CoverageRow> interval_coverage(const IntervalTable& table,
                                           const std::vector<IntervalCase>& holdout_cases);

}  // namespace ridgeline
