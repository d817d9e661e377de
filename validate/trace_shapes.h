// The sizes a trace ran with, where it recorded them: the PyTorch profiler with record_shapes=True
// writes each CPU op's argument shapes ("args": {"Input Dims": [[8, 32, 1, 128], ...]}). The first
// forward scaled-dot-product-attention call gives the batch, the queries and the keys per sequence
// ([batch, heads, length, head_dim] for query and key), which are checked against --batch, --seq
// and --kv-len, so a trace of another workload is refused instead of compared kernel for kernel.
#pragma once

#include "workloads/run_config.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ridgeline {

struct TraceShapes {
  bool recorded = false;   // any CPU op of the trace carries "Input Dims"
  bool attention = false;  // ... and an attention call with 4-D query and key shapes was found
  std::string op;          // its name, e.g. "aten::scaled_dot_product_attention"
  int64_t batch = 0, queries = 0, keys = 0;
};

TraceShapes read_trace_shapes(const nlohmann::json& trace);

// Throws an InputError naming the flag (--batch, --seq, --kv-len, --phase) that disagrees with the
// trace; returns the one line the report prints: what was checked, or that nothing could be.
std::string check_trace_shapes(const TraceShapes& shapes, const RunConfig& run,
                               const std::string& trace_label);

}  // namespace ridgeline
