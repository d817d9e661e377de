// Rule tests of the scheduler policies on small hand-worked cases: vLLM's token-budget split
// (running decodes first, then chunked prefill), admission by max_num_seqs and by free blocks,
// preemption by recompute when blocks run out, block accounting, TRT-LLM's GUARANTEED_NO_EVICT
// reservation, transformers' safety margin, SGLang's prefill/decode alternation. Both sides of
// every limit.
#include "serve/kv_pool.h"
#include "serve/scheduler.h"
#include "serve_test_helpers.h"

#include <catch2/catch.hpp>

using namespace ridgeline;
using namespace ridgeline::test;

namespace {

// What the simulator does with a plan: tokens computed, one sampled when they catch up.
void apply(EngineState& s, const StepPlan& plan) {
  for (auto [idx, n] : plan.work) {
    Sequence& q = s.seqs[idx];
    q.computed += n;
    if (q.computed == q.tokens()) ++q.generated;
  }
}

using Work = std::vector<std::pair<int, int64_t>>;

}  // namespace

TEST_CASE("vllm: running decodes take the budget first, the prompt is chunked into the rest") {
  EngineConfig e = engine_json("vllm_v1", 10, 100, 16);
  std::vector<Request> r = {{0, 0, 4, 5}, {1, 0, 4, 5}, {2, 0, 20, 2}};
  EngineState s = state_for(r, 100, 16);
  auto p = make_policy(e);
  StepPlan one = p->schedule(s);
  CHECK(one.work == Work{{0, 4}, {1, 4}, {2, 2}});  // 10 tokens: the last prompt cut to 2
  apply(s, one);
  StepPlan two = p->schedule(s);
  CHECK(two.work == Work{{0, 1}, {1, 1}, {2, 8}});  // decodes first, then 8 of 18 left
}

TEST_CASE("vllm: admission stops at max_num_seqs") {
  std::vector<Request> r = {{0, 0, 4, 5}, {1, 0, 4, 5}, {2, 0, 4, 5}};
  for (int64_t cap : {2, 3}) {
    EngineConfig e = engine_json("vllm_v1", 100, cap, 16);
    EngineState s = state_for(r, 100, 16);
    make_policy(e)->schedule(s);
    CHECK((int64_t)s.running.size() == cap);
    CHECK((int64_t)s.waiting.size() == 3 - cap);
  }
}

TEST_CASE("vllm: admission needs the blocks of the scheduled tokens, and never preempts") {
  std::vector<Request> r = {{0, 0, 40, 5}, {1, 0, 30, 5}};  // 3 blocks, then 2 blocks
  EngineConfig e = engine_json("vllm_v1", 100, 100, 16);
  EngineState four = state_for(r, 4, 16);
  CHECK(make_policy(e)->schedule(four).work == Work{{0, 40}});
  CHECK(four.kv.free_blocks() == 1);
  CHECK(four.preemptions == 0);
  EngineState five = state_for(r, 5, 16);
  CHECK(make_policy(e)->schedule(five).work == Work{{0, 40}, {1, 30}});
}

TEST_CASE("vllm: when a decode's block is not there the newest request is preempted") {
  std::vector<Request> r = {{0, 0, 16, 5}, {1, 0, 16, 5}};
  EngineConfig e = engine_json("vllm_v1", 100, 100, 16);
  EngineState s = state_for(r, 2, 16);
  auto p = make_policy(e);
  apply(s, p->schedule(s));       // both prompts: one block each, full
  StepPlan two = p->schedule(s);  // token 17 needs a second block
  CHECK(two.work == Work{{0, 1}});
  CHECK(s.preemptions == 1);
  CHECK(s.running == std::vector<int>{0});
  CHECK(s.waiting.front() == 1);
  CHECK(s.seqs[1].computed == 0);  // recompute
  CHECK(s.seqs[1].blocks == 0);
  EngineState roomy = state_for(r, 4, 16);
  apply(roomy, p->schedule(roomy));
  CHECK(p->schedule(roomy).work == Work{{0, 1}, {1, 1}});
  CHECK(roomy.preemptions == 0);
}

TEST_CASE("kv blocks: a request holds ceil(tokens / block size) blocks") {
  KvPool pool(10, 16, false);
  CHECK(pool.blocks_for(0) == 0);
  CHECK(pool.blocks_for(16) == 1);
  CHECK(pool.blocks_for(17) == 2);
  Request req{0, 0, 16, 4};
  Sequence q;
  q.request = &req;
  CHECK(pool.grow(q, 16));
  CHECK(q.blocks == 1);
  CHECK(pool.grow(q, 17));
  CHECK(q.blocks == 2);
  CHECK(pool.used_blocks() == 2);
  CHECK_FALSE(pool.grow(q, 16 * 11));  // 11 blocks > 10: nothing changes
  CHECK(q.blocks == 2);
  pool.release(q);
  CHECK(pool.free_blocks() == 10);
}

