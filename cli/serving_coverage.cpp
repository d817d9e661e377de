// Serving interval coverage; see serving_coverage.h.
#include "cli/serving_coverage.h"

#include "cli/serve_options.h"
#include "common/errors.h"
#include "hardware/gpu_load.h"
#include "serve/engine.h"
#include "validate/output_intervals.h"

#include <cstdio>

namespace ridgeline {

namespace {

struct Count {
  int64_t n = 0, below = 0, inside = 0, above = 0;
  void add(double measured, const ValueRange& v) {
    ++n;
    if (measured < v.p10)
      ++below;
    else if (measured > v.p90)
      ++above;
    else
      ++inside;
  }
};

// The range `serve` gives a metric: latencies scale by a step ratio, throughput by its inverse.
ValueRange range_of(const std::string& metric, double predicted, const ServingIntervals& s) {
  if (metric.rfind("ttft", 0) == 0) return propagate_time(predicted, s.prefill_ratio);
  if (metric.rfind("tpot", 0) == 0) return propagate_time(predicted, s.decode_ratio);
  if (metric.find("per_s") != std::string::npos) return propagate_rate(predicted, s.any_ratio);
  return propagate_time(predicted, s.any_ratio);
}

}  // namespace

void print_serving_coverage(std::ostream& os, const PublishedScorecard& c,
                            const std::map<std::string, std::string>& engine_for) {
  std::map<std::string, GpuSpec> gpus;
  std::map<std::string, ModelConfig> models;
  std::map<std::string, EngineConfig> engines;
  std::map<std::pair<std::string, std::string>, Count> counts;  // (split, metric)
  for (const RowScore& r : c.rows) {
    if (!r.failure.empty()) continue;
    const PublishedRow& p = *r.row;
    auto it = engine_for.find(p.family);
    const std::string engine = it != engine_for.end() ? it->second : p.engine;
    if (!gpus.count(p.gpu)) gpus.emplace(p.gpu, load_gpu(p.gpu));
    if (!models.count(p.model)) models.emplace(p.model, load_model(p.model));
    if (!engines.count(engine)) engines.emplace(engine, load_engine(engine));
    const int64_t batch = p.concurrency > 0 ? p.concurrency : std::max<int64_t>(1, p.requests);
    ServingIntervals s = serving_intervals(
        builtin_interval_table(), gpus.at(p.gpu), models.at(p.model),
        serve_run_config(p.precision, engines.at(engine)), std::max<int64_t>(1, p.input_tokens),
        std::min<int64_t>(batch, 256), p.input_tokens + p.output_tokens / 2);
    for (const auto& [metric, predicted] : r.predicted)
      if (p.measured.count(metric))
        counts[{p.split, metric}].add(p.measured.at(metric), range_of(metric, predicted, s));
  }
  os << "80% intervals of serve's outputs against the measurements (step model's ratios "
        "propagated)\n  split      metric                 rows  below inside above  coverage\n";
  char b[256];
  for (const auto& [key, n] : counts) {
    std::snprintf(b, sizeof b, "  %-10s %-22s %4lld %6lld %6lld %5lld  %6.1f%%\n",
                  key.first.c_str(), key.second.c_str(), (long long)n.n, (long long)n.below,
                  (long long)n.inside, (long long)n.above,
                  n.n ? 100.0 * (double)n.inside / (double)n.n : 0.0);
    os << b;
  }
}

}  // namespace ridgeline
