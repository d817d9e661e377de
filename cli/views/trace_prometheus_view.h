// `validate --trace T --format prometheus`: a measured step (a profiler trace matched to its
// prediction) as Prometheus metrics: ridgeline_measured_step_seconds, _tokens_per_second,
// _mfu_ratio, _kernel_seconds and _layer_kernel_seconds beside ridgeline_expected_step_seconds,
// under the labels that `export prometheus` gives the same workload (prometheus_view.h).
#pragma once

#include "validate/trace_compare.h"

#include <ostream>
#include <string>

namespace ridgeline {

// `kernels`: the trace's kernels (their span is the measured step); `c`: their match.
void print_trace_prometheus(std::ostream& os, const std::vector<TraceKernel>& kernels,
                            const TraceComparison& c, const Prediction& p, const GpuSpec& gpu,
                            const std::string& job);

}  // namespace ridgeline
