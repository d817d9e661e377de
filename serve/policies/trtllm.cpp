// TensorRT-LLM's batch manager with the default GUARANTEED_NO_EVICT capacity policy
// (serving_design.md 1.2). Capacity: a waiting request is admitted, in arrival order, only while
// fewer than max_batch_size (max_num_seqs) run and the pool can reserve blocks for its whole
// prompt plus max_new_tokens (here its output length: benchmarks fix it); so it is never evicted.
// Micro-batch: the step's tokens under max_num_tokens (max_num_batched_tokens): generation
// requests first (one token each), then context requests in admission order, a context cut into
// a chunk when chunked context is on (FIRST_COME_FIRST_SERVED), else waiting for a step it fits.
#include "serve/policies/policies.h"

#include <algorithm>

namespace ridgeline {

namespace {

class TrtllmNoEvict : public EnginePolicy {
 public:
  using EnginePolicy::EnginePolicy;

  StepPlan schedule(EngineState& s) override {
    while (!s.waiting.empty() && (int64_t)s.running.size() < e_.max_num_seqs) {
      Sequence& q = s.seqs[s.waiting.front()];
      if (!s.kv.grow(q, q.request->input_tokens + q.request->output_tokens)) break;
      s.running.push_back(s.waiting.front());
      s.waiting.pop_front();
    }
    StepPlan plan;
    int64_t budget = e_.max_num_batched_tokens;
    for (int idx : s.running) {
      if (budget == 0) break;
      const Sequence& q = s.seqs[idx];
      if (q.decoding() && !q.in_flight) plan.work.push_back({idx, 1}), --budget;
    }
    for (int idx : s.running) {
      const Sequence& q = s.seqs[idx];
      if (q.decoding() || q.in_flight) continue;
      int64_t n = prefill_tokens(q, budget, e_.chunked_prefill);
      if (n == 0) break;
      plan.work.push_back({idx, n});
      budget -= n;
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<SchedulerPolicy> make_trtllm_policy(const EngineConfig& e) {
  return std::make_unique<TrtllmNoEvict>(e);
}

}  // namespace ridgeline
