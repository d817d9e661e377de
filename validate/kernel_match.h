// Matching a trace's kernels to the kernels a graph would launch, finer than validate --trace's
// families so that runtime choices can be told apart (runtime_learn.h). Every kernel gets a class:
//   gemm, attention, softmax, reduce       as trace_compare.h's families
//   norm/aten, norm/single_pass            a one-kernel norm: ATen's row kernel, or a single-pass
//                                          one (Triton, a serving engine's rms_norm_kernel)
//   elementwise/cat, elementwise/copy,     torch.cat; copies and casts; any other elementwise
//   elementwise/math                       kernel (mul, add, neg, silu, pow, rsqrt, ...)
//   aux                                    helpers that join the kernel they serve (split-K
//                                          reduce, memsets): never matched on their own
//   other                                  a trace kernel whose name no rule knows
// The trace's kernels are grouped as validate --trace groups them (a main kernel and its
// helpers) and the two sequences aligned by a weighted longest common subsequence, order kept:
// a pair of the same class scores 1, of the same family ("elementwise/cat" with
// "elementwise/copy") 0.5, else they cannot pair. The match score is 2 x weight / (groups +
// predicted kernels): 1 when the lists are the same, lower for kernels either side lacks.
#pragma once

#include "validate/trace_compare.h"
#include "workloads/op_graph.h"

#include <string>
#include <vector>

namespace ridgeline {

std::string trace_kernel_class(const std::string& kernel_name);
std::string node_kernel_class(const GraphNode& n);
// 1 for the same class, 0.5 for the same family, 0 otherwise (and for "aux" and "other").
double class_similarity(const std::string& a, const std::string& b);

// A main trace kernel and the helpers that serve it (indices into the trace's kernels).
struct KernelGroup {
  std::string kernel_class;
  std::vector<size_t> kernels;
};
std::vector<KernelGroup> group_trace_kernels(const std::vector<TraceKernel>& kernels);

// One kernel of the graph's step in launch order (sections in order, each repeat expanded).
struct StepKernel {
  std::string kernel_class;
  NodeId node;
  int64_t layer = -1;  // -1 outside the decoder stack
};
std::vector<StepKernel> step_kernels(const OpGraph& graph);

struct KernelPair {
  size_t group = 0, step = 0;
  double weight = 0;
};
struct KernelMatch {
  std::vector<KernelPair> pairs;         // in order
  std::vector<size_t> unmatched_groups;  // indices into the groups
  std::vector<size_t> unmatched_steps;   // indices into the step kernels
  double weight = 0, score = 0;          // score: 2 weight / (groups + step kernels)
};
KernelMatch match_kernels(const std::vector<KernelGroup>& groups,
                          const std::vector<StepKernel>& step);

}  // namespace ridgeline
