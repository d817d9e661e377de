// The property suite's main (Catch2 v2) and its harness (property.h): prints the run's seed
// before any property runs, and each property's case count as it ends.
#define CATCH_CONFIG_RUNNER
#include "property.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <stdexcept>

namespace ridgeline::prop {

namespace {

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-')
    throw std::invalid_argument(std::string(name) + ": expected a non-negative integer, got \"" +
                                text + "\"");
  return v;
}

}  // namespace

uint64_t run_seed() {
  static const uint64_t seed = env_number("RIDGELINE_PROPERTY_SEED", kDefaultSeed);
  return seed;
}

int case_scale() {
  static const int scale = (int)env_number("RIDGELINE_PROPERTY_SCALE", 1);
  return scale;
}

Property::Property(std::string name, int cases)
    : name_(std::move(name)),
      cases_(cases * case_scale()),
      rng_(run_seed() ^ std::hash<std::string>{}(name_)) {}

Property::~Property() {
  std::cout << "property \"" << name_ << "\": " << cases_ << " cases, seed " << run_seed();
  int total = 0;
  for (const auto& [rule, n] : exempt_) total += n;
  if (total > 0) {
    std::cout << ", " << total << " exempt (";
    const char* sep = "";
    for (const auto& [rule, n] : exempt_) {
      std::cout << sep << rule << ": " << n;
      sep = "; ";
    }
    std::cout << ")";
  }
  std::cout << "\n";
}

int Property::exempted(const std::string& rule) const {
  auto it = exempt_.find(rule);
  return it == exempt_.end() ? 0 : it->second;
}

int64_t Property::uniform(int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
}

int64_t Property::log_uniform(int64_t lo, int64_t hi) {
  double x = std::exp(real(std::log((double)lo), std::log((double)hi + 1)));
  return std::clamp((int64_t)x, lo, hi);
}

double Property::real(double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng_);
}

bool Property::coin(double p_true) {
  return real(0, 1) < p_true;
}

}  // namespace ridgeline::prop

int main(int argc, char* argv[]) {
  try {
    std::cout << "property seed " << ridgeline::prop::run_seed()
              << " (RIDGELINE_PROPERTY_SEED to change), case scale "
              << ridgeline::prop::case_scale() << " (RIDGELINE_PROPERTY_SCALE)\n";
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  return Catch::Session().run(argc, argv);
}
