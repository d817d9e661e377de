// Rules of ATen's forward norms and softmax (model/aten_row_cost.cpp): a block's walk of a row,
// linear in its columns and slower from HBM than from L2, longer once SMs hold several blocks;
// the busiest SM's walks over its resident blocks; the HBM passes of each kernel; softmax's
// four kernels on both sides of each width limit.
#include "test_helpers.h"

#include "hardware/derived.h"
#include "model/kernel_terms.h"
#include "workloads/op_math.h"
#include "workloads/runtime_profile.h"

using namespace ridgeline;

namespace {

Op aten(RowOpKind kind, int64_t rows, int64_t cols, DType d = DType::Bf16, bool warm = false) {
  return Op{"row", RowOp{kind, rows, cols, d, RowImpl::PyTorch, default_runtime().launch.rows},
            warm};
}

double above_overhead(const OpCost& c) {
  return c.time_us - c.overhead_us;
}

}  // namespace

TEST_CASE("aten rows: one block's walk is linear in columns, faster from L2",
          "[memory][rule][aten]") {
  const GpuSpec& g = test::h100();
  for (RowOpKind k : {RowOpKind::RmsNorm, RowOpKind::LayerNorm}) {
    OpCost a = predict_op(aten(k, 1, 4096), g), b = predict_op(aten(k, 1, 8192), g),
           c = predict_op(aten(k, 1, 12288), g);
    CHECK(a.bottleneck == Bottleneck::Latency);
    CHECK(above_overhead(c) - above_overhead(b) ==
          Approx(above_overhead(b) - above_overhead(a)).epsilon(1e-9));
    // The same row left in L2 by the previous kernel: shorter loads, no HBM traffic.
    OpCost warm = predict_op(aten(k, 1, 8192, DType::Bf16, true), g);
    CHECK(warm.bytes.hbm == 0);
    CHECK(above_overhead(warm) < above_overhead(b));
  }
  // layer_norm's Welford walk is slower than rms_norm's.
  CHECK(predict_op(aten(RowOpKind::LayerNorm, 1, 8192), g).time_us >
        predict_op(aten(RowOpKind::RmsNorm, 1, 8192), g).time_us);
}

TEST_CASE("aten rows: a walk is longer once an SM holds a second block", "[memory][rule][aten]") {
  const GpuSpec& g = test::h100();
  double sms = sm_count(g);
  OpCost alone = predict_op(aten(RowOpKind::LayerNorm, (int64_t)sms, 16384), g);
  OpCost shared = predict_op(aten(RowOpKind::LayerNorm, (int64_t)sms + 1, 16384), g);
  CHECK(alone.bottleneck == Bottleneck::Latency);
  CHECK(shared.bottleneck == Bottleneck::Latency);
  CHECK(above_overhead(shared) / above_overhead(alone) == Approx(1.0853));
}

TEST_CASE("aten rows: many short rows are the busiest SM's walks over its resident blocks",
          "[memory][rule][aten]") {
  const GpuSpec& g = test::h100();
  Op op = aten(RowOpKind::RmsNorm, (int64_t)sm_count(g) * 1024, 768);
  auto& row = std::get<RowOp>(op.shape);
  row.launch.blocks_per_sm = 2;
  OpCost two = predict_op(op, g);
  row.launch.blocks_per_sm = 1;
  OpCost one = predict_op(op, g);
  CHECK(above_overhead(one) == Approx(2 * above_overhead(two)));
  row.launch.blocks_per_sm = 0;  // built without its launch: a bug
  CHECK_THROWS_AS(predict_op(op, g), InternalError);
}

