// One test per error message of check_parallel_config (workloads/parallel_config.h): each bad
// strategy names its flag and the numbers, and the strategy one step away is accepted.
#include "test_helpers.h"
#include "workloads/parallel_config.h"

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

const ModelConfig& tiny() {  // 4 heads, 2 KV heads, 2 layers
  static const ModelConfig m = load_model(RIDGELINE_SOURCE_DIR "/examples/models/tiny-llama.json");
  return m;
}

RunConfig train_run() {
  RunConfig r;
  r.phase = Phase::Train;
  r.seq = 128;
  return r;
}

ParallelConfig strategy(int64_t tp, int64_t pp, int64_t dp) {
  ParallelConfig p;
  p.tp = tp, p.pp = pp, p.dp = dp, p.gpus = tp * pp * dp;
  p.microbatch = 1;
  p.global_batch = 4 * dp;
  return p;
}

// PP 2 x VP 2 (four model chunks) under the interleaved schedule, over a tiny model of `layers`.
ParallelConfig interleaved_2x2() {
  ParallelConfig p = strategy(1, 2, 1);
  p.vp = 2;
  p.schedule = PipelineSchedule::Interleaved;
  return p;
}

ModelConfig tiny_of(int64_t layers) {
  ModelConfig m = tiny();
  m.layers = layers;
  return m;
}

const ClusterLimits node8{"dgx-h100", 8, 64};

void check(const ParallelConfig& p, const RunConfig& r = train_run(),
           const ModelConfig& m = tiny()) {
  check_parallel_config(p, m, r, node8);
}

}  // namespace

TEST_CASE("parallel: a valid strategy passes", "[parallel][errors]") {
  CHECK_NOTHROW(check(strategy(2, 2, 4)));
}

TEST_CASE("parallel error: a degree below 1", "[parallel][errors]") {
  ParallelConfig p = strategy(1, 1, 1);
  p.cp = 0;
  require_input_error([&] { check(p); }, {"--cp: must be at least 1, got 0"});
}

TEST_CASE("parallel error: ZeRO stage outside 0-3", "[parallel][errors]") {
  ParallelConfig p = strategy(1, 1, 2);
  p.zero = 4;
  require_input_error([&] { check(p); }, {"--zero: a ZeRO stage is 0, 1, 2 or 3, got 4"});
  p.zero = 3;
  CHECK_NOTHROW(check(p));
}

TEST_CASE("parallel error: degrees do not multiply to --gpus", "[parallel][errors]") {
  ParallelConfig p = strategy(2, 1, 2);
  p.gpus = 8;
  require_input_error([&] { check(p); },
                      {"--gpus: 8 GPUs, but --tp 2 x --pp 1 x --dp 2 x --cp 1 = 4"});
}

TEST_CASE("parallel error: --sp without tensor parallelism", "[parallel][errors]") {
  ParallelConfig p = strategy(1, 1, 2);
  p.sp = true;
  require_input_error([&] { check(p); }, {"--sp:", "needs --tp > 1"});
  CHECK_NOTHROW(check([] {
    auto q = strategy(2, 1, 1);
    q.sp = true;
    return q;
  }()));
}

TEST_CASE("parallel error: --vp without the interleaved schedule", "[parallel][errors]") {
  ParallelConfig p = strategy(1, 2, 1);
  p.vp = 2;
  p.global_batch = 4;
  require_input_error([&] { check(p); }, {"--vp: virtual stages (2) need --schedule interleaved",
                                          "got --schedule 1f1b"});
}

TEST_CASE("parallel error: interleaved without a pipeline", "[parallel][errors]") {
  ParallelConfig p = strategy(1, 1, 1);
  p.schedule = PipelineSchedule::Interleaved;
  require_input_error([&] { check(p); }, {"--schedule: interleaved needs a pipeline", "--pp 1"});
}

TEST_CASE("parallel error: TP not dividing the heads", "[parallel][errors]") {
  ModelConfig m = tiny();
  m.heads = 6;  // 6 % 4 != 0; kv_heads 2 divides 4
  require_input_error([&] { check(strategy(4, 1, 1), train_run(), m); },
                      {"--tp: 4 does not divide", "6 heads"});
}

TEST_CASE("parallel error: TP not dividing the KV heads (nor they it)", "[parallel][errors]") {
  ModelConfig m = tiny();
  m.heads = 12;
  m.kv_heads = 3;  // 3 < 4 and 4 % 3 != 0
  require_input_error([&] { check(strategy(4, 1, 1), train_run(), m); },
                      {"--tp: 4 does not divide", "3 KV heads"});
  // 2 KV heads under TP 4: each replicated over 2 ranks, as Megatron does.
  CHECK_NOTHROW(check(strategy(4, 1, 1)));
  CHECK(kv_heads_per_rank(tiny(), 4) == 1);
  CHECK(kv_heads_per_rank(tiny(), 2) == 1);
  CHECK(kv_heads_per_rank(tiny(), 1) == 2);
}

