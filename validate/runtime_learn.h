// Learning a runtime profile from a PyTorch profiler trace of a user's own framework (`ridgeline
// runtime learn`). The trace's kernels are matched to the kernels the step would launch
// (kernel_match.h) under each runtime choice, and the choice that matches best is kept:
//
//   start from a base runtime (a preset or a file); repeat until nothing improves:
//     for each choice (norm/impl, norm/residual_add, attention/qkv_projection, attention/rope,
//     attention/rope_tables, attention/mask, attention/mla, kv_cache/update, kv_cache/read,
//     mlp/gate_up_projection, mlp/activation, moe/impl):
//       try every value with the others held, keep the best-scoring one (ties keep the current)
//
// A candidate is the base file's JSON with the choices edited, read by the strict runtime parser,
// so a combination the parser refuses (fused_with_rope without a fused RoPE) is never chosen and
// every key the base has (launch settings, memory, keys added later) is carried over. A choice
// whose values all score the same cannot be seen in this trace (an MoE choice in a dense model):
// it keeps the base's value and the report says so. A trace whose best match pairs less than
// kMinMatchedShare of its kernels with a part of the step is refused (another model or phase).
// The base's "learned_position_models" overrides are dropped: the learned choices are the traced
// model's.
#pragma once

#include "validate/kernel_match.h"
#include "workloads/model_config.h"
#include "workloads/run_config.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

constexpr double kMinMatchedShare = 0.5;

struct ChoiceDim {
  std::string pointer;  // JSON pointer into a runtime file: "/norm/impl"
  std::vector<std::string> values;
};
const std::vector<ChoiceDim>& runtime_choice_dims();

struct ChoiceResult {
  std::string pointer, base, chosen;
  std::vector<std::pair<std::string, double>> scores;  // each valid value's score, last pass
  bool observable = true;   // some value scored differently from the others
  bool only_valid = false;  // the one value the other choices allow
  bool fixed = false;       // set by a flag (--kv-cache-impl), not searched
};

struct LearnRequest {
  std::vector<TraceKernel> kernels;
  std::string trace_label;
  ModelConfig model;
  RunConfig run;                            // its runtime is replaced by each candidate
  nlohmann::json base;                      // the base runtime's file
  std::string base_name;                    // "pytorch-eager" or the file's path
  std::optional<std::string> cache_update;  // --kv-cache-impl: kv_cache/update fixed to this
};

struct LearnResult {
  nlohmann::json doc;  // the learned runtime file (the base with the chosen values)
  RuntimeProfile runtime;
  std::vector<ChoiceResult> choices;
  double base_score = 0;
  std::vector<KernelGroup> groups;
  std::vector<StepKernel> step;
  OpGraph graph;
  KernelMatch match;
  size_t trace_kernels = 0, matched_kernels = 0;  // kernels (helpers included) in matched groups
  int candidates = 0, refused = 0;  // evaluated, and refused by the parser or the builder
};

// Throws InputError naming the trace when too little of it matches.
LearnResult learn_runtime(const LearnRequest& request);

// The base runtime's file: a preset's embedded text or the file at a path (read strictly first).
nlohmann::json runtime_document(const std::string& name_or_path);

}  // namespace ridgeline
