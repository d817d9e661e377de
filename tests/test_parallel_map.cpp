// Rules of the --jobs thread pool (common/parallel_map.h): results come back in input order
// whatever the thread count; the emitter never falls more than a window behind (bounded memory);
// the exception a single thread would meet first is the one rethrown; a stop flag ends the run.
#include "common/parallel_map.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>

using namespace ridgeline;

namespace {

// Uneven work, so threads finish out of order.
int64_t slow_square(int64_t i) {
  volatile int64_t spin = 0;
  for (int64_t k = 0; k < (i % 7) * 2000; ++k) spin = spin + k;
  return i * i;
}

}  // namespace

TEST_CASE("parallel_map returns results in input order for 1, 2, 4 and 16 threads",
          "[parallel_map]") {
  const int64_t n = 3000;
  std::vector<int64_t> one = parallel_map<int64_t>(n, 1, slow_square);
  REQUIRE(one.size() == (size_t)n);
  for (int64_t i = 0; i < n; ++i) REQUIRE(one[(size_t)i] == i * i);
  for (int jobs : {2, 4, 16}) REQUIRE(parallel_map<int64_t>(n, jobs, slow_square) == one);
}

TEST_CASE("parallel_map with no points or fewer points than threads", "[parallel_map]") {
  REQUIRE(parallel_map<int64_t>(0, 4, slow_square).empty());
  REQUIRE(parallel_map<int64_t>(3, 8, slow_square) == std::vector<int64_t>{0, 1, 4});
}

TEST_CASE("parallel_map refuses fewer than one thread (a bug in the caller)", "[parallel_map]") {
  REQUIRE_THROWS_AS(parallel_map<int64_t>(3, 0, slow_square), InternalError);
  REQUIRE_THROWS_AS(parallel_map<int64_t>(3, -2, slow_square), InternalError);
}

TEST_CASE("ordered_parallel_for: a worker runs at most a window ahead of the emitter",
          "[parallel_map]") {
  std::atomic<int64_t> started{0};
  int64_t emitted = 0, worst_lead = 0;
  const int64_t window = 8;
  ordered_parallel_for<int64_t>(
      2000, 4,
      [&](int64_t i) {
        started.fetch_add(1);
        return slow_square(i);
      },
      [&](int64_t, int64_t&&) {
        ++emitted;
        worst_lead = std::max(worst_lead, started.load() - emitted);
      },
      nullptr, window);
  REQUIRE(emitted == 2000);
  REQUIRE(worst_lead <= window);
}

TEST_CASE("parallel_map rethrows the error of the lowest failing index, as one thread would",
          "[parallel_map]") {
  auto f = [](int64_t i) -> int64_t {
    if (i == 97 || i == 401) throw std::runtime_error("point " + std::to_string(i));
    return slow_square(i);
  };
  for (int jobs : {1, 4}) {
    try {
      parallel_map<int64_t>(1000, jobs, f);
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      REQUIRE(std::string(e.what()) == "point 97");
    }
  }
}

TEST_CASE("ordered_parallel_for stops between points when the stop flag is set", "[parallel_map]") {
  for (int jobs : {1, 3}) {
    std::atomic<bool> stop{false};
    int64_t emitted = 0;
    bool complete = ordered_parallel_for<int64_t>(
        100000, jobs, slow_square,
        [&](int64_t i, int64_t&&) {
          ++emitted;
          if (i == 10) stop = true;
        },
        &stop);
    REQUIRE_FALSE(complete);
    REQUIRE(emitted == 11);
  }
  std::atomic<bool> never{false};
  REQUIRE(ordered_parallel_for<int64_t>(
      50, 3, slow_square, [](int64_t, int64_t&&) {}, &never));
}
