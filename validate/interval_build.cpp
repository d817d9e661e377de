// Interval tables from measured data, and their held-out coverage; see interval_build.h.
#include "validate/interval_build.h"
#include "common/json_reader.h"

#include "common/errors.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "hardware/profiles.h"
#include "model/collective_cost.h"
#include "model/op_cost.h"
#include "validate/baseline.h"
#include "validate/collective_dataset.h"
#include "validate/dataset.h"
#include "validate/scorecard.h"
#include "validate/workload_dataset.h"
#include "workloads/graph_builder.h"

#include <cmath>
#include <map>
#include <tuple>

namespace ridgeline {

namespace {

struct LevelGpu {
  std::string level, key;
  GpuSpec gpu;
};

// The GPU of a baseline at each level: its own profile, each other built-in profile of its
// architecture, no profile.
std::vector<LevelGpu> level_gpus(const AccuracyBaseline& b) {
  if (!b.profile.empty() || !b.training_runs.empty())
    throw InputError(b.file +
                     ": /profile: an interval baseline predicts its GPU with its own profile "
                     "(the other levels are derived from it); leave /profile out");
  GpuSpec own = load_gpu(b.gpu);
  if (own.calibration != ProfileKind::Own)
    throw InputError(b.file + ": /gpu " + b.gpu + ": has no calibrated profile of its own");
  std::vector<LevelGpu> out{{"own", own.name, own}};
  for (const auto& name : profile_names()) {
    if (name == own.name) continue;
    ProfileUse use = find_profile(own.name, own.architecture, name);
    if (string_or(use.doc, "architecture") != own.architecture) continue;
    out.push_back({"architecture", own.architecture, load_gpu(b.gpu, {}, name)});
  }
  out.push_back({"none", "any", load_gpu(b.gpu, {}, "none")});
  return out;
}

void kernel_cases(const Dataset& data, const LevelGpu& lg, const std::string& split,
                  const KernelPredictions* cross, std::vector<IntervalCase>& out) {
  for (const auto& m : data.records) {
    if (m.split != split) continue;
    const double* crossed = nullptr;  // predicted without its own fold
    if (cross)
      if (auto it = cross->find({m.op.id, m.measured_us}); it != cross->end())
        crossed = &it->second;
    double us = crossed ? *crossed : predict_op(m.op, lg.gpu).time_us;
    out.push_back(
        {m.op.id, false, lg.gpu.name, lg.level, lg.key, kernel_category(m.op), m.measured_us, us});
  }
}

void step_cases(const WorkloadDataset& data, const LevelGpu& lg, const std::string& split,
                const IntervalTable* table, std::vector<IntervalCase>& out) {
  for (const auto& m : data.records) {
    if (m.split != split) continue;
    // The category predict looks a step up by (phase and launch), whatever the data set's own
    // scorecard groups by (issue 14's families score per family); generate() timings keep theirs.
    std::string phase_launch = m.generate != GenerateMetric::None
                                   ? m.category
                                   : std::string(phase_name(m.run.phase)) + "-" +
                                         launch_name(m.run.launch);
    std::string cat =
        step_category(runtime_name(m.run.runtime), phase_launch, m.model.moe.experts > 0);
    if (m.generate != GenerateMetric::None) {
      // generate() timings are scored as the scorecard does (TTFT, per token or whole call)
      WorkloadDataset one{data.file, data.meta, {m}, {}};
      double us = score_workloads(one, lg.gpu, split).cases.at(0).predicted_us;
      out.push_back({m.id, true, lg.gpu.name, lg.level, lg.key, cat, m.measured_us, us});
      continue;
    }
    OpGraph g = build_graph(m.model, m.run);
    Prediction p = predict_workload(g, m.model, m.run, lg.gpu);
    IntervalCase c{m.id, true, lg.gpu.name, lg.level, lg.key, cat, m.measured_us, p.total_us};
    if (table) {
      PredictionInterval k = combined_step_interval(*table, lg.gpu, g, p);
      c.combined_p10 = k.p10_us / p.total_us;
      c.combined_p90 = k.p90_us / p.total_us;
    }
    out.push_back(c);
  }
}

void collective_cases(const std::string& file, const std::string& split,
                      std::vector<IntervalCase>& out) {
  CollectiveDataset data = load_collective_dataset(file);
  std::map<std::string, ClusterSpec> clusters;
  for (const auto& m : data.rows) {
    if (m.split != split) continue;
    auto it = clusters.find(m.cluster);
    if (it == clusters.end()) it = clusters.emplace(m.cluster, load_cluster(m.cluster)).first;
    double us = collective_cost(m.op, it->second).time_us;
    out.push_back({m.id, false, m.gpu, "none", "any", "collective", m.measured_us, us});
  }
}

}  // namespace

std::vector<IntervalCase> interval_cases(const IntervalSources& sources, const std::string& split,
                                         const IntervalTable* table, const CrossFitKernels* cross) {
  std::vector<IntervalCase> out;
  for (const auto& path : sources.baselines) {
    AccuracyBaseline b = load_baseline(path);
    std::vector<LevelGpu> levels = level_gpus(b);
    RuntimeProfile runtime = b.runtime.empty() ? default_runtime() : load_runtime(b.runtime);
    Dataset ops = b.op_datasets.empty() ? Dataset{} : load_datasets(b.op_datasets);
    WorkloadDataset steps = b.workload_datasets.empty()
                                ? WorkloadDataset{}
                                : load_workload_datasets(b.workload_datasets, runtime);
    const KernelPredictions* own_cross = nullptr;
    if (cross && cross->count(levels.at(0).gpu.name)) own_cross = &cross->at(levels[0].gpu.name);
    for (const auto& lg : levels) {
      kernel_cases(ops, lg, split, lg.level == "own" ? own_cross : nullptr, out);
      step_cases(steps, lg, split, table, out);
    }
  }
  if (!sources.collectives.empty()) collective_cases(sources.collectives, split, out);
  return out;
}

IntervalTable build_interval_table(const std::vector<IntervalCase>& fit_cases, int min_count,
                                   const nlohmann::json& provenance) {
  std::map<std::string, std::map<std::string, std::map<std::string, std::vector<double>>>> k, s;
  for (const auto& c : fit_cases) {
    auto& by = c.step ? s : k;
    by[c.level][c.key][c.category].push_back(c.ratio());
    if (!c.step && c.category != "collective") by[c.level][c.key]["all"].push_back(c.ratio());
  }
  IntervalTable t;
  t.provenance = provenance;
  t.min_count = min_count;
  // split-conformal ranks for every entry: whole steps have 5-20 fit rows a category and many
  // kernel categories of a GPU and level have 10-30, where interpolated quantiles are too narrow
  // (interpolated kernel entries held 74.6% of held-out kernels; conformal ones 77.7%)
  for (auto [from, to] : {std::pair{&k, &t.kernels}, std::pair{&s, &t.steps}}) {
    for (const auto& [level, keys] : *from)
      for (const auto& [key, cats] : keys)
        for (const auto& [cat, ratios] : cats)
          (*to)[level][key][cat] =
              conformal_quantiles(ratios);
  }
  return t;
}

OutputQuantiles output_entry(std::vector<double> fit_ratios, std::vector<std::string> data) {
  if (fit_ratios.empty()) throw InputError(data.at(0) + ": no fit rows to take quantiles of");
  OutputQuantiles o;
  o.q = conformal_quantiles(std::move(fit_ratios));
  o.data = std::move(data);
  o.method =
      "split-conformal: p10 and p90 the floor(0.1 (n+1))-th and ceil(0.9 (n+1))-th "
      "smallest of the n fit rows' measured / predicted, p50 their median";
  return o;
}

namespace {

// The entry a held-out case is judged by: the lookup a prediction on its GPU at its level makes.
std::optional<RatioQuantiles> entry_for(const IntervalTable& t, const IntervalCase& c) {
  GpuSpec probe;
  probe.name = c.level == "own" ? c.key : "";
  probe.architecture = c.level == "architecture" ? c.key : "";
  probe.calibration = c.level == "own"            ? ProfileKind::Own
                      : c.level == "architecture" ? ProfileKind::Architecture
                                                  : ProfileKind::None;
  auto hit = c.step ? find_step_quantiles(t, probe, c.category)
                    : find_quantiles(t, t.kernels, probe, c.category, true);
  if (!hit) return std::nullopt;
  return hit->q;
}

}  // namespace

void count_coverage(CoverageRow& row, double value, double low, double high) {
  ++row.count;
  if (value < low)
    ++row.below;
  else if (value > high)
    ++row.above;
  else
    ++row.inside;
}

bool coverage_too_low(int count, int inside) {
  if (count <= 0) return false;
  // P(X <= inside) for X ~ Binomial(count, 0.8), summed in logs
  double p = 0;
  for (int k = 0; k <= inside && k <= count; ++k)
    p += std::exp(std::lgamma(count + 1.0) - std::lgamma(k + 1.0) - std::lgamma(count - k + 1.0) +
                  k * std::log(0.8) + (count - k) * std::log(0.2));
  return p < 0.05;
}

std::vector<CoverageRow> interval_coverage(const IntervalTable& table,
                                           const std::vector<IntervalCase>& holdout_cases) {
  std::map<std::tuple<std::string, std::string, std::string>, CoverageRow> rows;
  auto add = [&](const std::string& kind, const std::string& level, const std::string& cat,
                 double ratio, double p10, double p90) {
    for (const auto& [l, c] : {std::pair{level, cat}, std::pair{level, std::string("all")},
                               std::pair{std::string("all"), std::string("all")}}) {
      CoverageRow& r = rows[{kind, l, c}];
      r.kind = kind;
      r.level = l;
      r.category = c;
      count_coverage(r, ratio, p10, p90);
    }
  };
  CoverageRow overall{"all", "all", "all"};
  for (const auto& c : holdout_cases) {
    const std::string& level = c.level;
    if (auto q = entry_for(table, c)) {
      std::string kind = c.step ? "steps" : "kernels";
      add(kind, level, c.category, c.ratio(), q->p10, q->p90);
      count_coverage(overall, c.ratio(), q->p10, q->p90);
    }
    if (c.step && c.combined_p90 > 0)
      add("steps (kernels combined)", level, c.category, c.ratio(), c.combined_p10, c.combined_p90);
  }
  std::vector<CoverageRow> out;
  for (const auto& [key, row] : rows) out.push_back(row);
  out.push_back(overall);
  return out;
}

}  // namespace ridgeline
