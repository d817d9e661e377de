// View of a profiler-trace comparison: matching summary, time by family, and the kernels that
// lose the most time against their plain roofline, with why.
#pragma once

#include "validate/trace_compare.h"

#include <ostream>

namespace ridgeline {

void print_trace_comparison(std::ostream& os, const TraceComparison& c, const Prediction& p,
                            const GpuSpec& gpu, int worst);

}  // namespace ridgeline
