// Blackwell Ultra presets (hardware/gpus/b300.json, gb300.json; clusters dgx-b300, gb300-nvl72):
// the stated dense peaks the datasheets give, what differs from Blackwell (the SFU's doubled
// exponential rate, 288 GB of HBM3e, ConnectX-8 at 800 Gb/s) and what does not (the tensor rate
// per SM), each checked through the kernel model: attention's softmax runs faster on B300 than on
// B200 where the exponentials bound it, and a bf16 GEMM runs at B200's speed.
#include "hardware/cluster_spec.h"
#include "hardware/derived.h"
#include "hardware/gpu_load.h"
#include "model/op_cost.h"
#include "test_helpers.h"

using namespace ridgeline;

TEST_CASE("b300, gb300: the stated dense peaks of the Blackwell Ultra sheets", "[hardware]") {
  const GpuSpec b = load_gpu("b300"), g = load_gpu("gb300");
  CHECK(peak_tflops(b, MathUnit::TensorBf16) == Approx(2250).epsilon(0.01));
  CHECK(peak_tflops(b, MathUnit::TensorFp8) == Approx(4500).epsilon(0.01));
  CHECK(peak_tflops(g, MathUnit::TensorBf16) == Approx(2500).epsilon(0.01));
  CHECK(peak_tflops(g, MathUnit::TensorFp8) == Approx(5000).epsilon(0.01));
  // int8 tensor throughput cut to ~0.15 POPS (B200: 4500 TOPS)
  CHECK(peak_tflops(b, MathUnit::TensorInt8) <
        0.05 * peak_tflops(load_gpu("b200"), MathUnit::TensorInt8));
  CHECK(b.memory.hbm.capacity_bytes.value == Approx(288.4e9).epsilon(0.001));
  CHECK(g.memory.hbm.bandwidth_GBps.value == 8000);
}

TEST_CASE("b300: twice B200's exponentials, the same tensor rate per SM", "[hardware]") {
  const GpuSpec b300 = load_gpu("b300"), b200 = load_gpu("b200");
  CHECK(b300.compute.sfu_ops_per_clk_per_sm.value == 2 * b200.compute.sfu_ops_per_clk_per_sm.value);
  CHECK(b300.compute.sm_count.value == b200.compute.sm_count.value);
  // A large bf16 GEMM: B200's speed (tensor clocks 1855 vs 1845 MHz) within 2%
  const Op gemm = test::gemm(8192, 8192, 8192);
  CHECK(predict_op(gemm, b300).time_us == Approx(predict_op(gemm, b200).time_us).epsilon(0.02));
  // Attention at head_dim 64, where the softmax's exponentials weigh most against the MMAs:
  // faster on B300, by less than the SFU's 2x (the MMAs and memory do not change)
  const Op attn = test::attention(8, 64, 8, 4096, 4096, true, 64);
  double t300 = predict_op(attn, b300).time_us, t200 = predict_op(attn, b200).time_us;
  CHECK(t300 < t200);
  CHECK(t300 > 0.5 * t200);
}

TEST_CASE("dgx-b300, gb300-nvl72: ConnectX-8 at 800 Gb/s, NVLink5 as Blackwell's", "[hardware]") {
  const ClusterSpec hgx = load_cluster("dgx-b300"), rack = load_cluster("gb300-nvl72");
  CHECK(hgx.gpu == "b300");
  CHECK(rack.gpu == "gb300");
  CHECK(hgx.scale_out.nic_Gbps.value == 800);
  CHECK(rack.scale_out.nic_Gbps.value == 800);
  CHECK(rack.gpus_per_node.value == 72);
  const ClusterSpec b200 = load_cluster("dgx-b200");
  CHECK(hgx.scale_up.link_GBps_per_direction.value == b200.scale_up.link_GBps_per_direction.value);
}
