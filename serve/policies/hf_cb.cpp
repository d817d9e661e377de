// transformers' continuous batching, FIFOScheduler (src/transformers/generation/
// continuous_batching/scheduler.py, read 2026-12-01 from the stored source). Candidates in order:
// decoding requests, then requests with a split prefill, then waiting requests; each takes its
// remaining tokens cut to the token budget (max_batch_tokens). Once fewer than safety_margin x
// blocks are free, only decodes (and a first request) are scheduled. Blocks are allocated as the
// source does: when the tokens left in its blocks are fewer than the step's,
// ((n - room + 1) // block_size) + 1 more. A request whose blocks cannot be had is skipped (the
// loop stops when no block is free). The source never preempts; when nothing at all can run
// (every running request blocked on a full cache), the newest running request is preempted
// (recompute) here instead of the engine stalling, and counted as a preemption.
#include "serve/policies/policies.h"

#include <algorithm>

namespace ridgeline {

namespace {

class HfCb : public EnginePolicy {
 public:
  using EnginePolicy::EnginePolicy;

  StepPlan schedule(EngineState& s) override {
    StepPlan plan = fifo(s);
    while (plan.empty() && !s.running.empty()) {
      preempt_running(s, s.running.size() - 1);
      plan = fifo(s);
    }
    return plan;
  }

 private:
  bool allocate(EngineState& s, Sequence& q, int64_t n) {
    int64_t bs = s.kv.block_size(), room = q.blocks * bs - q.computed;
    if (room >= n && q.blocks > 0) return true;
    int64_t need = (n - room + 1) / bs + 1;
    return s.kv.grow(q, (q.blocks + need) * bs);
  }

  StepPlan fifo(EngineState& s) {
    std::vector<int> candidates;
    for (int idx : s.running)
      if (s.seqs[idx].decoding()) candidates.push_back(idx);
    for (int idx : s.running)
      if (!s.seqs[idx].decoding()) candidates.push_back(idx);
    size_t first_waiting = candidates.size();
    candidates.insert(candidates.end(), s.waiting.begin(), s.waiting.end());
    StepPlan plan;
    std::vector<int> admitted;
    int64_t budget = e_.max_num_batched_tokens;
    double margin = e_.safety_margin * (double)s.kv.total_blocks();
    for (size_t c = 0; c < candidates.size(); ++c) {
      Sequence& q = s.seqs[candidates[c]];
      bool outside = (double)s.kv.free_blocks() < margin;
      if (outside && !plan.empty() && !q.decoding()) break;
      if (c >= first_waiting && (int64_t)(s.running.size() + admitted.size()) >= e_.max_num_seqs)
        break;
      int64_t n = std::min(q.remaining(), budget);
      if (!allocate(s, q, n)) {
        if (s.kv.free_blocks() == 0) break;
        continue;
      }
      plan.work.push_back({candidates[c], n});
      if (c >= first_waiting) admitted.push_back(candidates[c]);
      budget -= n;
      if (budget == 0) break;
    }
    for (int idx : admitted) {
      s.waiting.erase(std::find(s.waiting.begin(), s.waiting.end(), idx));
      s.running.push_back(idx);
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<SchedulerPolicy> make_hf_cb_policy(const EngineConfig& e) {
  return std::make_unique<HfCb>(e);
}

}  // namespace ridgeline
