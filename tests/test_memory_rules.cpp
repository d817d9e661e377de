// Memory-bound rules: bandwidth-bound large kernels, the latency floor of small ones, the
// bandwidth a few busy SMs can pull, and the L2 capacity knee for warm inputs (both sides).
#include "model/kernel_terms.h"
#include "test_helpers.h"

using namespace ridgeline;
using test::elementwise;

TEST_CASE("memory: a large elementwise op moves its bytes at achievable HBM bandwidth",
          "[memory][rule]") {
  const GpuSpec& g = test::h100();
  OpCost c = predict_op(elementwise(ElementwiseKind::Add, 1 << 28), g);
  double bytes = 3.0 * (1 << 28) * 2;
  CHECK(c.bottleneck == Bottleneck::Hbm);
  CHECK(c.bytes.hbm == bytes);
  double bw = g.model.memory.hbm_efficiency.value * 3350e9;
  // Over 1000 CTAs per SM, all but a sliver of the math hides behind the traffic.
  double unhidden = c.compute_us * c.detail.active_sms / c.detail.ctas;
  CHECK(unhidden < 1e-3 * c.time_us);
  CHECK(c.time_us == Approx(bytes / bw * 1e6 + c.overhead_us + unhidden).epsilon(1e-6));
}

TEST_CASE("memory: below the latency floor the label is latency, above it hbm",
          "[memory][rule][latency]") {
  const GpuSpec& g = test::h100();
  OpCost small = predict_op(elementwise(ElementwiseKind::Copy, 1 << 16), g);
  CHECK(small.bottleneck == Bottleneck::Latency);
  CHECK(small.time_us < 1.2 * small.overhead_us);
  // Find the size where HBM time passes the overhead, and check both sides of it.
  double overhead = small.overhead_us;
  double bw = achievable_hbm_bytes_per_s(g, 132);
  int64_t at = (int64_t)(overhead * 1e-6 * bw / 4);  // copy moves 4 bytes per bf16 element
  CHECK(predict_op(elementwise(ElementwiseKind::Copy, at * 9 / 10), g).bottleneck ==
        Bottleneck::Latency);
  CHECK(predict_op(elementwise(ElementwiseKind::Copy, at * 11 / 10), g).bottleneck ==
        Bottleneck::Hbm);
}

TEST_CASE("memory: few busy SMs cannot pull full bandwidth", "[memory][rule][occupancy]") {
  const GpuSpec& g = test::h100();
  OpCost few = predict_op(test::row_op(RowOpKind::RmsNorm, 8, 1 << 20), g);   // 8 rows: 8 SMs
  OpCost many = predict_op(test::row_op(RowOpKind::RmsNorm, 1024, 8192), g);  // same bytes
  CHECK(few.detail.active_sms == 8);
  CHECK(many.detail.active_sms == 132);
  CHECK(few.time_us > 3 * many.time_us);
  double per_sm = g.model.memory.sm_bytes_per_clk.value * g.compute.max_clock_MHz.value * 1e6;
  CHECK(achievable_hbm_bytes_per_s(g, 8) == Approx(8 * per_sm));
  CHECK(achievable_hbm_bytes_per_s(g, 132) == Approx(g.model.memory.hbm_efficiency.value * 3350e9));
}

TEST_CASE("memory: warm inputs hit L2 below the knee and miss above it", "[memory][rule][l2]") {
  const GpuSpec& g = test::h100();
  double cap = g.memory.l2.capacity_bytes.value;
  double start = g.model.memory.l2_knee_start_fraction.value * cap;
  double end = g.model.memory.l2_knee_end_fraction.value * cap;
  CHECK(l2_hit_fraction(g, 0.99 * start) == 1.0);
  CHECK(l2_hit_fraction(g, 1.01 * start) < 1.0);
  CHECK(l2_hit_fraction(g, 1.01 * start) > 0.9);
  CHECK(l2_hit_fraction(g, (start + end) / 2) == Approx(0.5));
  CHECK(l2_hit_fraction(g, 0.99 * end) > 0.0);
  CHECK(l2_hit_fraction(g, 1.01 * end) == 0.0);
  // A copy moves 4 bytes per bf16 element (read + write).
  auto copy = [&](double ws, bool warm) {
    return predict_op(elementwise(ElementwiseKind::Copy, (int64_t)(ws / 4), warm), g);
  };
  OpCost inside = copy(0.9 * start, true);
  OpCost outside = copy(1.1 * end, true);
  OpCost cold = copy(0.9 * start, false);
  CHECK(inside.bytes.hbm == 0);
  CHECK(inside.bottleneck != Bottleneck::Hbm);
  CHECK(outside.bytes.hbm == Approx(outside.bytes.l2));
  CHECK(cold.bytes.hbm == Approx(cold.bytes.l2));
  CHECK(inside.time_us < cold.time_us);
  // What else L2 holds counts: the same small copy beside a working set past the knee misses.
  Op crowded = elementwise(ElementwiseKind::Copy, 1024, true);
  crowded.l2_working_set_bytes = 1.1 * end;
  CHECK(predict_op(crowded, g).bytes.hbm == Approx(predict_op(crowded, g).bytes.l2));
  crowded.l2_working_set_bytes = 0.9 * start;
  CHECK(predict_op(crowded, g).bytes.hbm == 0);
}

