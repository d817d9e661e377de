// Serving metrics folded as the run goes, so that a run of 10^6 requests needs no per-request or
// per-token memory: the simulator hands each finished request and each step's token gaps to a
// MetricsFold, which keeps sums, counts and, for the percentiles, the values themselves.
//
// Exactness: up to kExactRequests measured requests every statistic is exact and byte-identical
// to sorting all values (values are kept as (value, count) pairs, merged when equal: all the
// decodes of a step share one gap, so pooled ITL costs a pair a step, not a value a token).
// Above kExactRequests, percentiles come from a log-bucketed histogram whose buckets are
// kRelativeError wide (each percentile within that relative error of the exact one); means and
// counts stay exact sums. The report says which (ServeReport::percentiles_exact), and the JSON
// view names the method and the bound.
#pragma once

#include "serve/metrics.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ridgeline {

inline constexpr int64_t kExactRequests = 100000;
inline constexpr double kRelativeError = 0.001;

// One metric's values: exact (value, count) pairs, or a histogram of relative width
// kRelativeError. The mode is fixed at construction.
class ValueFold {
 public:
  explicit ValueFold(bool exact) : exact_(exact) {}
  void add(double v, int64_t count = 1);
  Stat summary();  // compacts; mean and percentiles as summarise() of the expanded values

 private:
  void compact();
  double value_at(int64_t rank) const;  // the rank-th smallest (0-based)

  bool exact_;
  int64_t count_ = 0;
  double sum_ = 0;  // histogram mode: the mean's sum in arrival order
  std::vector<std::pair<double, int64_t>> pairs_;  // exact mode; sorted up to sorted_
  size_t sorted_ = 0;
  std::map<int32_t, int64_t> buckets_;  // histogram mode: bucket index -> count
  int64_t zeros_ = 0;                   // histogram mode: values <= 0
};

// Folds a run's requests and gaps into a ServeReport (the definitions of metrics.h).
class MetricsFold : public SimSink {
 public:
  // `measured_requests`: requests that will count (all less the warm-up), to pick the mode.
  MetricsFold(const std::vector<SloTerm>& slo, int64_t warmup_requests, int64_t measured_requests);
  void finished(const RequestRecord& r) override;
  void token_gaps(double gap_s, int64_t tokens) override;
  // The report; `sim` gives the run's totals (steps, KV use, duration).
  ServeReport report(const SimResult& sim, int64_t gpus);

 private:
  std::vector<SloTerm> slo_;
  int64_t warmup_;
  bool exact_;
  ValueFold ttft_, tpot_, itl_, e2e_, queue_;
  int64_t requests_ = 0, input_tokens_ = 0, output_tokens_ = 0, good_ = 0;
  double first_arrival_s_ = 0, last_finish_s_ = 0;
};

}  // namespace ridgeline