TEST_CASE("parallel error: PP not dividing the layers", "[parallel][errors]") {
  ModelConfig m = tiny();
  m.layers = 6;
  require_input_error([&] { check(strategy(1, 4, 1), train_run(), m); },
                      {"--pp:", "6 layers do not divide into 4 (stages)"});
  CHECK_NOTHROW(check(strategy(1, 3, 1), train_run(), m));
}

TEST_CASE("parallel error: PP x VP not dividing the layers", "[parallel][errors]") {
  ModelConfig m = tiny_of(6);
  ParallelConfig p = interleaved_2x2();
  require_input_error([&] { check(p, train_run(), m); },
                      {"--vp:", "6 layers do not divide into --pp 2 x --vp 2 = 4"});
  p.vp = 3;
  CHECK_NOTHROW(check(p, train_run(), m));
}

TEST_CASE("parallel: counting the embedding and the loss splits layers that do not divide",
          "[parallel][rule]") {
  ModelConfig m = tiny_of(6);
  ParallelConfig p = interleaved_2x2();
  // 6 layers over 4 chunks do not divide; 6 + 2 do (2 a chunk, 1 in the first and the last).
  require_input_error([&] { check(p, train_run(), m); },
                      {"--vp:", "do not divide into --pp 2 x --vp 2 = 4",
                       "--pipeline-split-counts embedding,loss"});
  p.split_counts_embedding = p.split_counts_loss = true;
  CHECK_NOTHROW(check(p, train_run(), m));
  CHECK(p.chunk_layers(6) == 2);
  p.split_counts_loss = false;  // the embedding alone: 7 layers + 1 over 4 chunks
  CHECK(p.chunk_layers(7) == 2);
  m.layers = 7;
  CHECK_NOTHROW(check(p, train_run(), m));
}

TEST_CASE("parallel: each model chunk's layer range", "[parallel][rule]") {
  ParallelConfig p = interleaved_2x2();  // 4 model chunks
  auto range = [&](int64_t layers, int64_t g) {
    ParallelConfig::LayerRange r = p.chunk_range(layers, g);
    return std::pair<int64_t, int64_t>{r.first, r.end};
  };
  CHECK(range(8, 0) == std::pair<int64_t, int64_t>{0, 2});
  CHECK(range(8, 3) == std::pair<int64_t, int64_t>{6, 8});
  // 6 layers with the embedding and the loss counted: 2 slots a chunk, the first and the last
  // chunks one layer short
  p.split_counts_embedding = p.split_counts_loss = true;
  CHECK(range(6, 0) == std::pair<int64_t, int64_t>{0, 1});
  CHECK(range(6, 1) == std::pair<int64_t, int64_t>{1, 3});
  CHECK(range(6, 2) == std::pair<int64_t, int64_t>{3, 5});
  CHECK(range(6, 3) == std::pair<int64_t, int64_t>{5, 6});
  int64_t held = 0;
  for (int64_t g = 0; g < 4; ++g) held += p.chunk_range(6, g).count();
  CHECK(held == 6);
}

TEST_CASE("parallel error: counted embedding and loss that still do not divide",
          "[parallel][errors]") {
  ParallelConfig p = interleaved_2x2();
  p.split_counts_embedding = p.split_counts_loss = true;
  require_input_error([&] { check(p, train_run(), tiny_of(8)); },
                      {"--pipeline-split-counts:",
                       "8 layers and 2 counted (embedding, loss) do "
                       "not divide into --pp 2 x --vp 2 = 4"});
}

TEST_CASE("parallel error: counted embedding without a pipeline", "[parallel][errors]") {
  ParallelConfig p = strategy(1, 1, 1);
  p.split_counts_embedding = true;
  require_input_error([&] { check(p); }, {"--pipeline-split-counts:", "needs --pp > 1"});
}

TEST_CASE("parallel error: EP on a dense model", "[parallel][errors]") {
  ParallelConfig p = strategy(1, 1, 2);
  p.ep = 2;
  require_input_error([&] { check(p); }, {"--ep:", "has no experts"});
}

