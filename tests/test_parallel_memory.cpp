// Memory per GPU under a parallel strategy (model/parallel_memory.h) against hand-computed cases:
// each ZeRO stage, each recompute setting, the micro-batches a pipeline holds in flight, and the
// message naming the smallest change that fits.
#include "model/parallel_memory.h"
#include "test_helpers.h"

using namespace ridgeline;

namespace {

// tiny-llama: h 256, I 512, 2 layers, 4 heads, 2 KV heads, head_dim 64, vocab 1000 (untied).
const ModelConfig& tiny() {
  static const ModelConfig m = load_model(RIDGELINE_SOURCE_DIR "/examples/models/tiny-llama.json");
  return m;
}

RunConfig train_run() {
  RunConfig r;
  r.phase = Phase::Train;
  r.seq = 128;
  r.batch = 1;
  r.optimizer = Optimizer::AdamW;
  return r;
}

// TP 2 x DP 4 = 8 GPUs, micro-batch 1, global batch 8 (2 micro-batches).
ParallelConfig tp2dp4() {
  ParallelConfig p;
  p.gpus = 8, p.tp = 2, p.dp = 4, p.microbatch = 1, p.global_batch = 8;
  return p;
}

const ClusterLimits node8{"dgx-h100", 8, 64};
constexpr double kBig = 1e15;

ParallelMemory memory(const ParallelConfig& p, double capacity = kBig) {
  return parallel_memory(tiny(), train_run(), p, capacity, 0, node8);
}

// Parameters on one rank of TP 2: a layer has q, k, v, o 196608 + MLP 393216 + norms 512 =
// 590336; TP 2 splits all but the K/V weights 2*256*128 = 65536, of which a rank holds one KV head
// each (32768): (590336 - 65536)/2 + 32768 = 295168 per layer, 590336 for 2. The vocabulary pads
// to 1024: embedding and LM head 1024*256/2 = 131072 each, and the final norm 256.
constexpr double kRankParams = 590336 + 2 * 131072 + 256;  // 852736

}  // namespace

TEST_CASE("parallel memory: ZeRO 0 keeps 16 bytes per parameter", "[parallel][memory]") {
  ParallelMemory f = memory(tp2dp4());
  CHECK(f.weights_bytes == 2 * kRankParams);
  CHECK(f.gradient_bytes == 2 * kRankParams);
  CHECK(f.optimizer_bytes == 12 * kRankParams);
}

TEST_CASE("parallel memory: ZeRO 1 shards the optimizer state over dp", "[parallel][memory]") {
  ParallelConfig p = tp2dp4();
  p.zero = 1;
  ParallelMemory f = memory(p);
  CHECK(f.weights_bytes == 2 * kRankParams);
  CHECK(f.gradient_bytes == 2 * kRankParams);
  CHECK(f.optimizer_bytes == 12 * kRankParams / 4);
}

TEST_CASE("parallel memory: ZeRO 2 shards the gradients too", "[parallel][memory]") {
  ParallelConfig p = tp2dp4();
  p.zero = 2;
  ParallelMemory f = memory(p);
  CHECK(f.weights_bytes == 2 * kRankParams);
  CHECK(f.gradient_bytes == 2 * kRankParams / 4);
  CHECK(f.optimizer_bytes == 12 * kRankParams / 4);
}

TEST_CASE("parallel memory: ZeRO 3 shards the weights too", "[parallel][memory]") {
  ParallelConfig p = tp2dp4();
  p.zero = 3;
  ParallelMemory f = memory(p);
  CHECK(f.weights_bytes == 2 * kRankParams / 4);
  CHECK(f.gradient_bytes == 2 * kRankParams / 4);
  CHECK(f.optimizer_bytes == 12 * kRankParams / 4);
  // Buffers: NCCL for the TP and DP groups, and two layers' gathered weights (2 x 295168 x 2 B)
  // instead of the gradient buckets.
  CHECK(f.comm_buffer_bytes == 2 * kNcclBufferBytes + 2 * 295168 * 2);
}

