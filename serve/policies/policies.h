// The scheduler policies' factories (one file each in this folder; registered in policies.cpp),
// and the token-budget rule the policies share.
#pragma once

#include "serve/scheduler.h"

namespace ridgeline {

std::unique_ptr<SchedulerPolicy> make_vllm_v1_policy(const EngineConfig& e);
std::unique_ptr<SchedulerPolicy> make_trtllm_policy(const EngineConfig& e);
std::unique_ptr<SchedulerPolicy> make_sglang_policy(const EngineConfig& e);
std::unique_ptr<SchedulerPolicy> make_hf_cb_policy(const EngineConfig& e);

// The base of the policies: the engine's settings, which outlive the policy.
class EnginePolicy : public SchedulerPolicy {
 public:
  explicit EnginePolicy(const EngineConfig& e) : e_(e) {}

 protected:
  const EngineConfig& e_;
};

// A prefill's tokens this step: the rest of q's prompt cut to `budget`; 0 when it cannot run in
// this step (the budget is spent, or the rest does not fit and chunked prefill is off: it waits
// for a step it fits in whole).
int64_t prefill_tokens(const Sequence& q, int64_t budget, bool chunked_prefill);

}  // namespace ridgeline