TEST_CASE("memory: a kernel's round trips wait the latency of where its loads hit",
          "[memory][rule][latency]") {
  const GpuSpec& g = test::h100();
  double gap = g.launch.graph_us.value + g.model.kernel.latency_us.value;
  double trips = g.model.memory.latency_round_trips.value;
  double l2 = g.memory.l2.latency_ns.value / 1000, hbm = g.memory.hbm.latency_ns.value / 1000;
  CHECK(kernel_overhead_us(g, 0) == Approx(gap + trips * l2));
  CHECK(kernel_overhead_us(g, 1) == Approx(gap + trips * hbm));
  CHECK(kernel_overhead_us(g, 0.25) == Approx(gap + trips * (0.75 * l2 + 0.25 * hbm)));
  // A small copy whose working set sits mid-knee waits between the two.
  double cap = g.memory.l2.capacity_bytes.value;
  double mid =
      (g.model.memory.l2_knee_start_fraction.value + g.model.memory.l2_knee_end_fraction.value) /
      2 * cap;
  Op half = elementwise(ElementwiseKind::Copy, 1024, true);
  half.l2_working_set_bytes = mid;
  CHECK(predict_op(half, g).overhead_us == Approx(kernel_overhead_us(g, 0.5)));
}

TEST_CASE("memory: a lone CTA per SM pays its load and its math, many CTAs overlap them",
          "[memory][rule][occupancy]") {
  const GpuSpec& g = test::h100();
  // One softmax row of 32768: one CTA on one SM, nothing to hide its exp() behind.
  OpCost one = predict_op(test::row_op(RowOpKind::Softmax, 1, 32768), g);
  double memory_us = std::max(one.hbm_us, one.l2_us);
  CHECK(one.detail.ctas == one.detail.active_sms);
  CHECK(one.time_us == Approx(one.overhead_us + memory_us + one.compute_us));
  // 64 rows per SM: the shorter phase is hidden but for 1/64 of it.
  OpCost many = predict_op(test::row_op(RowOpKind::Softmax, 132 * 64, 32768), g);
  double top = std::max({many.hbm_us, many.l2_us, many.compute_us});
  double low = std::min(std::max(many.hbm_us, many.l2_us), many.compute_us);
  CHECK(many.time_us == Approx(many.overhead_us + top + low / 64));
}

TEST_CASE("memory: reductions and norms read once and write once", "[memory][rule]") {
  const GpuSpec& g = test::h100();
  OpCost r = predict_op(
      Op{"r", ReduceOp{ReduceKind::Sum, 1 << 28, DType::Bf16, default_runtime().launch.reduction},
         false},
      g);
  CHECK(r.bytes.hbm == Approx((double)(1 << 28) * 2 + 2));
  CHECK(r.bottleneck == Bottleneck::Hbm);
  OpCost n = predict_op(test::row_op(RowOpKind::LayerNorm, 4096, 8192), g);
  CHECK(n.bytes.hbm == Approx(2.0 * 4096 * 8192 * 2 + 2 * 8192 * 2));
  OpCost s = predict_op(test::row_op(RowOpKind::Softmax, 4096, 8192), g);
  CHECK(s.sfu_ops == 4096.0 * 8192);
}

