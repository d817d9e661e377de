// Full reductions (torch.sum): ATen's split of the input over CTAs (both sides of the 256 values
// per thread limit), the memset and last-block combine only a split reduction pays, and the
// Little's-law walk that bounds a reduction of few CTAs (both sides of where it takes over).
#include "model/kernel_terms.h"
#include "test_helpers.h"

using namespace ridgeline;

namespace {

Op sum(int64_t numel, DType d = DType::Bf16, bool warm = false) {
  return Op{"sum", ReduceOp{ReduceKind::Sum, numel, d, default_runtime().launch.reduction}, warm};
}

}  // namespace

TEST_CASE("reduce: one 512-thread CTA below 256 values per thread, split above", "[reduce][rule]") {
  const GpuSpec& g = test::h100();
  // 512 x 256 = 131072 elements is where ATen starts to split.
  CHECK(predict_op(sum(131072 - 512), g).detail.ctas == 1);
  OpCost split = predict_op(sum(131072), g);
  CHECK(split.detail.ctas == 16);  // max(min(132 x 4, 256 / 16), 256 / 256)
  CHECK(predict_op(sum(262144), g).detail.ctas == 32);
  // Large inputs: at most SMs x reduce_ctas_per_sm CTAs, until 256 values per thread forces more.
  double slots = 132 * g.model.vector.reduce_ctas_per_sm.value;
  CHECK(predict_op(sum(1 << 24), g).detail.ctas == slots);
  CHECK(predict_op(sum(1LL << 30), g).detail.ctas == (1LL << 30) / 512 / 256);
  // The dtype does not move the split: ATen counts values, not bytes.
  CHECK(predict_op(sum(262144, DType::Fp32), g).detail.ctas == 32);
}

TEST_CASE("reduce: only a split reduction pays the memset and the last-block combine",
          "[reduce][rule]") {
  const GpuSpec& g = test::h100();
  const auto& v = g.model.vector;
  OpCost one = predict_op(sum(1024), g);
  OpCost two = predict_op(sum(131072), g);
  double base_one = kernel_overhead_us(g, 1.0) + v.row_reduce_us.value;
  CHECK(one.overhead_us == Approx(base_one));
  CHECK(two.overhead_us == Approx(base_one + g.launch.graph_us.value + v.reduce_combine_us.value));
}

TEST_CASE("reduce: a few CTAs wait one memory latency per batch of loads in flight",
          "[reduce][rule][latency]") {
  GpuSpec g = test::h100();
  const double inflight = g.model.vector.reduce_cta_inflight_elements.value;
  const double hbm_us = g.memory.hbm.latency_ns.value / 1000;
  // One CTA over 32 batches: the walk, not bandwidth, sets the time.
  int64_t n = (int64_t)(32 * inflight);
  OpCost walk = predict_op(sum(n), g);
  CHECK(walk.detail.ctas == 1);
  CHECK(walk.bottleneck == Bottleneck::Latency);
  CHECK(walk.time_us == Approx(walk.overhead_us + 32 * hbm_us));
  // Twice the loads in flight: half the walk.
  g.model.vector.reduce_cta_inflight_elements.value = 2 * inflight;
  CHECK(predict_op(sum(n), g).time_us == Approx(walk.overhead_us + 16 * hbm_us));
  // Warm inputs wait the L2 latency instead.
  g = test::h100();
  OpCost warm = predict_op(sum(n, DType::Bf16, true), g);
  CHECK(warm.time_us - warm.overhead_us == Approx(32 * g.memory.l2.latency_ns.value / 1000));
  // Many CTAs: bandwidth takes over from the walk.
  OpCost big = predict_op(sum(1LL << 28), g);
  CHECK(big.bottleneck == Bottleneck::Hbm);
  CHECK(big.time_us == Approx(big.overhead_us + big.hbm_us));
}

TEST_CASE("reduce: the split follows the runtime's launch, not a constant in the model",
          "[reduce][rule][runtimes]") {
  const GpuSpec& g = test::h100();
  // pytorch-eager's launch: 512-thread blocks, split from 256 values per thread.
  CHECK(default_runtime().launch.reduction == ReduceLaunch{512, 16, 256});
  Op half = sum(65536);  // 128 values per thread of 512 threads: one block
  CHECK(predict_op(half, g).detail.ctas == 1);
  // 256-thread blocks reach 256 values per thread at half the size: the same input splits.
  std::get<ReduceOp>(half.shape).launch.threads_per_block = 256;
  CHECK(predict_op(half, g).detail.ctas == 16);  // max(min(528, 256 / 16), 256 / 256)
  // A reduction built without its launch is a bug, not a default.
  Op unset{"sum", ReduceOp{ReduceKind::Sum, 1024, DType::Bf16, ReduceLaunch{}}, false};
  CHECK_THROWS_AS(predict_op(unset, g), InternalError);
}
