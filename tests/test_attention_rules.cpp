// Attention rules: causal imbalance, decode bound by the KV cache, GQA, split-KV, and L2 reuse
// of K/V across query blocks on both sides of the L2 capacity.
#include "model/kernel_terms.h"
#include "test_helpers.h"

using namespace ridgeline;
using test::attention;

TEST_CASE("attention: causal halves the time only when there are many items", "[attention][rule]") {
  const GpuSpec& g = test::h100();
  // 8 heads x 8 query blocks = 64 items < 132 SMs: the heaviest item (full row) sets the time.
  double few_causal = predict_op(attention(1, 8, 8, 1024, 1024, true), g).time_us;
  double few_full = predict_op(attention(1, 8, 8, 1024, 1024, false), g).time_us;
  CHECK(few_causal / few_full > 0.85);
  // 8 x 32 heads x 64 blocks: many waves, so the work halves and so does the time.
  double many_causal = predict_op(attention(8, 32, 8, 8192, 8192, true), g).time_us;
  double many_full = predict_op(attention(8, 32, 8, 8192, 8192, false), g).time_us;
  CHECK(many_causal / many_full == Approx(0.5).epsilon(0.12));
}

TEST_CASE("attention: long prefill is compute-bound", "[attention][rule]") {
  OpCost c = predict_op(attention(4, 32, 8, 4096, 4096, true), test::h100());
  CHECK(c.bottleneck == Bottleneck::Compute);
}

TEST_CASE("attention: decode is bound by reading the KV cache, once per KV head",
          "[attention][rule]") {
  const GpuSpec& g = test::h100();
  OpCost gqa = predict_op(attention(16, 32, 8, 1, 8192, false), g);
  OpCost mha = predict_op(attention(16, 32, 32, 1, 8192, false), g);
  CHECK(gqa.bottleneck == Bottleneck::Hbm);
  double kv = 2.0 * 16 * 8 * 8192 * 128 * 2;
  CHECK(gqa.bytes.hbm == Approx(kv).epsilon(0.05));
  CHECK(mha.time_us / gqa.time_us == Approx(4.0).epsilon(0.15));
}

TEST_CASE("attention: decode of one sequence splits the keys", "[attention][rule]") {
  OpCost c = predict_op(attention(1, 32, 8, 1, 32768, false), test::h100());
  CHECK(c.detail.split > 1);
  CHECK(c.detail.active_sms > 64);
  OpCost full = predict_op(attention(64, 32, 8, 1, 32768, false), test::h100());
  CHECK(full.detail.split == 1);
}

TEST_CASE("attention: decode splits the keys only for few (batch, head) pairs and long caches",
          "[attention][rule]") {
  const GpuSpec& g = test::h100();
  const auto& p = g.model.attention;
  // 32 query heads: batch 8 is 256 pairs, within 2 waves of 132 SMs; batch 16 is 512.
  REQUIRE(p.decode_split_max_waves.value == 2);
  CHECK(predict_op(attention(8, 32, 8, 1, 4096, false), g).detail.split > 1);
  CHECK(predict_op(attention(16, 32, 8, 1, 4096, false), g).detail.split == 1);
  // Both sides of the shortest cache that is split.
  int64_t min_kv = (int64_t)p.decode_split_min_kv_len.value;
  CHECK(predict_op(attention(1, 32, 8, 1, min_kv, false), g).detail.split > 1);
  CHECK(predict_op(attention(1, 32, 8, 1, min_kv - 1, false), g).detail.split == 1);
  // A split runs a second kernel that merges the partials.
  CHECK(predict_op(attention(1, 32, 8, 1, min_kv, false), g).detail.kernels == 2);
  CHECK(predict_op(attention(1, 32, 8, 1, min_kv - 1, false), g).detail.kernels == 1);
}

TEST_CASE("attention: the kernel's setup comes before its first key block, unoverlapped",
          "[attention][rule]") {
  GpuSpec g = test::h100();
  OpCost base = predict_op(attention(1, 32, 8, 1, 512, false), g);
  g.model.attention.prologue_cycles.value += 1980;  // about a microsecond more
  OpCost more = predict_op(attention(1, 32, 8, 1, 512, false), g);
  double clock_MHz = g.compute.tensor_clock_MHz.value;
  CHECK(more.time_us - base.time_us == Approx(1980 / clock_MHz).epsilon(0.2));
  CHECK(more.overhead_us - base.overhead_us == Approx(more.time_us - base.time_us));
}

