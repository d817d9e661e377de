// The coordinate search behind fit_collectives(); see collective_fit.h.
#include "calibrate/fit/collective_fit.h"

#include "common/errors.h"
#include "model/collective_cost.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace ridgeline {

namespace {

struct Knob {
  std::string path;
  double lo, hi, step;  // bounds and first step (absolute)
};

// The fitted parameters and their bounds: efficiencies stay near NCCL's figure (0.3-1.2 of it;
// Fractions at most 1), latencies and per-byte terms non-negative.
const std::vector<Knob>& knobs() {
  static const std::vector<Knob> k = {{"call_overhead_us", 0, 50, 2},
                                      {"buffer_us_per_MB", 0, 5, 0.1},
                                      {"efficiency/ll", 0.3, 1.2, 0.1},
                                      {"efficiency/ll128", 0.3, 1.2, 0.1},
                                      {"efficiency/simple", 0.3, 1.2, 0.1},
                                      {"nvls/efficiency", 0.2, 1, 0.1},
                                      {"p2p/base_us", 0, 50, 2},
                                      {"p2p/peer_us", 0, 10, 0.25},
                                      {"p2p/efficiency", 0.2, 1, 0.1},
                                      {"ring/base_us/ll", 0, 50, 1},
                                      {"ring/base_us/ll128", 0, 100, 2},
                                      {"ring/base_us/simple", 0, 200, 4},
                                      {"ring/nvlink_hop_us/simple", 0, 20, 0.5},
                                      {"nvls/latency_us", 0, 200, 4},
                                      {"tree/base_us/ll", 0, 50, 1},
                                      {"p2p/buffer_us_per_MB", 0, 5, 0.1}};
  return k;
}

Fact* fact_at(CollectiveModelParams& p, const std::string& path) {
  Fact* out = nullptr;
  visit_collective_fields(p, [&](const std::string& at, Fact& f, FieldRule) {
    if (at == path) out = &f;
  });
  require_invariant(out != nullptr, "a fitted collective parameter names a field");
  return out;
}

// Messages under 1 MB weigh this much in the loss (those of 1 MB and more weigh 1): the
// latency-bound sizes matter less to a training step than the bandwidth-bound ones.
constexpr double kSmallWeight = 0.5;

struct Rows {
  std::vector<const CollectiveMeasurement*> all;
  double loss(const ClusterSpec& c) const {
    double sum = 0, weights = 0;
    for (const auto* m : all) {
      double w = m->op.bytes >= 1e6 ? 1 : kSmallWeight;
      sum += w * std::fabs(std::log(collective_cost(m->op, c).time_us / m->measured_us));
      weights += w;
    }
    return sum / weights;
  }
  double mape(const ClusterSpec& c, double min_bytes) const {
    double sum = 0;
    int n = 0;
    for (const auto* m : all) {
      if (m->op.bytes < min_bytes) continue;
      sum += std::fabs(collective_error(*m, c));
      ++n;
    }
    return n ? sum / n : 0;
  }
};

}  // namespace

CollectiveFit fit_collectives(const CollectiveDataset& data, const ClusterSpec& cluster) {
  Rows rows;
  for (const auto& m : data.rows)
    if (m.split == "fit" && m.cluster == cluster.name) rows.all.push_back(&m);
  if (rows.all.empty())
    throw InputError(
        located(data.file, "no fit-split rows measured on cluster \"" + cluster.name + "\""));
  CollectiveFit fit{cluster, {}, (int)rows.all.size(), 0, 0, 0, 0};
  fit.mape_before = rows.mape(cluster, 0);
  fit.mape_1mb_before = rows.mape(cluster, 1e6);
  ClusterSpec& c = fit.cluster;
  std::vector<double> step;
  for (const Knob& k : knobs()) {
    step.push_back(k.step);
    fit.parameters.push_back({k.path, fact_at(c.collective, k.path)->value, 0});
  }
  double best = rows.loss(c);
  for (int sweep = 0; sweep < 400; ++sweep) {
    bool moved = false;
    for (size_t i = 0; i < knobs().size(); ++i) {
      const Knob& k = knobs()[i];
      Fact* f = fact_at(c.collective, k.path);
      double x = f->value;
      for (double dir : {1.0, -1.0}) {
        double y = std::clamp(x + dir * step[i], k.lo, k.hi);
        if (y == x) continue;
        f->value = y;
        double l = rows.loss(c);
        if (l < best - 1e-12) {
          best = l, x = y, moved = true;
          step[i] *= 1.5;
          break;
        }
        f->value = x;
      }
      if (f->value == x && !moved) step[i] *= 0.5;
    }
    double largest = *std::max_element(step.begin(), step.end());
    if (!moved && largest < 1e-4) break;
  }
  for (auto& p : fit.parameters) p.after = fact_at(c.collective, p.path)->value;
  fit.mape_after = rows.mape(c, 0);
  fit.mape_1mb_after = rows.mape(c, 1e6);
  return fit;
}

nlohmann::json fitted_cluster_document(nlohmann::json doc, const CollectiveFit& fit,
                                       const std::string& data_file, const std::string& date) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d rows, MAPE %.1f%% -> %.1f%%", fit.rows, 100 * fit.mape_before,
                100 * fit.mape_after);
  std::string source = "fitted: " + fit.cluster.name + ", " + date + ": ridgeline calibrate " +
                       "fit-collectives on the fit split of " + data_file + " (" + buf + ")";
  if (!doc.contains("collective_model")) doc["collective_model"] = nlohmann::json::object();
  for (const auto& p : fit.parameters) {
    nlohmann::json::json_pointer at("/collective_model/" + p.path);
    doc[at] = {{"value", std::round(p.after * 1e4) / 1e4}, {"source", source}};
  }
  return doc;
}

}  // namespace ridgeline
