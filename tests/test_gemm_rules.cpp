// GEMM rules of the single-kernel model, each checked on both sides of its limit: the ridge
// point, the wave boundary, tile quantization, alignment, split-K, skinny (weight-bound) shapes,
// and the small-kernel floor.
#include "hardware/derived.h"
#include "model/kernel_terms.h"
#include "test_helpers.h"
#include "workloads/op_math.h"

using namespace ridgeline;
using test::gemm;

namespace {

// An H100 whose library has exactly one tile shape and no split-K, to isolate quantization.
GpuSpec one_tile_h100() {
  GpuSpec g = test::h100();
  g.model.gemm.tiles = {{128, 256, 0.8}};
  g.model.gemm.max_split_k.value = 1;
  return g;
}

}  // namespace

TEST_CASE("gemm: below the ridge point it is memory-bound, above it compute-bound",
          "[gemm][rule]") {
  const GpuSpec& g = test::h100();
  int first_compute = 0;
  bool was_memory = false;
  for (int m = 16; m <= 4096; m += 16) {
    OpCost c = predict_op(gemm(m, 16384, 16384), g);
    if (c.bottleneck == Bottleneck::Hbm) was_memory = true;
    if (c.bottleneck == Bottleneck::Compute) {
      first_compute = m;
      break;
    }
  }
  REQUIRE(was_memory);
  REQUIRE(first_compute > 16);
  // Just below: bound by memory (HBM, or L2 where tiles re-read operands), not by compute.
  CHECK(predict_op(gemm(first_compute - 16, 16384, 16384), g).bottleneck != Bottleneck::Compute);
  CHECK(predict_op(gemm(16, 16384, 16384), g).bottleneck == Bottleneck::Hbm);
  // The flip happens near the ridge of the effective rates (tile efficiency, achievable HBM).
  OpWork w = op_work(gemm(first_compute, 16384, 16384));
  double intensity = w.matrix_flops / w.unique_bytes();
  double ridge =
      peak_flops_per_s(g, MathUnit::TensorBf16) * 0.83 / achievable_hbm_bytes_per_s(g, 132);
  CHECK(intensity == Approx(ridge).epsilon(0.35));
}

TEST_CASE("gemm: the plain roofline is max(FLOPs/peak, bytes/bandwidth)", "[gemm][rule]") {
  const GpuSpec& g = test::h100();
  Op op = gemm(4096, 4096, 4096);
  double flops_s = 2.0 * 4096 * 4096 * 4096 / 989.4e12;
  CHECK(plain_roofline_us(op, g) == Approx(flops_s * 1e6).epsilon(1e-3));
  Op skinny = gemm(1, 4096, 4096);
  double bytes = (4096.0 * 4096 + 4096) * 2 + 4096 * 2;
  CHECK(plain_roofline_us(skinny, g) == Approx(bytes / 3350e9 * 1e6).epsilon(1e-3));
}

TEST_CASE("gemm: one tile past a full wave costs a second wave", "[gemm][rule][waves]") {
  GpuSpec g = one_tile_h100();
  OpCost full = predict_op(gemm(128 * 12, 256 * 11, 8192), g);  // 132 tiles: 1 wave
  OpCost over = predict_op(gemm(128 * 7, 256 * 19, 8192), g);   // 133 tiles: 2 waves
  CHECK(full.detail.waves == 1);
  CHECK(over.detail.waves == 2);
  CHECK(over.time_us / full.time_us == Approx(2.0).epsilon(0.1));
}

TEST_CASE("gemm: a dimension just past a tile multiple wastes a tile", "[gemm][rule][tiles]") {
  GpuSpec g = one_tile_h100();
  OpCost exact = predict_op(gemm(128 * 12, 2816, 8192), g);  // 12 x 11 tiles
  OpCost past = predict_op(gemm(128 * 12, 2824, 8192), g);   // 12 x 12 tiles for 0.3% more work
  CHECK(exact.detail.alignment_bytes == 16);
  CHECK(past.detail.alignment_bytes == 16);
  CHECK(past.detail.wave_efficiency < 0.6);
  CHECK(past.time_us > 1.8 * exact.time_us);
}

TEST_CASE("gemm: the library picks the tile that avoids a bad wave", "[gemm][rule][tiles]") {
  const GpuSpec& g = test::h100();
  OpCost c = predict_op(gemm(128 * 12, 2824, 8192), g);
  OpCost only = predict_op(gemm(128 * 12, 2824, 8192), one_tile_h100());
  CHECK(c.time_us < only.time_us);
}

