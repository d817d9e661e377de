// vLLM V1's scheduler (vllm/v1/core/sched/scheduler.py; serving_design.md 1.1). One token budget
// (max_num_batched_tokens) a step:
//  1. running requests in admission order, each its remaining tokens (1 for a decode, the rest of
//     a prompt for a partial prefill) cut to the budget left; KV blocks for exactly those tokens.
//     When a request's blocks cannot be had, the newest running request is preempted (recompute:
//     its KV freed, back to the front of the waiting queue) until they can, or until the request
//     itself was the one preempted;
//  2. only if nothing was preempted: waiting requests in order while budget remains and fewer
//     than max_num_seqs run, each its prompt (less any prefix-cache hit) cut to the budget
//     (without chunked prefill a prompt that does not fit waits); admission never preempts.
// A request in flight (pp > 1) keeps its seat but is neither scheduled nor preempted.
#include "serve/policies/policies.h"

#include <algorithm>

namespace ridgeline {

namespace {

class VllmV1 : public EnginePolicy {
 public:
  using EnginePolicy::EnginePolicy;

  StepPlan schedule(EngineState& s) override {
    StepPlan plan;
    int64_t budget = e_.max_num_batched_tokens;
    bool preempted = false;
    for (size_t i = 0; i < s.running.size() && budget > 0; ++i) {
      Sequence& q = s.seqs[s.running[i]];
      if (q.in_flight) continue;
      int64_t n = std::min(q.remaining(), budget);
      bool scheduled = true;
      while (!s.kv.grow(q, q.computed + n)) {
        size_t victim = newest_idle(s);  // q itself at the latest
        preempted = true;
        preempt_running(s, victim);
        if (victim == i) {
          scheduled = false;
          break;
        }
      }
      if (!scheduled) break;
      plan.work.push_back({s.running[i], n});
      budget -= n;
    }
    if (preempted) return plan;
    while (!s.waiting.empty() && budget > 0 && (int64_t)s.running.size() < e_.max_num_seqs) {
      int idx = s.waiting.front();
      Sequence& q = s.seqs[idx];
      int64_t hit = s.kv.reuse_cached(q);
      q.computed = std::max(q.computed, hit);
      int64_t n = prefill_tokens(q, budget, e_.chunked_prefill);
      if (n == 0 || !s.kv.grow(q, q.computed + n)) {
        if (hit > 0) s.kv.preempt(q), q.computed = 0;  // its blocks go back to the cache
        break;
      }
      s.waiting.pop_front();
      s.running.push_back(idx);
      plan.work.push_back({idx, n});
      budget -= n;
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<SchedulerPolicy> make_vllm_v1_policy(const EngineConfig& e) {
  return std::make_unique<VllmV1>(e);
}

}  // namespace ridgeline
