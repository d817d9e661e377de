// The property suite's harness: one seed for the whole run (fixed by default, so a failure
// reproduces; RIDGELINE_PROPERTY_SEED=N explores others, RIDGELINE_PROPERTY_SCALE=K runs K times
// the cases), and a Property per TEST_CASE that owns its random generator (seeded from the run's
// seed and the property's name, so properties do not depend on each other's order), counts its
// cases and the ones a named rule exempts, and prints both:
//
//   property "faster HBM never slows an op": 3000 cases, seed 20261201, 12 exempt
//     (split-KV choice: 12)
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace ridgeline::prop {

uint64_t run_seed();  // RIDGELINE_PROPERTY_SEED or the default
int case_scale();     // RIDGELINE_PROPERTY_SCALE or 1
constexpr uint64_t kDefaultSeed = 20261201;

class Property {
 public:
  // `cases`: the default count (times case_scale()).
  Property(std::string name, int cases);
  ~Property();
  Property(const Property&) = delete;
  Property& operator=(const Property&) = delete;

  int cases() const { return cases_; }
  std::mt19937_64& rng() { return rng_; }
  // A case a documented rule exempts (the rule's name, as the test states it).
  void exempt(const std::string& rule) { ++exempt_[rule]; }
  int exempted(const std::string& rule) const;

  // Draws.
  int64_t uniform(int64_t lo, int64_t hi);      // inclusive
  int64_t log_uniform(int64_t lo, int64_t hi);  // inclusive, log-spaced
  double real(double lo, double hi);
  bool coin(double p_true = 0.5);
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[(size_t)uniform(0, (int64_t)v.size() - 1)];
  }

 private:
  std::string name_;
  int cases_;
  std::mt19937_64 rng_;
  std::map<std::string, int> exempt_;
};

}  // namespace ridgeline::prop