TEST_CASE("gemm: rows not 16-byte aligned lose the fast path, in steps",
          "[gemm][rule][alignment]") {
  const GpuSpec& g = test::h100();
  auto t = [&](int64_t n) { return predict_op(gemm(4096, n, 4096), g); };
  CHECK(t(4104).detail.alignment_bytes == 16);
  CHECK(t(4100).detail.alignment_bytes == 8);
  CHECK(t(4098).detail.alignment_bytes == 4);
  CHECK(t(4097).detail.alignment_bytes == 2);
  CHECK(t(4104).time_us < t(4100).time_us);
  CHECK(t(4100).time_us <= t(4098).time_us);  // measured on H100: the same cutlass_80 kernel
  CHECK(t(4098).time_us < t(4097).time_us);
  // ARCHITECTURE.md: 4096x4097x4096 runs at about a sixth of the speed of 4096^3.
  CHECK(t(4097).time_us / t(4096).time_us == Approx(6.0).epsilon(0.25));
  CHECK(predict_op(gemm(4096, 4096, 4097), g).detail.alignment_bytes == 2);  // K: A and B rows
  CHECK(predict_op(gemm(4096, 4097, 4096, DType::Fp32), g).detail.alignment_bytes == 4);
}

TEST_CASE("gemm: skinny shapes are bound by reading the weights", "[gemm][rule][skinny]") {
  const GpuSpec& g = test::h100();
  OpCost m1 = predict_op(gemm(1, 14336, 4096), g);
  OpCost m16 = predict_op(gemm(16, 14336, 4096), g);
  CHECK(m1.bottleneck == Bottleneck::Hbm);
  CHECK(m16.bottleneck == Bottleneck::Hbm);
  CHECK(m16.time_us / m1.time_us < 1.1);
  double weights = 14336.0 * 4096 * 2;
  double floor_us =
      weights / achievable_hbm_bytes_per_s(g, 132, g.model.gemm.hbm_efficiency.value) * 1e6;
  CHECK(m1.time_us > floor_us);
  CHECK(m1.time_us < floor_us * 1.1 + m1.overhead_us);
}

TEST_CASE("gemm: split-K fills idle SMs when K is long", "[gemm][rule][splitk]") {
  GpuSpec no_split = test::h100();
  no_split.model.gemm.max_split_k.value = 1;
  OpCost split = predict_op(gemm(256, 256, 65536), test::h100());
  OpCost whole = predict_op(gemm(256, 256, 65536), no_split);
  CHECK(split.detail.split > 1);
  CHECK(whole.detail.split == 1);
  CHECK(split.time_us < 0.5 * whole.time_us);
  // Short K: no split even with few tiles.
  CHECK(predict_op(gemm(256, 256, 512), test::h100()).detail.split == 1);
}

TEST_CASE("gemm: a tiny GEMM costs the kernel floor, not its FLOPs", "[gemm][rule][latency]") {
  const GpuSpec& g = test::h100();
  OpCost tiny = predict_op(gemm(64, 64, 64), g);
  OpCost twice = predict_op(gemm(64, 128, 64), g);
  CHECK(tiny.bottleneck == Bottleneck::Latency);
  CHECK(twice.time_us / tiny.time_us < 1.1);
  CHECK(tiny.time_us > tiny.roofline_us * 100);
  OpCost big = predict_op(gemm(8192, 8192, 8192), g);
  CHECK(big.bottleneck == Bottleneck::Compute);
}

TEST_CASE("gemm: precision sets the rate", "[gemm][rule]") {
  const GpuSpec& g = test::h100();
  double bf16 = predict_op(gemm(8192, 8192, 8192, DType::Bf16), g).time_us;
  double fp8 = predict_op(gemm(8192, 8192, 8192, DType::Fp8), g).time_us;
  double tf32 = predict_op(gemm(8192, 8192, 8192, DType::Tf32), g).time_us;
  double fp32 = predict_op(gemm(8192, 8192, 8192, DType::Fp32), g).time_us;
  CHECK(bf16 / fp8 == Approx(2.0 * g.model.gemm.fp8_efficiency.value).epsilon(0.1));
  CHECK(tf32 / bf16 == Approx(2.0).epsilon(0.1));
  CHECK(fp32 / bf16 > 10);
}

TEST_CASE("gemm: a batch of small GEMMs shares the GPU", "[gemm][rule]") {
  const GpuSpec& g = test::h100();
  double one = predict_op(gemm(512, 512, 512), g).time_us;
  double batch = predict_op(gemm(512, 512, 512, DType::Bf16, 64), g).time_us;
  CHECK(batch < 64 * one / 4);
  CHECK(batch > one);
}

TEST_CASE("gemm: bytes by level", "[gemm][rule]") {
  OpCost c = predict_op(gemm(4096, 4096, 4096), test::h100());
  double unique = 3.0 * 4096 * 4096 * 2;
  CHECK(c.bytes.hbm == Approx(unique));
  CHECK(c.bytes.l2 > c.bytes.hbm);
  CHECK(c.bytes.smem > c.bytes.l2);
  CHECK(c.flops() == 2.0 * 4096 * 4096 * 4096);
}

TEST_CASE("gemm: a compute term of padded tiles is labelled latency, real arithmetic compute",
          "[gemm]") {
  Op skinny = test::gemm(1, 1024, 4096);
  std::get<GemmOp>(skinny.shape).weight_bits = 4;  // weights so small the tile's cycles show
  OpCost c = predict_op(skinny, test::h100());
  CHECK(c.compute_us >= c.hbm_us);
  CHECK(c.bottleneck == Bottleneck::Latency);
  CHECK(predict_op(test::gemm(4096, 4096, 4096), test::h100()).bottleneck == Bottleneck::Compute);
}
