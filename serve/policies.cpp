// The scheduler policies, one line each (STYLE 14): the engine file's scheduler/policy names one.
// Shared here: preemption by recompute and the prefill's cut to the token budget.
#include "serve/policies/policies.h"
#include "common/errors.h"

#include <algorithm>
#include <map>

namespace ridgeline {

void preempt_running(EngineState& s, size_t pos) {
  int idx = s.running[pos];
  Sequence& q = s.seqs[idx];
  s.kv.preempt(q);
  q.computed = 0;
  ++q.preemptions;
  ++s.preemptions;
  s.running.erase(s.running.begin() + (long)pos);
  s.waiting.push_front(idx);
}

size_t newest_idle(const EngineState& s) {
  for (size_t i = s.running.size(); i > 0; --i)
    if (!s.seqs[(size_t)s.running[i - 1]].in_flight) return i - 1;
  return s.running.size();
}

int64_t prefill_tokens(const Sequence& q, int64_t budget, bool chunked_prefill) {
  int64_t n = std::min(q.remaining(), budget);
  return !chunked_prefill && n < q.remaining() ? 0 : n;
}

std::unique_ptr<SchedulerPolicy> make_policy(const EngineConfig& e) {
  using Make = std::unique_ptr<SchedulerPolicy> (*)(const EngineConfig&);
  static const std::map<std::string, Make> policies = {
      {"vllm_v1", make_vllm_v1_policy},
      {"trtllm", make_trtllm_policy},
      {"sglang", make_sglang_policy},
      {"hf_cb", make_hf_cb_policy},
  };
  auto it = policies.find(e.policy);
  if (it == policies.end()) throw InternalError("no scheduler policy " + e.policy);
  return it->second(e);
}

}  // namespace ridgeline
