// The capacity search (see capacity.h).
#include "serve/capacity.h"

#include <cmath>

namespace ridgeline {

namespace {

ServeRun at_rate(const Workload& w, ServeSetup setup, const KvSizing& kv, double rate) {
  setup.arrivals = ArrivalSpec{};
  if (std::isinf(rate)) {
    setup.arrivals.kind = ArrivalSpec::Kind::AllAtOnce;
  } else {
    setup.arrivals.kind = ArrivalSpec::Kind::Poisson;
    setup.arrivals.rate_per_s = rate;
  }
  return run_serving(w, setup, kv);
}

}  // namespace

CapacityResult search_capacity(const Workload& workload, ServeSetup setup, const KvSizing& kv,
                               double target, std::optional<double> price) {
  CapacityResult c;
  setup.progress = nullptr;
  ServeRun sat = at_rate(workload, setup, kv, INFINITY);
  c.saturation_requests_per_s = sat.report.requests_per_s;
  double lo = c.saturation_requests_per_s / 1000, hi = c.saturation_requests_per_s;
  ServeRun low = at_rate(workload, setup, kv, lo);
  c.evaluations = 2;
  if (!low.report.slo_met) {
    c.reason = "the SLA is not met even at " + std::to_string(lo) +
               " req/s: " + low.report.slo_failures.front();
    c.at_max = low.report;
    return c;
  }
  ServeReport best = low.report;
  ServeRun top = at_rate(workload, setup, kv, hi);
  ++c.evaluations;
  c.bound = top.report.slo_met ? "saturation" : "sla";
  if (top.report.slo_met) {
    lo = hi;
    best = top.report;
  }
  while (hi - lo > 0.01 * lo && c.evaluations < 40) {
    double mid = hi / lo > 4 ? std::sqrt(lo * hi) : 0.5 * (lo + hi);  // geometric while wide
    ServeRun r = at_rate(workload, setup, kv, mid);
    ++c.evaluations;
    if (r.report.slo_met) {
      lo = mid;
      best = r.report;
    } else {
      hi = mid;
    }
  }
  c.met = true;
  c.max_requests_per_s = lo;
  c.at_max = best;
  c.replicas = (int64_t)std::ceil(target / lo - 1e-9);
  c.gpus = c.replicas * setup.gpus();
  if (price) c.cost_per_hour = (double)c.gpus * *price;
  return c;
}

}  // namespace ridgeline