TEST_CASE("aten rows: norms stream their passes over HBM", "[memory][rule][aten]") {
  const GpuSpec& g = test::h100();
  double n = 65536.0 * 8192 * 2;
  OpCost rms = predict_op(aten(RowOpKind::RmsNorm, 65536, 8192), g);
  OpCost ln = predict_op(aten(RowOpKind::LayerNorm, 65536, 8192), g);
  // read, write and the fitted re-read share: rms_norm 2.7746 passes, layer_norm 3.5527
  CHECK(rms.bytes.hbm == Approx(2.7746 * n));
  CHECK(ln.bytes.hbm == Approx(3.5527 * n));
  CHECK(rms.bottleneck == Bottleneck::Hbm);
  CHECK(rms.time_us == Approx(rms.overhead_us + rms.hbm_us));
}

TEST_CASE("aten rows: softmax picks its kernel by row width", "[memory][rule][aten]") {
  const GpuSpec& g = test::h100();
  auto one_row = [&](int64_t cols, DType d) {
    return above_overhead(predict_op(aten(RowOpKind::Softmax, 1, cols, d), g));
  };
  auto many_rows = [&](int64_t cols, DType d) {
    return predict_op(aten(RowOpKind::Softmax, 8192, cols, d), g).time_us;
  };
  // softmax_warp_forward: up to 1024 columns a lighter warp kernel than the one to 2048
  CHECK(one_row(1025, DType::Bf16) - one_row(1024, DType::Bf16) > 1.0);
  // 2048 columns: the warp kernel (bf16, and fp32 at exactly 8 KiB); 2049: the register kernel
  CHECK(one_row(2049, DType::Bf16) < one_row(2048, DType::Bf16));
  CHECK(one_row(2048, DType::Fp32) == Approx(one_row(2048, DType::Bf16)));
  // 8192 columns: the register kernel; 8193: the shared-memory kernel's faster element rate
  CHECK(many_rows(8193, DType::Bf16) < 0.7 * many_rows(8192, DType::Bf16));
  // past 48 KiB a row (bf16: 24576 columns exactly fit): the slower multi-pass kernel
  CHECK(many_rows(24577, DType::Bf16) > 1.2 * many_rows(24576, DType::Bf16));
}

TEST_CASE("aten rows: the multi-pass softmax re-reads rows from HBM once those in flight spill L2",
          "[memory][rule][aten]") {
  const GpuSpec& g = test::h100();
  // 128256 fp32 columns: 2 x 132 blocks in flight hold 135 MB, past L2: max, sum, output passes
  // all from HBM, then the write.
  double vocab = 2048.0 * 128256 * 4;
  OpCost spill = predict_op(aten(RowOpKind::Softmax, 2048, 128256, DType::Fp32), g);
  CHECK(spill.bytes.hbm == Approx(1.0362 * 4 * vocab));
  CHECK(spill.bottleneck == Bottleneck::Hbm);
  // 16384 fp32 columns: 17 MB in flight stay in L2, so the re-reads hit: a read and a write.
  double wide = 65536.0 * 16384 * 4;
  OpCost fits = predict_op(aten(RowOpKind::Softmax, 65536, 16384, DType::Fp32), g);
  CHECK(fits.bytes.hbm == Approx(1.0362 * 2 * wide));
}

TEST_CASE("aten rows: softmax's element rate bounds many rows", "[memory][rule][aten]") {
  const GpuSpec& g = test::h100();
  // the register kernel over 65536 rows of 4096 bf16: 5.9984 elements per clock per SM, and
  // 670.91 cycles a row for each of its 4 values a thread
  OpCost s = predict_op(aten(RowOpKind::Softmax, 65536, 4096), g);
  double rate_us =
      65536.0 * (4096 / 5.9984 + 4 * 670.91) / (sm_count(g) * g.compute.max_clock_MHz.value);
  CHECK(s.bottleneck == Bottleneck::Compute);
  CHECK(s.compute_us == Approx(rate_us));
}

