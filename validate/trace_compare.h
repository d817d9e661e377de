// Trace comparison: a PyTorch profiler (Kineto / Chrome trace) file of a real run, matched
// kernel by kernel to ridgeline's prediction of the same workload. Kernels are classified by
// name into op families (gemm, attention, norm, softmax, elementwise, reduce); helper kernels
// (cuBLAS split-K reduce, cuDNN split-KV and backward helpers, memsets) join the op they serve;
// the two sequences are aligned by family (dynamic programming, order preserved). Each matched
// op gets its measured time beside the predicted one and the plain roofline bound, so the report
// can say which kernels run far from what the hardware allows, and why.
#pragma once

#include "model/prediction.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ridgeline {

struct TraceKernel {
  std::string name;
  double start_us = 0, duration_us = 0;
  std::string family;  // gemm, attention, norm, softmax, elementwise, reduce, or aux
};

// GPU kernels (and memsets) of a Chrome trace, in start order. Errors name the file.
std::vector<TraceKernel> read_trace_kernels(const nlohmann::json& trace, const std::string& label);
std::string kernel_family(const std::string& kernel_name);
// A predicted op's family (op_family()) in the same terms.
std::string op_family_for_trace(const std::string& op_family);

struct MatchedOp {
  std::string name, section, family;
  int64_t layer = -1;
  double measured_us = 0;   // sum of the kernels matched to it
  double predicted_us = 0;  // predicted kernel time less launch gaps (profilers omit them)
  double roofline_us = 0;   // plain datasheet roofline
  std::string bottleneck;   // predicted
  double hbm_bytes = 0, flops = 0;
  std::vector<std::string> kernels;
};

struct TraceComparison {
  std::vector<MatchedOp> matched;
  std::vector<TraceKernel> unmatched_kernels;
  std::vector<std::string> unmatched_ops;  // predicted ops with no kernel
  double measured_total_us = 0, predicted_total_us = 0;
  int trace_kernels = 0;
  std::string shapes;  // what the trace's recorded shapes confirmed (trace_shapes.h), one line
};

TraceComparison compare_trace(const std::vector<TraceKernel>& kernels, const Prediction& p,
                              const GpuSpec& gpu);

}  // namespace ridgeline
