// When requests arrive. Open loop: Poisson (exponential gaps at --rate), gamma gaps with a
// coefficient of variation (--arrival gamma --cv 2: bursty; cv 1 is Poisson; vLLM's
// --burstiness is 1/cv^2), fixed gaps of 1/rate, or every request at t = 0 (--rate inf: a
// max-throughput run). Closed loop (--concurrency C): C requests in flight, each completion
// sends the next at once; the simulator times those (arrival_s stays 0 here). A trace file's
// own arrival times are used as they are.
#pragma once

#include "serve/random.h"
#include "serve/request.h"

#include <cstdint>
#include <string>

namespace ridgeline {

struct ArrivalSpec {
  enum class Kind { Poisson, Gamma, Fixed, AllAtOnce, ClosedLoop, Trace } kind = Kind::Poisson;
  double rate_per_s = 0;    // open loop
  double cv = 1;            // gamma
  int64_t concurrency = 0;  // closed loop
};

// --rate R|inf, --arrival poisson|gamma|fixed, --cv X: errors name the flag.
ArrivalSpec parse_rate(const std::string& rate, const std::string& arrival, double cv,
                       bool cv_given);

// An open loop's arrival times one at a time (0 first), drawn from the seed plus one; what
// assign_arrivals sets, for a run that never holds all its requests. Closed loop, trace: 0.
class ArrivalClock {
 public:
  ArrivalClock(const ArrivalSpec& spec, uint64_t seed) : spec_(spec), rng_(seed + 1) {}
  double next();

 private:
  ArrivalSpec spec_;
  Random rng_;
  double t_ = 0;
};

// Sets arrival_s of every request (open loop; closed loop and a trace leave them).
void assign_arrivals(Workload& w, const ArrivalSpec& spec, uint64_t seed);

std::string describe(const ArrivalSpec& spec);  // "poisson 4 req/s", "closed loop, 32 in flight"

}  // namespace ridgeline