TEST_CASE("memory: strided operands pay the generic indexing path", "[memory][rule]") {
  const GpuSpec& g = test::h100();
  auto strided = [](Op op) {
    std::get<ElementwiseOp>(op.shape).strided = true;
    return op;
  };
  double rate = g.model.vector.strided_elements_per_clk.value;
  double clock_MHz = g.compute.max_clock_MHz.value;
  // Small: the generic path's extra latency, and one CTA's 1024 elements at the issue rate.
  Op plain = elementwise(ElementwiseKind::Mul, 1 << 12);
  double extra = predict_op(strided(plain), g).time_us - predict_op(plain, g).time_us;
  CHECK(extra > g.model.vector.strided_latency_us.value);
  CHECK(extra < g.model.vector.strided_latency_us.value + 1024 / (rate * clock_MHz) + 0.05);
  // Large: bound by strided_elements_per_clk per SM, not by bandwidth.
  Op big = elementwise(ElementwiseKind::Mul, 1 << 26);
  OpCost s = predict_op(strided(big), g), v = predict_op(big, g);
  CHECK(s.bottleneck == Bottleneck::Compute);
  CHECK(s.compute_us == Approx((1 << 26) / (132 * rate * clock_MHz)));
  CHECK(v.bottleneck == Bottleneck::Hbm);
  CHECK(s.time_us > 1.2 * v.time_us);
  // A faster issue rate than bandwidth allows: bandwidth-bound again, latency aside.
  GpuSpec fast = g;
  fast.model.vector.strided_elements_per_clk.value = 100;
  OpCost f = predict_op(strided(big), fast);
  CHECK(f.bottleneck == Bottleneck::Hbm);
  CHECK(f.time_us - v.time_us == Approx(g.model.vector.strided_latency_us.value).epsilon(0.05));
}

TEST_CASE("memory: the generic path slows with view dims and with 4-byte elements",
          "[memory][rule]") {
  const GpuSpec& g = test::h100();
  auto view = [&](int dims, DType d = DType::Bf16) {
    Op op = elementwise(ElementwiseKind::Copy, 1 << 26, false, d);
    auto& e = std::get<ElementwiseOp>(op.shape);
    e.strided = true;
    e.view_dims = dims;
    return predict_op(op, g).compute_us;
  };
  double rate = g.model.vector.strided_elements_per_clk.value;
  double at3 = (1 << 26) / (132 * rate * g.compute.max_clock_MHz.value);
  CHECK(view(kCalibratedViewDims) == Approx(at3));  // the calibrated layout keeps its rate
  CHECK(view(4) == Approx(at3 * 1.102));
  CHECK(view(6) == Approx(at3 * 1.306));
  CHECK(view(2) == Approx(at3 * 0.898));
  CHECK(view(1) == Approx(view(2)));  // no cheaper than 2 dims
  // fp32 moves 0.9 of the elements per clock; bf16 and fp16 the same.
  CHECK(view(3, DType::Fp32) == Approx(at3 / 0.9));
  CHECK(view(3, DType::Fp16) == Approx(at3));
}

TEST_CASE("memory: a copy out of a broadcast view runs 1.12x the generic rate", "[memory][rule]") {
  const GpuSpec& g = test::h100();
  auto copy = [&](ElementwiseKind k, int64_t reuse) {
    Op op = elementwise(k, 1 << 26, false);
    auto& e = std::get<ElementwiseOp>(op.shape);
    e.strided = true;
    e.input_reuse = reuse;
    return predict_op(op, g).compute_us;
  };
  CHECK(copy(ElementwiseKind::Copy, 4) == Approx(copy(ElementwiseKind::Copy, 1) / 1.12));
  CHECK(copy(ElementwiseKind::Copy, 2) == Approx(copy(ElementwiseKind::Copy, 4)));
  // Another kind with a broadcast operand keeps the generic rate.
  CHECK(copy(ElementwiseKind::Mul, 4) == Approx(copy(ElementwiseKind::Mul, 1)));
}

