// Serving interval quantiles and coverage; see serving_coverage.h.
#include "cli/serving_coverage.h"

#include "cli/serve_options.h"
#include "common/errors.h"
#include "hardware/gpu_load.h"
#include "serve/engine.h"
#include "validate/output_intervals.h"

#include <cstdio>

namespace ridgeline {

namespace {

// The range `serve` gives a metric: latencies scale by their time ratio, throughput by 1 / ratio.
ValueRange range_of(const std::string& metric, double predicted, const ServingIntervals& s) {
  if (metric.rfind("ttft", 0) == 0) return propagate_time(predicted, s.ttft_ratio);
  if (metric.rfind("tpot", 0) == 0) return propagate_time(predicted, s.tpot_ratio);
  if (metric.find("per_s") != std::string::npos) return propagate_rate(predicted, s.rest_ratio);
  return propagate_time(predicted, s.rest_ratio);
}

}  // namespace

std::map<std::string, std::string> engine_map(const std::vector<std::string>& items) {
  std::map<std::string, std::string> m;
  for (const std::string& s : items) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw InputError("--engine-for " + s + ": expected FAMILY=ENGINE, e.g. trtllm-perf=trtllm");
    m[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return m;
}

std::string serving_output_kind(const std::string& metric) {
  if (metric.rfind("ttft", 0) == 0) return kServingTtft;
  if (metric.rfind("tpot", 0) == 0) return kServingTpot;
  if (metric == "output_tokens_per_s") return kServingTokensPerS;
  return "";
}

std::map<std::string, std::vector<double>> serving_ratios(const PublishedScorecard& c,
                                                          const std::string& split) {
  std::map<std::string, std::vector<double>> out;
  for (const RowScore& r : c.rows) {
    if (!r.failure.empty() || r.row->split != split) continue;
    for (const auto& [metric, predicted] : r.predicted) {
      std::string kind = serving_output_kind(metric);
      if (!kind.empty() && r.row->measured.count(metric) && predicted > 0)
        out[kind].push_back(r.row->measured.at(metric) / predicted);
    }
  }
  return out;
}

std::vector<CoverageRow> serving_coverage(const IntervalTable& t, const PublishedScorecard& c,
                                          const std::map<std::string, std::string>& engine_for) {
  std::map<std::string, GpuSpec> gpus;
  std::map<std::string, ModelConfig> models;
  std::map<std::string, EngineConfig> engines;
  std::map<std::pair<std::string, std::string>, CoverageRow> rows;  // (split, metric)
  for (const RowScore& r : c.rows) {
    if (!r.failure.empty()) continue;
    const PublishedRow& p = *r.row;
    const std::string engine = engine_for_row(engine_for, p);
    if (!gpus.count(p.gpu)) gpus.emplace(p.gpu, load_gpu(p.gpu));
    if (!models.count(p.model)) models.emplace(p.model, load_row_model(p));
    if (!engines.count(engine)) engines.emplace(engine, load_engine(engine));
    const int64_t batch = p.concurrency > 0 ? p.concurrency : std::max<int64_t>(1, p.requests);
    ServingIntervals s = serving_intervals(
        t, gpus.at(p.gpu), models.at(p.model), serve_run_config(p.precision, engines.at(engine)),
        std::max<int64_t>(1, p.input_tokens), std::min<int64_t>(batch, 256),
        p.input_tokens + p.output_tokens / 2);
    for (const auto& [metric, predicted] : r.predicted) {
      if (!p.measured.count(metric)) continue;
      ValueRange v = range_of(metric, predicted, s);
      CoverageRow& row = rows[{p.split, metric}];
      row.kind = "serving", row.level = p.split, row.category = metric;
      count_coverage(row, p.measured.at(metric), v.p10, v.p90);
    }
  }
  std::vector<CoverageRow> out;
  for (const auto& [key, row] : rows) out.push_back(row);
  return out;
}

void print_serving_coverage(std::ostream& os, const std::vector<CoverageRow>& rows) {
  os << "80% intervals of serve's outputs against the measurements\n"
        "  split      metric                 rows  below inside above  coverage\n";
  char b[256];
  for (const CoverageRow& n : rows) {
    std::snprintf(b, sizeof b, "  %-10s %-22s %4d %6d %6d %5d  %6.1f%%\n", n.level.c_str(),
                  n.category.c_str(), n.count, n.below, n.inside, n.above, 100 * n.coverage());
    os << b;
  }
}

}  // namespace ridgeline
