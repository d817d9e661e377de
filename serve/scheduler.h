// What a scheduler policy sees and decides. Each step the policy reads the engine state (the
// waiting queue, the running list in admission order, the KV pool), moves requests between them
// (admission, preemption by recompute) and returns the step's work: how many new tokens each
// scheduled request processes. The simulator (simulator.cpp) then prices and applies the step.
// A request's tokens: its prompt plus what it generated so far; `computed` of them have KV in the
// cache. A step that brings computed up to all its tokens samples one new token.
// Policies (serve/policies/, one file each, listed once in policies.cpp):
//   vllm_v1  one token budget, running first, then waiting (not in a step that preempted),
//            chunked prefill, KV per step, preemption of the newest by recompute;
//   trtllm   GUARANTEED_NO_EVICT: admission reserves prompt + output blocks; decodes, then
//            context chunks under max_num_tokens;
//   sglang   prefill (extend) steps apart from decode steps, admission against a decaying
//            estimate of the running requests' future tokens, retraction when KV runs out;
//   hf_cb    transformers' FIFOScheduler: decodes, then split prefills and waiting requests
//            under max_batch_tokens, no new prefill past the safety margin.
// Under pipeline parallelism a request whose batch is still in the pipeline is `in_flight`: it
// stays in `running` (it holds a seat and its KV) but no policy schedules or preempts it until
// its batch comes back (vLLM V1's batch queue: its next token is not known yet).
#pragma once

#include "serve/engine.h"
#include "serve/kv_pool.h"
#include "serve/request.h"

#include <deque>
#include <memory>
#include <utility>
#include <vector>

namespace ridgeline {

struct Sequence {
  const Request* request = nullptr;
  int64_t generated = 0;      // tokens emitted so far
  int64_t computed = 0;       // tokens with KV in the cache
  int64_t blocks = 0;         // KV blocks held
  int64_t cached_blocks = 0;  // prefix caching: blocks left cached at preemption
  int64_t preemptions = 0;
  double first_scheduled_s = -1;
  bool in_flight = false;  // in a batch still in the pipeline (pp > 1)

  int64_t tokens() const { return request->input_tokens + generated; }
  int64_t remaining() const { return tokens() - computed; }
  bool decoding() const { return generated > 0 && remaining() == 1; }
};

struct EngineState {
  std::deque<Sequence> seqs;  // by slot: the simulator reuses a finished request's slot
  std::deque<int> waiting;    // indices into seqs, arrival order (preempted ones in front)
  std::vector<int> running;   // admission order
  KvPool kv;
  int64_t preemptions = 0;
};

struct StepPlan {
  std::vector<std::pair<int, int64_t>> work;  // (sequence, new tokens this step)
  bool empty() const { return work.empty(); }
};

// Moves running[pos] back to the front of the waiting queue, its KV freed (recompute).
void preempt_running(EngineState& s, size_t pos);
// The newest running request not in flight (the one preemption takes): its position in
// running, or running.size() when every one is in flight.
size_t newest_idle(const EngineState& s);

class SchedulerPolicy {
 public:
  virtual ~SchedulerPolicy() = default;
  virtual StepPlan schedule(EngineState& state) = 0;
};

std::unique_ptr<SchedulerPolicy> make_policy(const EngineConfig& engine);

}  // namespace ridgeline