// ATen's backward row kernels (the forward ones are test_aten_row_rules.cpp's).
TEST_CASE("memory: ATen's backward row kernels walk rows serially and stream slower",
          "[memory][rule]") {
  const GpuSpec& g = test::h100();
  auto torch_norm = [](int64_t rows, int64_t cols) {
    Op op = test::row_op(RowOpKind::LayerNormBackward, rows, cols);
    std::get<RowOp>(op.shape).impl = RowImpl::PyTorch;
    return op;
  };
  // One long row: serial time per column dominates.
  OpCost one = predict_op(torch_norm(1, 8192), g);
  CHECK(one.compute_us == Approx(8192 * g.model.vector.pytorch_row_ns_per_col.value / 1000));
  CHECK(one.time_us >
        2 * predict_op(test::row_op(RowOpKind::LayerNormBackward, 1, 8192), g).time_us);
  // Many rows: bandwidth-bound at a reduced share.
  OpCost many = predict_op(torch_norm(65536, 8192), g);
  OpCost single = predict_op(test::row_op(RowOpKind::LayerNormBackward, 65536, 8192), g);
  CHECK(many.bottleneck == Bottleneck::Hbm);
  CHECK(many.hbm_us == Approx(single.hbm_us / g.model.vector.pytorch_row_bandwidth_fraction.value));
}

TEST_CASE("memory: ATen's backward row kernels share an SM as the runtime launches them",
          "[memory][rule]") {
  const GpuSpec& g = test::h100();
  Op op = test::row_op(RowOpKind::LayerNormBackward, 132 * 8, 8192);
  std::get<RowOp>(op.shape).impl = RowImpl::PyTorch;
  CHECK(default_runtime().launch.rows.blocks_per_sm == 8);
  // 132 x 8 rows: one wave of serial walks at 8 blocks per SM, two at 4.
  double walk_us = 8192 * g.model.vector.pytorch_row_ns_per_col.value / 1000;
  CHECK(predict_op(op, g).compute_us == Approx(walk_us));
  std::get<RowOp>(op.shape).launch.blocks_per_sm = 4;
  CHECK(predict_op(op, g).compute_us == Approx(2 * walk_us));
  std::get<RowOp>(op.shape).launch.blocks_per_sm = 0;  // built without its launch: a bug
  CHECK_THROWS_AS(predict_op(op, g), InternalError);
}

TEST_CASE("memory: ATen's softmax backward over rows longer than shared memory reads them twice",
          "[memory][rule]") {
  const GpuSpec& g = test::h100();
  auto aten_softmax = [](RowOpKind kind, int64_t rows, int64_t cols) {
    Op op{"sm",
          RowOp{kind, rows, cols, DType::Fp32, RowImpl::PyTorch, default_runtime().launch.rows},
          false};
    return op;
  };
  // 128256 fp32 columns (a loss over Llama-3's vocabulary): 501 KB a row, past 228 KB of smem.
  OpCost vocab = predict_op(aten_softmax(RowOpKind::SoftmaxBackward, 2048, 128256), g);
  double n = 2048.0 * 128256 * 4;
  CHECK(vocab.bytes.hbm == Approx(4 * n));
  CHECK(vocab.bottleneck == Bottleneck::Hbm);
  CHECK(vocab.time_us == Approx(vocab.overhead_us + vocab.hbm_us));
  // Rows that fit shared memory keep ATen's one-read kernel model: dy and y read, dx written.
  double fits_cols = g.compute.max_smem_per_sm_bytes.value / 4;
  OpCost small = predict_op(aten_softmax(RowOpKind::SoftmaxBackward, 2048, (int64_t)fits_cols), g);
  CHECK(small.bytes.hbm == Approx(3 * 2048.0 * (int64_t)fits_cols * 4));
  OpCost past =
      predict_op(aten_softmax(RowOpKind::SoftmaxBackward, 2048, (int64_t)fits_cols + 64), g);
  CHECK(past.bytes.hbm == Approx(4 * 2048.0 * ((int64_t)fits_cols + 64) * 4));
}

TEST_CASE("memory: the fused AdamW step streams at its own share of bandwidth", "[memory][rule]") {
  const GpuSpec& g = test::h100();
  OpCost adam = predict_op(elementwise(ElementwiseKind::AdamW, 1LL << 30), g);
  double bytes = (double)(1LL << 30) * 2 * 7;  // param, grad, m, v read; param, m, v written
  CHECK(adam.bytes.hbm == bytes);
  double bw = achievable_hbm_bytes_per_s(g, 132) * g.model.vector.adamw_bandwidth_fraction.value;
  double unhidden = adam.compute_us * adam.detail.active_sms / adam.detail.ctas;
  CHECK(adam.time_us == Approx(bytes / bw * 1e6 + adam.overhead_us + unhidden).epsilon(1e-6));
}