TEST_CASE("aten rows: the register softmax pays per value a thread holds, more from 7",
          "[memory][rule][aten]") {
  const GpuSpec& g = test::h100();
  auto us = [&](int64_t cols) {
    return predict_op(aten(RowOpKind::Softmax, 131072, cols), g).compute_us;
  };
  // ceil(cols / 1024) values: 2049 and 3072 columns hold 3, 3073 holds 4 (a step, not a slope)
  double per_col = 131072.0 / 5.9984 / (sm_count(g) * g.compute.max_clock_MHz.value);
  double per_value = 131072.0 * 670.91 / (sm_count(g) * g.compute.max_clock_MHz.value);
  CHECK(us(3072) - us(2049) == Approx(1023 * per_col));
  CHECK(us(3073) - us(3072) == Approx(per_value + per_col));
  // 6 values (6144 columns) keep the blocks an SM holds; 7 (6145 on) lose some: x1.2366
  CHECK(us(6144) == Approx(131072.0 * (6144 / 5.9984 + 6 * 670.91) /
                           (sm_count(g) * g.compute.max_clock_MHz.value)));
  CHECK(us(6145) == Approx(1.2366 * 131072.0 * (6145 / 5.9984 + 7 * 670.91) /
                           (sm_count(g) * g.compute.max_clock_MHz.value)));
}

TEST_CASE("aten rows: softmax pays for each masked value, the triton kernel does not",
          "[memory][rule][aten]") {
  const GpuSpec& g = test::h100();
  auto with = [&](int64_t cols, double masked, RowImpl impl = RowImpl::PyTorch) {
    Op op = aten(RowOpKind::Softmax, 131072, cols);
    auto& row = std::get<RowOp>(op.shape);
    row.masked_fraction = masked;
    row.impl = impl;
    return predict_op(op, g);
  };
  double clocks = sm_count(g) * g.compute.max_clock_MHz.value;
  // 0.3136 cycles of an SM for each masked element, in the register kernel (4096) and the warp
  // kernel (1025), linear in the fraction
  for (int64_t cols : {1025, 4096}) {
    OpCost none = with(cols, 0), half = with(cols, 0.5), most = with(cols, 0.9);
    CHECK(none.bottleneck == Bottleneck::Compute);
    CHECK(half.compute_us - none.compute_us == Approx(131072.0 * cols * 0.5 * 0.3136 / clocks));
    CHECK(most.compute_us - half.compute_us == Approx(131072.0 * cols * 0.4 * 0.3136 / clocks));
  }
  // from 7 values a thread the register kernel's blocks an SM holds fall: the masked cycles too
  CHECK(with(7168, 0.5).compute_us - with(7168, 0).compute_us ==
        Approx(1.2366 * 131072.0 * 7168 * 0.5 * 0.3136 / clocks));
  // a single-pass (Triton) softmax's fast exp: no cost for masked values
  CHECK(with(4096, 0.9, RowImpl::SinglePass).time_us == with(4096, 0, RowImpl::SinglePass).time_us);
}

TEST_CASE("masked keys a score row hides: causal, window, static cache", "[memory][rule][aten]") {
  // 4 queries over 4 keys, causal: rows see 1..4 keys, 1.5 masked on average
  CHECK(masked_keys_per_row(4, 4, 4, true, 0) == Approx(1.5));
  // one query (decode) over a full cache: nothing masked
  CHECK(masked_keys_per_row(1, 4096, 4096, true, 0) == 0);
  // the last 2 of 6 keys queried: rows see 5 and 6
  CHECK(masked_keys_per_row(2, 6, 6, true, 0) == Approx(0.5));
  // a window of 3 over 6 causal queries: rows see 1, 2, 3, 3, 3, 3
  CHECK(masked_keys_per_row(6, 6, 6, true, 3) == Approx(6 - 15.0 / 6));
  // on both sides of the window: a window as wide as the keys masks only the triangle
  CHECK(masked_keys_per_row(6, 6, 6, true, 6) == masked_keys_per_row(6, 6, 6, true, 0));
  CHECK(masked_keys_per_row(6, 6, 6, true, 5) > masked_keys_per_row(6, 6, 6, true, 6));
  // a static cache of 16 slots with 5 filled, one query: 11 masked
  CHECK(masked_keys_per_row(1, 16, 5, false, 0) == 11);
}