TEST_CASE("attention: only the decode kernel splits the keys, not chunked prefill",
          "[attention][rule]") {
  const GpuSpec& g = test::h100();
  // One query per sequence runs the decode kernel: 8 packed KV-head items, keys split.
  CHECK(predict_op(attention(1, 32, 8, 1, 4096, false), g).detail.split > 1);
  // Two queries already run the prefill kernel: 32 items on 132 SMs, each walks all 4096 keys
  // with a full query tile (measured on H200: 8 to 128 queries take the same ~53 us).
  OpCost two = predict_op(attention(1, 32, 8, 2, 4096, false), g);
  OpCost chunk = predict_op(attention(1, 32, 8, 128, 4096, false), g);
  CHECK(two.detail.split == 1);
  CHECK(chunk.detail.split == 1);
  CHECK(two.time_us == Approx(chunk.time_us).epsilon(0.01));
  // Fewer items than SMs: batch 1 takes as long as batch 4 (each item has an SM to itself).
  OpCost chunk4 = predict_op(attention(4, 32, 8, 128, 4096, false), g);
  CHECK(chunk.time_us / chunk4.time_us > 0.8);
}

TEST_CASE("attention: K/V re-reads hit L2 while a head's KV fits, and miss past it",
          "[attention][rule][l2]") {
  const GpuSpec& g = test::h100();
  OpCost fits = predict_op(attention(1, 32, 32, 16384, 16384, false), g);  // 8 MB of KV per head
  CHECK(fits.detail.l2_hit_fraction == 1.0);
  double unique = 4.0 * 32 * 16384 * 128 * 2;
  CHECK(fits.bytes.hbm == Approx(unique).epsilon(0.01));
  OpCost spills = predict_op(attention(1, 32, 32, 262144, 262144, false), g);  // 134 MB per head
  CHECK(spills.detail.l2_hit_fraction == 0.0);
  CHECK(spills.bytes.hbm > 10 * 4.0 * 32 * 262144 * 128 * 2);
}

TEST_CASE("attention: the backward pass costs 2.5x the MMAs and its helper kernels",
          "[attention][rule]") {
  const GpuSpec& g = test::h100();
  Op fwd = attention(1, 32, 8, 2048, 2048, true);
  Op bwd = fwd;
  std::get<AttentionOp>(bwd.shape).backward = true;
  OpCost f = predict_op(fwd, g), b = predict_op(bwd, g);
  CHECK(b.matrix_flops == Approx(2.5 * f.matrix_flops));
  CHECK(b.detail.kernels == 5);  // dot(dO, O), main, dQ conversion, dK and dV reductions (GQA)
  CHECK(b.time_us > 2.5 * f.time_us);
  Op mha = attention(1, 32, 32, 2048, 2048, true);
  std::get<AttentionOp>(mha.shape).backward = true;
  CHECK(predict_op(mha, g).detail.kernels == 3);
}

TEST_CASE("attention: few busy SMs compute faster (clock boost below the power limit)",
          "[attention][rule][power]") {
  GpuSpec g = load_gpu("h100-sxm", {"model.power.few_sm_speedup=1.2"});
  double sms = g.compute.sm_count.value;
  // Both sides of each limit: full speed-up at or below half the SMs, none with all busy.
  CHECK(clock_boost(g, 0.5 * sms) == Approx(1.2));
  CHECK(clock_boost(g, 0.25 * sms) == Approx(1.2));
  CHECK(clock_boost(g, 0.75 * sms) == Approx(1.1));
  CHECK(clock_boost(g, sms) == Approx(1.0));
  GpuSpec none = load_gpu("h100-sxm", {"model.power.few_sm_speedup=1"});
  // 32 items on 132 SMs: compute 1.2x faster; 8 x 32 x 8 items fill every SM: unchanged.
  OpCost few = predict_op(attention(1, 32, 8, 128, 4096, false), g);
  OpCost few0 = predict_op(attention(1, 32, 8, 128, 4096, false), none);
  CHECK(few0.compute_us / few.compute_us == Approx(1.2));
  OpCost full = predict_op(attention(8, 32, 8, 2048, 2048, false), g);
  OpCost full0 = predict_op(attention(8, 32, 8, 2048, 2048, false), none);
  CHECK(full0.compute_us == Approx(full.compute_us));
}
