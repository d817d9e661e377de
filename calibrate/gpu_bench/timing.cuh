// How one benchmark point is timed, shared by every family that times launches of a kernel or
// library call: warm up eagerly, estimate the time of one call, then time batches of L calls
// (L >= the number of rotated buffer sets, so no set is reused within a batch and every set is
// evicted from L2 before its next use) and record one sample per batch, the batch time over L.
// By default a batch is captured once into a CUDA graph and replayed, so host launch cost is
// hidden, matching how `ridgeline op` defines a kernel's time; if capture fails the batch is
// launched eagerly and the method says so.
#pragma once

#include "json.cuh"

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace ridgeline::gpubench {

struct TimingPlan {
  int sets = 1;                   // rotated buffer sets; call i uses set i % sets
  int min_samples = 10;           // samples (batches) at least
  int min_calls = 20;             // calls timed in all at least
  double target_batch_us = 2000;  // aim for batches this long
  int max_batch = 4096;           // calls per batch at most (a graph of this many nodes)
  bool graph = true;              // replay batches from a CUDA graph
};

struct Timing {
  std::vector<double> samples_us;  // per call, one per batch
  int calls_per_sample = 1;
  std::string method;       // "graph" or "eager"
  std::string graph_error;  // why capture fell back to eager, if it did
};

// `call(stream, i)` enqueues call number i (it picks its buffer set as i % plan.sets).
using Call = std::function<void(cudaStream_t, int)>;
Timing time_calls(cudaStream_t s, const Call& call, const TimingPlan& plan);

// Runs `body` (which enqueues work on `s`) `samples` times between events; one sample per run
// in microseconds divided by `per_sample`. For kernels that are long enough on their own.
std::vector<double> time_each(cudaStream_t s, int samples, double per_sample,
                              const std::function<void(cudaStream_t)>& body);

double median(std::vector<double> v);
double percentile(std::vector<double> v, double q);  // q in [0, 1], linear interpolation

// Writes samples_us, median_us, min_us, p10_us, p90_us, calls_per_sample, timing method.
void put_timing(Json& out, const Timing& t);
void put_samples(Json& out, const std::vector<double>& samples_us);

// Rotated sets so that sets * set_bytes exceeds 3x L2 (at least 1, at most `cap`).
int sets_to_exceed_l2(size_t set_bytes, size_t l2_bytes, int cap = 1024);

}  // namespace ridgeline::gpubench
