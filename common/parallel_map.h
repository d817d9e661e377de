// Independent points spread over a pool of threads, their results handed back in input order, so
// that a sweep, a strategy search or a capacity search prints byte for byte what one thread prints
// (`--jobs N`). ordered_parallel_for streams: worker threads claim indexes from an atomic counter
// and compute into a ring of `window` slots; the calling thread emits slot after slot in index
// order. A worker never runs more than `window` indexes ahead of the emitter, so memory is bounded
// by the window, not by the number of points (a 10^6-point sweep holds a few hundred results).
// An exception from compute(i) is rethrown on the calling thread when index i comes up (the one a
// single thread would have thrown first); `stop` (e.g. set by SIGINT) ends the run between points
// and ordered_parallel_for returns false. parallel_map gathers every result into a vector.
#pragma once

#include "common/errors.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ridgeline {

// `compute(i)` for i in [0, n) on `jobs` threads, `emit(i, result)` on the calling thread in
// index order. Returns false when `stop` became true before every index was emitted.
template <class R, class Compute, class Emit>
bool ordered_parallel_for(int64_t n, int jobs, Compute compute, Emit emit,
                          const std::atomic<bool>* stop = nullptr, int64_t window = 0) {
  if (jobs < 1) throw InternalError("ordered_parallel_for: jobs must be >= 1");
  auto stopped = [stop] { return stop && stop->load(std::memory_order_relaxed); };
  if (jobs == 1 || n <= 1) {
    for (int64_t i = 0; i < n; ++i) {
      if (stopped()) return false;
      emit(i, compute(i));
    }
    return true;
  }
  if (window < 1) window = 64 * (int64_t)jobs;
  struct Slot {
    std::optional<R> value;
    std::exception_ptr error;
    bool ready = false;
  };
  std::vector<Slot> ring((size_t)window);
  std::mutex m;
  std::condition_variable slot_ready, slot_free;
  std::atomic<int64_t> next{0};
  int64_t emitted = 0;  // guarded by m
  bool quit = false;    // guarded by m
  auto work = [&] {
    for (;;) {
      int64_t i = next.fetch_add(1);
      if (i >= n) return;
      {
        std::unique_lock<std::mutex> lock(m);
        slot_free.wait(lock, [&] { return quit || i < emitted + window; });
        if (quit) return;
      }
      std::optional<R> value;
      std::exception_ptr error;
      if (!stopped()) {
        try {
          value.emplace(compute(i));
        } catch (...) {
          error = std::current_exception();
        }
      }
      std::lock_guard<std::mutex> lock(m);
      Slot& s = ring[(size_t)(i % window)];
      s.value = std::move(value), s.error = error, s.ready = true;
      slot_ready.notify_all();
    }
  };
  std::vector<std::jthread> pool;
  auto finish = [&] {
    {
      std::lock_guard<std::mutex> lock(m);
      quit = true;
    }
    slot_free.notify_all();
    pool.clear();  // joins
  };
  for (int t = 0; t < jobs; ++t) pool.emplace_back(work);
  try {
    for (int64_t i = 0; i < n; ++i) {
      Slot taken;
      {
        std::unique_lock<std::mutex> lock(m);
        Slot& s = ring[(size_t)(i % window)];
        slot_ready.wait(lock, [&] { return s.ready; });
        taken = std::move(s);
        s = Slot{};
        ++emitted;
      }
      slot_free.notify_all();
      if (taken.error) std::rethrow_exception(taken.error);
      if (stopped() || !taken.value) {
        finish();
        return false;
      }
      emit(i, std::move(*taken.value));
    }
  } catch (...) {
    finish();
    throw;
  }
  finish();
  return true;
}

// compute(i) for i in [0, n) on `jobs` threads, the results in index order.
template <class R, class Compute>
std::vector<R> parallel_map(int64_t n, int jobs, Compute compute) {
  std::vector<R> out;
  out.reserve((size_t)n);
  ordered_parallel_for<R>(n, jobs, compute, [&](int64_t, R&& r) { out.push_back(std::move(r)); });
  return out;
}

}  // namespace ridgeline
