// SGLang's scheduler (python/sglang/srt/managers/scheduler.py, schedule_policy.py;
// serving_design.md 1.3). Prefill ("extend") steps and decode steps alternate, new prefills
// first (with mixed_chunk, an extend step also carries the decodes):
//  - an extend step takes the request whose prompt is partly done, then waiting requests in
//    order, under chunked_prefill_size tokens (max_num_batched_tokens; the last one chunked)
//    and max_running_requests (max_num_seqs); a new request needs room for its prompt plus its
//    clipped output, in the KV left after reserving new_token_ratio x min(output left, clip) for
//    every running request;
//  - a decode step runs every decoding request one token; when KV runs out the newest are
//    retracted (recompute) and the ratio goes back to its initial value;
//  - the ratio decays linearly each decode step from init to init x min_fraction_of_init;
//  - with mixed_chunk, the decodes riding on an extend step use its budget first: PrefillAdder
//    is built with mixed_with_decode_tokens = the running batch size and takes it off both
//    rem_input_tokens and rem_chunk_tokens (schedule_policy.py, PrefillAdder.__init__;
//    scheduler.py get_new_batch_prefill passes running_bs when is_mixed_chunk).
#include "serve/policies/policies.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

class Sglang : public EnginePolicy {
 public:
  explicit Sglang(const EngineConfig& e) : EnginePolicy(e), ratio_(e.sglang.init_new_token_ratio) {}

  StepPlan schedule(EngineState& s) override {
    StepPlan plan = extend(s);
    if (!plan.empty() && !e_.sglang.mixed_chunk) return plan;
    bool extended = !plan.empty();
    decode(s, plan);
    if (!extended) decay();
    return plan;
  }

 private:
  double reserved_tokens(const EngineState& s) const {
    double r = 0;
    for (int idx : s.running) {
      const Sequence& q = s.seqs[idx];
      int64_t left = q.request->output_tokens - q.generated;
      r += ratio_ * (double)std::min(left, e_.sglang.clip_max_new_tokens);
    }
    return r;
  }

  StepPlan extend(EngineState& s) {
    StepPlan plan;
    int64_t budget = e_.max_num_batched_tokens;
    if (e_.sglang.mixed_chunk) {
      int64_t decodes = 0;
      for (int idx : s.running) decodes += s.seqs[idx].decoding() && !s.seqs[idx].in_flight;
      budget = std::max<int64_t>(0, budget - decodes);
    }
    for (int idx : s.running) {  // the chunked request goes on first
      Sequence& q = s.seqs[idx];
      if (q.in_flight || q.decoding() || budget == 0) continue;
      int64_t n = std::min(q.remaining(), budget);
      if (!s.kv.grow(q, q.computed + n)) return plan;
      plan.work.push_back({idx, n});
      budget -= n;
    }
    double room = (double)(s.kv.free_blocks() * s.kv.block_size()) - reserved_tokens(s);
    while (!s.waiting.empty() && budget > 0 && (int64_t)s.running.size() < e_.max_num_seqs) {
      int idx = s.waiting.front();
      Sequence& q = s.seqs[idx];
      int64_t out = std::min(q.request->output_tokens - q.generated, e_.sglang.clip_max_new_tokens);
      if ((double)(q.remaining() + out) >= room) break;
      int64_t n = std::min(q.remaining(), budget);
      if (!s.kv.grow(q, q.computed + n)) break;
      room -= (double)(q.remaining() + out);
      s.waiting.pop_front();
      s.running.push_back(idx);
      plan.work.push_back({idx, n});
      budget -= n;
    }
    return plan;
  }

  void decode(EngineState& s, StepPlan& plan) {
    for (size_t i = 0; i < s.running.size(); ++i) {
      Sequence& q = s.seqs[s.running[i]];
      if (q.in_flight || !q.decoding()) continue;
      while (!s.kv.grow(q, q.computed + 1)) {  // retract the newest not in flight
        size_t victim = newest_idle(s);
        preempt_running(s, victim);
        ratio_ = e_.sglang.init_new_token_ratio;
        if (victim == i) return;
      }
      plan.work.push_back({s.running[i], 1});
    }
  }

  void decay() {
    double init = e_.sglang.init_new_token_ratio, floor = init * e_.sglang.min_ratio_fraction;
    ratio_ = std::max(floor, ratio_ - (init - floor) / (double)e_.sglang.decay_steps);
  }

  double ratio_;
};

}  // namespace

std::unique_ptr<SchedulerPolicy> make_sglang_policy(const EngineConfig& e) {
  return std::make_unique<Sglang>(e);
}

}  // namespace ridgeline