TEST_CASE("kv blocks: with prefix caching a preempted request finds its full blocks again") {
  KvPool pool(4, 16, true);
  Request req{0, 0, 40, 4};
  Sequence q;
  q.request = &req;
  REQUIRE(pool.grow(q, 40));  // 3 blocks, 2 of them full
  q.computed = 40;
  pool.preempt(q);
  CHECK(pool.free_blocks() == 4);  // cached blocks can be evicted, so they count as free
  CHECK(pool.reuse_cached(q) == 32);
  CHECK(q.blocks == 2);
  Sequence other;
  other.request = &req;
  q.computed = 40;
  pool.preempt(q);
  REQUIRE(pool.grow(other, 64));  // takes every block: the cached ones are evicted
  CHECK(pool.reuse_cached(q) == 0);
}

TEST_CASE("trtllm: GUARANTEED_NO_EVICT admits only what it can reserve to the last token") {
  std::vector<Request> r = {{0, 0, 100, 100}, {1, 0, 100, 100}};  // 7 blocks of 32 each
  EngineConfig e =
      engine_json("trtllm", 8192, 100, 32, R"(, "capacity_policy": "guaranteed_no_evict")");
  EngineState s = state_for(r, 13, 32);
  StepPlan p = make_policy(e)->schedule(s);
  CHECK(p.work == Work{{0, 100}});
  CHECK(s.seqs[0].blocks == 7);  // the whole output reserved at admission
  CHECK(s.waiting.size() == 1);
  EngineState both = state_for(r, 14, 32);
  CHECK(make_policy(e)->schedule(both).work == Work{{0, 100}, {1, 100}});
}

TEST_CASE("trtllm: generation requests go before context chunks in max_num_tokens") {
  std::vector<Request> r = {{0, 0, 4, 5}, {1, 0, 50, 5}};
  EngineConfig e =
      engine_json("trtllm", 20, 100, 32, R"(, "capacity_policy": "guaranteed_no_evict")");
  EngineState s = state_for(r, 100, 32);
  auto p = make_policy(e);
  CHECK(p->schedule(s).work == Work{{0, 4}, {1, 16}});
  apply(s, StepPlan{{{0, 4}, {1, 16}}});
  CHECK(p->schedule(s).work == Work{{0, 1}, {1, 19}});
}

TEST_CASE("hf-cb: past the safety margin only decodes join a step that has work") {
  std::vector<Request> r = {{0, 0, 140, 5}, {1, 0, 10, 5}};
  // 140 tokens take (140 + 1) // 16 + 1 = 9 blocks of 10, leaving 1 free.
  EngineConfig tight = engine_json("hf_cb", 256, 100, 16, R"(, "safety_margin": 0.2)");
  EngineState s = state_for(r, 10, 16);
  CHECK(make_policy(tight)->schedule(s).work == Work{{0, 140}});
  CHECK(s.seqs[0].blocks == 9);
  EngineConfig loose = engine_json("hf_cb", 256, 100, 16, R"(, "safety_margin": 0.05)");
  EngineState t = state_for(r, 10, 16);
  CHECK(make_policy(loose)->schedule(t).work == Work{{0, 140}, {1, 10}});
}

TEST_CASE("sglang: a prefill step runs apart from decodes, then the decodes run") {
  std::vector<Request> r = {{0, 0, 10, 3}, {1, 0, 10, 3}, {2, 0, 10, 3}};
  std::string knobs = R"(, "new_token_ratio": {"init": 0.7, "min_fraction_of_init": 0.14,
    "decay_steps": 600, "clip_max_new_tokens": 4096}, "mixed_chunk": false)";
  EngineConfig e = engine_json("sglang", 8192, 100, 1, knobs);
  EngineState s = state_for(r, 1000, 1);
  auto p = make_policy(e);
  s.waiting.pop_back();  // the third arrives later
  StepPlan one = p->schedule(s);
  CHECK(one.work == Work{{0, 10}, {1, 10}});
  apply(s, one);
  s.waiting.push_back(2);
  CHECK(p->schedule(s).work == Work{{2, 10}});  // a new prefill goes first, alone
  apply(s, StepPlan{{{2, 10}}});
  CHECK(p->schedule(s).work == Work{{0, 1}, {1, 1}, {2, 1}});
}

TEST_CASE("sglang: with mixed_chunk, the decodes on an extend step take its budget first") {
  // PrefillAdder(mixed_with_decode_tokens = running_bs): 30 - 2 decodes leave 28 prefill tokens.
  std::vector<Request> r = {{0, 0, 10, 3}, {1, 0, 10, 3}, {2, 0, 40, 3}};
  std::string knobs = R"(, "new_token_ratio": {"init": 0.7, "min_fraction_of_init": 0.14,
    "decay_steps": 600, "clip_max_new_tokens": 4096}, "mixed_chunk": true)";
  EngineConfig e = engine_json("sglang", 30, 100, 1, knobs);
  EngineState s = state_for(r, 1000, 1);
  auto p = make_policy(e);
  s.waiting.pop_back();  // the third arrives later
  StepPlan one = p->schedule(s);
  CHECK(one.work == Work{{0, 10}, {1, 10}});  // nothing decodes yet: the whole budget
  apply(s, one);
  s.waiting.push_back(2);
  CHECK(p->schedule(s).work == Work{{2, 28}, {0, 1}, {1, 1}});
}