TEST_CASE("parallel error: EP not dividing the experts", "[parallel][errors]") {
  ModelConfig m = tiny();
  m.moe = {6, 2, 128};
  ParallelConfig p = strategy(1, 1, 4);
  p.ep = 4;
  require_input_error([&] { check(p, train_run(), m); }, {"--ep: 4 does not divide", "6 experts"});
  p.ep = 2;
  CHECK_NOTHROW(check(p, train_run(), m));
}

TEST_CASE("parallel error: EP not dividing DP", "[parallel][errors]") {
  ModelConfig m = tiny();
  m.moe = {8, 2, 128};
  ParallelConfig p = strategy(1, 1, 2);
  p.ep = 4;
  require_input_error([&] { check(p, train_run(), m); }, {"--ep 4 must divide --dp 2"});
}

TEST_CASE("parallel error: CP in decode", "[parallel][errors]") {
  RunConfig r;
  r.phase = Phase::Decode;
  r.kv_len = 100;
  ParallelConfig p;
  p.cp = 2, p.gpus = 2;
  require_input_error([&] { check(p, r); }, {"--cp:", "decode has one new token"});
}

TEST_CASE("parallel error: CP not dividing the sequence into 2 cp chunks", "[parallel][errors]") {
  RunConfig r = train_run();
  r.seq = 100;  // 100 % 8 != 0
  ParallelConfig p = strategy(1, 1, 1);
  p.cp = 4, p.gpus = 4;
  require_input_error([&] { check(p, r); }, {"--cp:", "--seq 100 is not a multiple of 2 x 4"});
  r.seq = 96;
  CHECK_NOTHROW(check(p, r));
}

TEST_CASE("parallel error: SP tokens not dividing over TP", "[parallel][errors]") {
  RunConfig r = train_run();
  r.seq = 126;
  ParallelConfig p = strategy(4, 1, 1);
  p.sp = true;
  require_input_error([&] { check(p, r); }, {"--sp:", "126 tokens do not divide over --tp 4"});
}

TEST_CASE("parallel error: ZeRO in inference", "[parallel][errors]") {
  RunConfig r;
  r.phase = Phase::Prefill;
  r.seq = 128;
  ParallelConfig p = strategy(1, 1, 2);
  p.zero = 1;
  require_input_error([&] { check(p, r); }, {"--zero:", "inference has none"});
}

TEST_CASE("parallel error: a pipeline schedule in inference", "[parallel][errors]") {
  RunConfig r;
  r.phase = Phase::Prefill;
  r.seq = 128;
  ParallelConfig p = strategy(1, 2, 1);
  p.schedule = PipelineSchedule::GPipe;
  require_input_error([&] { check(p, r); }, {"--schedule:", "for training"});
}

TEST_CASE("parallel error: global batch not a multiple of microbatch x dp", "[parallel][errors]") {
  ParallelConfig p = strategy(1, 1, 4);
  p.microbatch = 2;
  p.global_batch = 12;  // 12 % 8
  require_input_error([&] { check(p); },
                      {"--global-batch: 12 is not a multiple of --microbatch 2 x --dp 4 = 8"});
  p.global_batch = 16;
  CHECK_NOTHROW(check(p));
}

TEST_CASE("parallel error: interleaved micro-batches not in groups of pp", "[parallel][errors]") {
  ParallelConfig p = strategy(1, 2, 1);
  p.schedule = PipelineSchedule::Interleaved;
  p.global_batch = 3;
  require_input_error([&] { check(p); },
                      {"--global-batch:", "groups of --pp 2", "3 micro-batches"});
}

TEST_CASE("parallel error: more GPUs than the cluster has", "[parallel][errors]") {
  ParallelConfig p = strategy(1, 1, 128);
  require_input_error([&] { check(p); }, {"--gpus: 128 GPUs, but dgx-h100 has at most 64"});
  CHECK_NOTHROW(check(strategy(1, 1, 64)));
}

TEST_CASE("parallel error: a TP group larger than a node", "[parallel][errors]") {
  ModelConfig m = tiny();
  m.heads = 16, m.kv_heads = 16;
  require_input_error([&] { check(strategy(16, 1, 1), train_run(), m); },
                      {"--tp: a TP group of 16 is larger than a dgx-h100 node (8 GPUs)"});
  CHECK_NOTHROW(check(strategy(8, 1, 1), train_run(), m));
}

TEST_CASE("parallel: the vocabulary padded to 128 x tp", "[parallel]") {
  CHECK(padded_vocab(tiny(), 1) == 1024);
  CHECK(padded_vocab(tiny(), 8) == 1024);
  ModelConfig m = tiny();
  m.vocab = 50257;
  CHECK(padded_vocab(m, 8) == 51200);  // GPT-3 under TP 8, as Megatron pads it
}
