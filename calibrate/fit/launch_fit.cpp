// Golden-section fit of launch/python_eager_us to eager whole-model runs; see launch_fit.h.
#include "calibrate/fit/launch_fit.h"

#include "common/errors.h"
#include "model/prediction.h"
#include "workloads/graph_builder.h"

#include <cmath>

namespace ridgeline {

namespace {

struct EagerCase {
  OpGraph graph;
  const WorkloadMeasurement* m;
};

double predicted_us(const EagerCase& c, GpuSpec& gpu, double launch_us) {
  gpu.launch.python_eager_us.value = launch_us;
  return predict_workload(c.graph, c.m->model, c.m->run, gpu).total_us;
}

FitScore score(const std::vector<EagerCase>& cases, GpuSpec& gpu, double launch_us) {
  std::vector<std::pair<std::string, double>> errors;
  for (const auto& c : cases) {
    errors.emplace_back(c.m->split,
                        std::fabs(predicted_us(c, gpu, launch_us) / c.m->measured_us - 1));
  }
  return score_errors(errors);
}

double fit_cost(const std::vector<EagerCase>& cases, GpuSpec& gpu, double launch_us) {
  double c2 = 0;
  for (const auto& c : cases) {
    if (c.m->split != "fit") continue;
    double r = std::log(predicted_us(c, gpu, launch_us) / c.m->measured_us);
    c2 += r * r;
  }
  return c2;
}

}  // namespace

LaunchFit fit_python_eager(const GpuSpec& base, const WorkloadDataset& data) {
  std::vector<EagerCase> cases;
  int fit_cases = 0;
  for (const auto& m : data.records) {
    if (m.run.launch != LaunchMode::Eager) continue;
    cases.push_back({build_graph(m.model, m.run), &m});
    fit_cases += m.split == "fit";
  }
  if (fit_cases == 0)
    throw InputError(data.file + ": no eager run in the fit split to fit launch/python_eager_us");
  GpuSpec gpu = base;
  LaunchFit f;
  f.previous_us = base.launch.python_eager_us.value;
  f.before = score(cases, gpu, f.previous_us);
  // Golden section on log(launch_us): the cost is unimodal in it (step time grows with it).
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double a = std::log(kMinEagerLaunchUs), b = std::log(kMaxEagerLaunchUs);
  double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
  double c1 = fit_cost(cases, gpu, std::exp(x1)), c2 = fit_cost(cases, gpu, std::exp(x2));
  while (b - a > 1e-4) {
    if (c1 <= c2) {
      b = x2, x2 = x1, c2 = c1;
      x1 = b - phi * (b - a);
      c1 = fit_cost(cases, gpu, std::exp(x1));
    } else {
      a = x1, x1 = x2, c1 = c2;
      x2 = a + phi * (b - a);
      c2 = fit_cost(cases, gpu, std::exp(x2));
    }
  }
  f.value_us = std::exp((a + b) / 2);
  f.at_bound = f.value_us < 1.01 * kMinEagerLaunchUs || f.value_us > 0.99 * kMaxEagerLaunchUs;
  f.after = score(cases, gpu, f.value_us);
  return f;
}

}  // namespace ridgeline
