// The host's cost per op kind (runtime_profile.h HostOpCosts) from a trace's CPU side: each
// matched kernel (kernel_match.h) is traced back through its launch (the cuda_runtime event with
// the same "correlation") to the top-level CPU op that issued it (aten::linear, aten::mul, ...);
// that op's span, shared among the step's kernels it launched, is one sample of the host cost of
// the kernel's kind (host_op_kind(): a GEMM, attention, a reduction or row op, a cache update,
// any other elementwise kernel). Each kind's cost is the mean of its samples; the rest of a
// decoder layer's host span (views, module calls, the interpreter), the mean over the layers, is
// the per-block time, and the rest of the step's span the per-forward time, so that the traced
// step's host time is reproduced and a deeper model's grows with its layers. The profiler inflates
// every CPU span (it records each op); given the step's host time measured without the profiler
// (host_step_us), all costs are scaled by host_step_us / the profiled span. A trace without CPU ops
// or launch correlations has no host costs to learn: the result says so and the base runtime's host
// costs stay.
#pragma once

#include "validate/kernel_match.h"
#include "workloads/runtime_profile.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ridgeline {

struct HostKindSample {
  std::string kind;  // "gemm", "attention", "elementwise", "reduction", "cache_update"
  int ops = 0, kernels = 0;
  double profiled_us = 0;  // mean span a kernel, as profiled
};

struct HostLearn {
  bool learned = false;
  std::string note;  // why not learned, or how the costs were scaled
  HostOpCosts costs;
  std::vector<HostKindSample> kinds;
  double profiled_span_us = 0, scale = 1;
  int cpu_ops = 0, traced_kernels = 0;  // top-level ops, matched kernels traced to one
};

// host_step_us: the traced step's unprofiled host time, or 0 when not known.
HostLearn learn_host_costs(const nlohmann::json& trace, const std::vector<TraceKernel>& kernels,
                           const std::vector<KernelGroup>& groups, const KernelMatch& match,
                           const std::vector<StepKernel>& step, const OpGraph& graph,
                           double host_step_us);

}  // namespace ridgeline
