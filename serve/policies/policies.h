// The scheduler policies' factories (one file each in this folder; registered in policies.cpp).
#pragma once

#include "serve/scheduler.h"

namespace ridgeline {

std::unique_ptr<SchedulerPolicy> make_vllm_v1_policy(const EngineConfig& e);
std::unique_ptr<SchedulerPolicy> make_trtllm_policy(const EngineConfig& e);
std::unique_ptr<SchedulerPolicy> make_sglang_policy(const EngineConfig& e);
std::unique_ptr<SchedulerPolicy> make_hf_cb_policy(const EngineConfig& e);

}  // namespace ridgeline
