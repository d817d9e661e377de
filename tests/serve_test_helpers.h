// Helpers for the serving rule tests: an engine from a few numbers (the rest fixed), a step model
// of known cost (a + b x tokens microseconds), and an engine state to drive a policy by hand.
#pragma once

#include "serve/engine.h"
#include "serve/scheduler.h"
#include "serve/step_model.h"

#include <string>

namespace ridgeline::test {

inline EngineConfig engine_json(const std::string& policy, int64_t budget, int64_t max_seqs,
                                int64_t block, const std::string& extra = "", double host_us = 0) {
  std::string text = R"({"description": "test", "source": "test", "runtime": "fused",
    "launch": "graph", "scheduler": {"policy": ")" +
                     policy + R"(", "max_num_batched_tokens": )" + std::to_string(budget) +
                     R"(, "max_num_seqs": )" + std::to_string(max_seqs) +
                     R"(, "chunked_prefill": true)" + extra + R"(},
    "kv_cache": {"block_size_tokens": )" +
                     std::to_string(block) +
                     R"(, "memory": "fraction_of_total", "memory_fraction": 0.9,
      "subtract_activation_peak": false, "max_blocks": 0, "prefix_caching": false,
      "dtype": "weights"},
    "cuda_graphs": null, "host": {"overhead_us_per_step": )" +
                     std::to_string(host_us) + R"(, "source": "test"}})";
  return load_engine_text(text, "test-engine.json");
}

// `text` with the first `from` replaced by `to` (a good engine file made bad in one place).
inline std::string with_replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

class FixedStepModel : public StepModel {
 public:
  FixedStepModel(double a_us, double b_us) : a_(a_us), b_(b_us) {}
  double step_us(const StepShape& s) override { return a_ + b_ * (double)s.tokens; }
  StepMemory memory() const override { return {80e9, 16e9, 1e9, 131072, 131072}; }
  double activation_peak_bytes(int64_t) override { return 0; }
  int64_t gpus() const override { return 1; }

 private:
  double a_, b_;
};

// An engine state over `requests` (kept alive by the caller) with a pool of `blocks`.
inline EngineState state_for(const std::vector<Request>& requests, int64_t blocks, int64_t block) {
  EngineState s{{}, {}, {}, KvPool(blocks, block, false), 0};
  s.seqs.resize(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    s.seqs[i].request = &requests[i];
    s.waiting.push_back((int)i);
  }
  return s;
}

}  // namespace ridgeline::test
