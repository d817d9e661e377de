// Serving metrics from a simulation, with the definitions of vLLM's benchmark_serving (the ones
// most published figures use; serving_design.md 1.1):
//   TTFT   arrival -> first token (queueing and every prefill chunk included)
//   TPOT   per request, (e2e - TTFT) / (output tokens - 1); requests of one output token have none
//   ITL    every gap between two consecutive tokens of a request, pooled over all requests
//   E2E    arrival -> last token
//   queue  arrival -> the first step that schedules the request
// Percentiles interpolate linearly between order statistics (numpy's default). Throughput is
// over the run: first arrival to last finish. Goodput counts the requests that meet every
// per-request bound of the SLO (each term's threshold; the percentile says how the SLO is met).
#pragma once

#include "serve/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ridgeline {

struct Stat {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
  int64_t count = 0;
};
Stat summarise(std::vector<double> values);
double percentile(const std::vector<double>& sorted, double p);  // p in [0, 100]
// The p-th percentile of `count` (> 0) sorted values, value_at(i) the i-th: linear between the
// order statistics around p / 100 * (count - 1). percentile() and the streaming fold's share it.
template <class ValueAt>
double interpolated_percentile(int64_t count, double p, ValueAt value_at) {
  double pos = p / 100.0 * (double)(count - 1);
  int64_t lo = (int64_t)std::floor(pos), hi = std::min(lo + 1, count - 1);
  double a = value_at(lo), b = value_at(hi);
  return a + (b - a) * (pos - (double)lo);
}

// An SLO term: "ttft_p99=2s" -> {ttft, 99, 2000 ms}. Metrics: ttft, tpot, itl, e2e, queue;
// statistics: mean, p50, p90, p99.
struct SloTerm {
  std::string metric;  // ttft, tpot, itl, e2e, queue
  std::string stat;    // mean, p50, p90, p99
  double limit_ms = 0;
};
std::vector<SloTerm> parse_slo(const std::string& flag, const std::string& text);
std::string describe(const std::vector<SloTerm>& slo);

struct ServeReport {
  int64_t warmup_requests = 0;  // run but not measured
  int64_t requests = 0, input_tokens = 0, output_tokens = 0, gpus = 1;
  double duration_s = 0;
  double requests_per_s = 0, input_tokens_per_s = 0, output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  Stat ttft_ms, tpot_ms, itl_ms, e2e_ms, queue_ms;
  int64_t preemptions = 0, steps = 0, kv_blocks = 0, block_size_tokens = 0;
  double kv_used_mean = 0, kv_used_max = 0;
  std::vector<SloTerm> slo;
  bool slo_met = false;
  double goodput_requests_per_s = 0;
  std::vector<std::string> slo_failures;  // "ttft_p99 2403 ms > 2000 ms"
  bool percentiles_exact = true;          // false: from a histogram (metrics_stream.h says when)
};

// Requests with id < warmup_requests are left out of every statistic; throughput is then over
// the measured requests, from the first one's arrival to the last finish. Folds sim.requests and
// sim.itl_gaps through a MetricsFold (metrics_stream.h), as a streaming run does.
ServeReport make_report(const SimResult& sim, int64_t gpus, const std::vector<SloTerm>& slo,
                        int64_t warmup_requests = 0);
// Whether one request meets every term's threshold (goodput).
bool meets_slo(const RequestRecord& r, const std::vector<SloTerm>& slo);
// A metric's statistic by SLO name, e.g. ("ttft", "p99").
double slo_value(const ServeReport& r, const SloTerm& t);

}  // namespace ridgeline