// Activations, T = 128 tokens a rank. Per token, bf16: the norms' inputs and outputs 4*256 =
// 1024 (replicated over TP 2), q, k, v (2 + 1 + 1) * 64 = 256 and the attention output 2*64 =
// 128, the MLP's gate, up, silu and product 4 * 512/2 = 1024: 2432 elements, 4864 B, 622592 B a
// layer, + the softmax statistics 128 * 2 heads * 4 B = 1024. 1F1B with one stage keeps one
// micro-batch; the last stage adds the fp32 logits 128 * 1024/2 * 4 = 262144.
TEST_CASE("parallel memory: activations without recomputation", "[parallel][memory]") {
  ParallelMemory f = memory(tp2dp4());
  CHECK(f.in_flight == 1);
  CHECK(f.activation_bytes == 2 * (622592 + 1024) + 262144);
  CHECK(f.comm_buffer_bytes == 2 * kNcclBufferBytes + 2 * kGradBucketBytes);
}

TEST_CASE("parallel memory: selective recomputation drops the softmax statistics",
          "[parallel][memory]") {
  ParallelConfig p = tp2dp4();
  p.recompute = Recompute::Selective;
  CHECK(memory(p).activation_bytes == 2 * 622592 + 262144);
}

TEST_CASE("parallel memory: full recomputation keeps each layer's input", "[parallel][memory]") {
  ParallelConfig p = tp2dp4();
  p.recompute = Recompute::Full;
  // 128 x 256 x 2 B a layer, + one layer recomputed in full, + the logits.
  CHECK(memory(p).activation_bytes == 2 * 65536 + (622592 + 1024) + 262144);
}

TEST_CASE("parallel memory: sequence parallelism splits the replicated activations",
          "[parallel][memory]") {
  ParallelConfig p = tp2dp4();
  p.sp = true;
  // The norms' 1024 elements a token become 512: 1920 elements, 3840 B, 491520 B a layer.
  CHECK(memory(p).activation_bytes == 2 * (491520 + 1024) + 262144);
  p.recompute = Recompute::Full;  // each layer's input / 2 as well
  CHECK(memory(p).activation_bytes == 2 * 32768 + (491520 + 1024) + 262144);
}

TEST_CASE("parallel memory: micro-batches in flight on the first stage", "[parallel][memory]") {
  ModelConfig m = tiny();
  m.layers = 8;
  ParallelConfig p;
  p.gpus = 4, p.pp = 4, p.microbatch = 1, p.global_batch = 8;  // m = 8
  RunConfig r = train_run();
  auto first = [&](const ParallelConfig& q) { return stage_memory(m, r, q, 0, kBig, 0); };
  CHECK(first(p).in_flight == 4);  // 1F1B: min(m, p - 0)
  CHECK(stage_memory(m, r, p, 3, kBig, 0).in_flight == 1);
  p.global_batch = 2;
  CHECK(first(p).in_flight == 2);  // fewer micro-batches than stages
  p.global_batch = 8;
  p.schedule = PipelineSchedule::GPipe;
  CHECK(first(p).in_flight == 8);  // GPipe keeps them all
  p.schedule = PipelineSchedule::Interleaved;
  p.vp = 2;
  // 2 (p - 1) + (v - 1) p + 1 = 6 + 4 + 1 = 11 chunks of one layer = p + (p - 1)/v = 5.5 stages.
  CHECK(first(p).in_flight == 11);
  double layer = layer_activation_bytes(m, r, p);
  CHECK(first(p).activation_bytes == 11 * 1 * layer);  // chunk = 8 / (4 * 2) layers
}

TEST_CASE("parallel memory: a strategy that does not fit names the smallest change that does",
          "[parallel][memory]") {
  ParallelConfig p = tp2dp4();
  ParallelConfig z1 = p;
  z1.zero = 1;
  double need0 = memory(p).total(), need1 = memory(z1).total();
  REQUIRE(need1 < need0);
  CHECK(memory(p, need0).fits());
  ParallelMemory f = memory(p, (need0 + need1) / 2);  // ZeRO 0 is just too big, ZeRO 1 fits
  CHECK_FALSE(f.fits());
  INFO(f.reason);
  CHECK(f.reason.find("stage 0 needs") == 0);
  CHECK(f.reason.find("try --zero 1 (") != std::string::npos);
  ParallelMemory none = memory(p, 1e6);
  CHECK(none.reason.find("use more GPUs") != std::string::npos);
}
