// Arrival processes (see arrivals.h). Gaps are drawn from their own seeded stream (the seed
// plus one), so that changing the rate leaves the lengths drawn from the seed unchanged.
#include "serve/arrivals.h"

#include "common/errors.h"
#include "serve/random.h"

#include <cmath>
#include <cstdlib>

namespace ridgeline {

namespace {
constexpr double kMinRatePerS = 1e-6;  // a request every 11.6 days
}  // namespace

ArrivalSpec parse_rate(const std::string& rate, const std::string& arrival, double cv,
                       bool cv_given) {
  ArrivalSpec s;
  if (rate == "inf") {
    if (arrival != "poisson" || cv_given)
      throw InputError(
          "--rate inf: every request is queued at t = 0; --arrival and --cv do not "
          "apply");
    s.kind = ArrivalSpec::Kind::AllAtOnce;
    return s;
  }
  char* end = nullptr;
  double r = std::strtod(rate.c_str(), &end);
  if (rate.empty() || end != rate.c_str() + rate.size() || !std::isfinite(r))
    throw InputError("--rate " + rate + ": expected requests per second (a number) or inf");
  if (r <= 0) throw InputError("--rate " + rate + ": must be > 0 requests per second");
  // Found probing: a rate of 1e-308 put arrivals past the largest double (infinite times).
  if (r < kMinRatePerS)
    throw InputError("--rate " + rate + ": must be at least 1e-06 requests per second");
  s.rate_per_s = r;
  if (arrival == "poisson") {
    s.kind = ArrivalSpec::Kind::Poisson;
  } else if (arrival == "gamma") {
    s.kind = ArrivalSpec::Kind::Gamma;
  } else if (arrival == "fixed") {
    s.kind = ArrivalSpec::Kind::Fixed;
  } else {
    throw InputError("--arrival " + arrival + ": expected poisson, gamma or fixed");
  }
  if (cv_given && s.kind != ArrivalSpec::Kind::Gamma)
    throw InputError("--cv: applies to --arrival gamma only");
  if (s.kind == ArrivalSpec::Kind::Gamma) {
    if (!cv_given) throw InputError("--arrival gamma: needs --cv (1 is Poisson, > 1 bursty)");
    if (!(cv > 0)) throw InputError("--cv: must be > 0");
    // Found probing: --cv 1e-300 made the gamma shape infinite (the draw never ended) and
    // --cv 1e300 made it zero (not-a-number arrival times).
    if (cv < 1e-3 || cv > 1e3) throw InputError("--cv: must be between 0.001 and 1000");
    s.cv = cv;
  }
  return s;
}

double ArrivalClock::next() {
  using K = ArrivalSpec::Kind;
  if (spec_.kind == K::ClosedLoop || spec_.kind == K::Trace) return 0;
  double t = t_, mean_gap = spec_.kind == K::AllAtOnce ? 0 : 1.0 / spec_.rate_per_s;
  if (spec_.kind == K::Poisson) t_ += rng_.exponential(mean_gap);
  if (spec_.kind == K::Fixed) t_ += mean_gap;
  if (spec_.kind == K::Gamma) {
    double shape = 1.0 / (spec_.cv * spec_.cv);
    t_ += rng_.gamma(shape, mean_gap / shape);
  }
  return t;
}

void assign_arrivals(Workload& w, const ArrivalSpec& spec, uint64_t seed) {
  using K = ArrivalSpec::Kind;
  if (spec.kind == K::ClosedLoop || spec.kind == K::Trace) return;
  ArrivalClock clock(spec, seed);
  for (Request& r : w.requests) r.arrival_s = clock.next();
}

std::string describe(const ArrivalSpec& s) {
  auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  switch (s.kind) {
    case ArrivalSpec::Kind::Poisson:
      return "poisson " + num(s.rate_per_s) + " req/s";
    case ArrivalSpec::Kind::Gamma:
      return "gamma " + num(s.rate_per_s) + " req/s, cv " + num(s.cv);
    case ArrivalSpec::Kind::Fixed:
      return "fixed " + num(s.rate_per_s) + " req/s";
    case ArrivalSpec::Kind::AllAtOnce:
      return "all at t=0 (rate inf)";
    case ArrivalSpec::Kind::ClosedLoop:
      return "closed loop, " + std::to_string(s.concurrency) + " in flight";
    case ArrivalSpec::Kind::Trace:
      return "trace arrivals";
  }
  return "";
}

}  // namespace ridgeline
