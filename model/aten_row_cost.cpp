// ATen's own forward row kernels, as PyTorch 2.11 dispatches them (RowImpl::PyTorch):
//  - F.rms_norm and F.layer_norm run vectorized_layer_norm_kernel: a block per row walks the row
//    (one vector load per thread per 512 columns, a memory latency each, plus per-column math),
//    reads it again to normalise and writes it; the runtime's launch.blocks_per_sm blocks share
//    an SM. Time: the slowest of one block's walk (longer once SMs hold several blocks), the
//    walks of the busiest SM's rows over its resident blocks, and the HBM traffic of the passes.
//  - softmax picks one of four kernels by row width (host_softmax): softmax_warp_forward (a warp
//    per row, cols <= 2048 and at most 8 KiB), cunn_SoftMaxForwardReg (the row in registers,
//    cols <= 8192), cunn_SoftMaxForwardSmem (the row in shared memory, under 48 KiB) and
//    cunn_SoftMaxForward (max, sum and output passes re-reading the row: from L2 while the rows
//    in flight fit, else from HBM). Time: the slowest of a block's walk, the element rate of all
//    SMs (the register kernel also pays for each of its ceil(cols / 1024) values a thread, more
//    from 7 on; every kernel for each masked value), and the HBM traffic.
// Each kernel's few constants were fitted (log error, least squares; scripts/fit_aten_rows.py) on
// the fit split of validate/data/h200-sxm-row-grid-2026-12-02.json (H200, 12 row counts x 9 widths
// x bf16/fp32; the held-out split was fixed by shape hash before the fit and not used; the register
// softmax also on the fit split of h200-sxm-mask-grid-2026-12-02.json, widths off 1024s);
// latencies, clocks, SM counts and bandwidth come from the GPU description, so other GPUs scale
// from those. Backward row kernels keep memory_bound_cost.cpp's serial-walk model.
#include "common/errors.h"
#include "hardware/derived.h"
#include "model/cost_models.h"
#include "model/kernel_terms.h"
#include "workloads/op_math.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

// vectorized_layer_norm_kernel's constants (H200 fit split, 141 rms_norm and 147 layer_norm
// kernels; fit MAPE 8.5% and 5.7%).
struct NormConstants {
  double walk_fixed_us;      // a block's walk: fixed part
  double latencies_per_512;  // memory latencies per 512 columns (one vector load a thread)
  double ns_per_col_half;    // per-column math, 2-byte elements
  double ns_per_col_fp32;    // per-column math, fp32
  double extra_passes;       // HBM passes beyond the first read and the write
};
constexpr NormConstants kRmsNorm{0.4554, 0.5413, 0.5301, 0.3655, 0.7746};
constexpr NormConstants kLayerNorm{0.9966, 1.0692, 0.6774, 0.8161, 1.5527};
// A block's walk when its SM holds other blocks (rows > SMs).
constexpr double kSharedSmWalkFactor = 1.0853;

// softmax's four kernels (H200 fit split, 167 kernels; fit MAPE 7.6%).
struct SoftmaxConstants {
  double walk_fixed_us, ns_per_col;  // one block's (or warp's) walk of a row
  double elements_per_clk_per_sm;    // the element rate with every SM busy
  double traffic_factor;             // HBM traffic: of read + write (warp, reg, smem) or of the
                                     // multi-pass kernel's passes
};
constexpr SoftmaxConstants kSoftmaxWarp1024{0.3385, 2.7187, 2.0173, 1.1440};
constexpr SoftmaxConstants kSoftmaxWarp2048{2.6573, 1.8595, 1.6664, 1.1638};
constexpr SoftmaxConstants kSoftmaxReg{0.4162, 0.3190, 5.9984, 0.999};
// cunn_SoftMaxForwardReg holds ceil(cols / 1024) values a thread in registers: each of them costs
// a block's SM this many cycles a row beyond the element rate, and from 7 a thread (7168 columns
// on) fewer blocks fit an SM (H200, the row grid's and the mask grid's fit splits: 104 kernels,
// fit MAPE 7.5% -> 4.5%; scripts/fit_aten_rows.py).
constexpr double kSoftmaxRegCyclesPerValue = 670.91;
constexpr int kSoftmaxRegWideValues = 7;
constexpr double kSoftmaxRegWideFactor = 1.2366;
// Masked values (attention scores a mask set to the dtype's min or -inf) cost each kernel's exp
// this many cycles of an SM per masked element beyond the element rate: ~0.3 of a cycle, the
// same for bf16 and fp32, for min and -inf (H200, the fit split of
// validate/data/h200-sxm-masked-softmax-grid-2026-12-03.json: 30 masked kernels of the warp and
// register kernels over 5 shapes of 1025-8192 columns, fitted on each one's ratio to its shape's
// unmasked time, so that the unmasked model's error stays out; scripts/fit_aten_rows.py). The
// shared-memory and multi-pass kernels (wider rows) were not measured masked: the same cost.
constexpr double kSoftmaxMaskedCyclesPerElement = 0.3136;
constexpr SoftmaxConstants kSoftmaxSmem{1.9815, 0.1360, 1.9892, 1.0};
constexpr SoftmaxConstants kSoftmaxMultiPass{0.7149, 0.2601, 1.4759, 1.0362};
constexpr double kSoftmaxSmemBytes = 48 * 1024;  // sharedMemPerBlock without opting in
constexpr double kMultiPassBlocksPerSm = 2;      // cunn_SoftMaxForward's resident blocks

struct Streams {
  double one_pass_bytes, hit, latency_us;
};

// A block per row (start_memory_kernel's launch shape and L2 share: warm_l2, the input left
// there by the previous kernel), one pass's bytes and the memory latency a walk's loads see.
Streams start(const RowOp& r, const Op& op, const GpuSpec& gpu, OpCost& c) {
  double hit = start_memory_kernel(op, (double)r.rows, gpu, c);
  double one_pass = (double)r.rows * (double)r.cols * dtype_bytes(r.dtype);
  return {one_pass, hit, memory_latency_us(gpu, 1 - hit)};
}

// Time = overhead + the slowest of the walk, the rate-bound term and HBM; the walk and the rate
// are held in compute_us (the walk labelled latency when it is the slowest).
void settle(const GpuSpec& gpu, OpCost& c, double traffic_bytes, double hit, double walk_us,
            double rate_us) {
  c.bytes.hbm = traffic_bytes * (1 - hit);
  c.bytes.l2 = traffic_bytes;
  finish(gpu, c);
  double math_us = std::max(c.compute_us, rate_us);
  c.compute_us = std::max(math_us, walk_us);
  double top = std::max(c.compute_us, c.hbm_us);
  c.time_us = c.overhead_us + top;
  c.bottleneck = top == c.hbm_us && c.hbm_us > 0
                     ? Bottleneck::Hbm
                     : (walk_us > math_us ? Bottleneck::Latency : Bottleneck::Compute);
}

OpCost norm_cost(const RowOp& r, const Op& op, const GpuSpec& gpu) {
  require_invariant(r.launch.blocks_per_sm > 0, "an ATen row kernel without its launch");
  const NormConstants& k = r.kind == RowOpKind::RmsNorm ? kRmsNorm : kLayerNorm;
  OpCost c;
  Streams s = start(r, op, gpu, c);
  double cols = (double)r.cols;
  double ns_per_col = dtype_bytes(r.dtype) <= 2 ? k.ns_per_col_half : k.ns_per_col_fp32;
  double walk_us =
      k.walk_fixed_us + cols / 512 * k.latencies_per_512 * s.latency_us + cols * ns_per_col / 1000;
  if ((double)r.rows > sm_count(gpu)) walk_us *= kSharedSmWalkFactor;
  double busiest_us = (double)r.rows / (sm_count(gpu) * r.launch.blocks_per_sm) * walk_us;
  settle(gpu, c, (2 + k.extra_passes) * s.one_pass_bytes, s.hit, std::max(walk_us, busiest_us), 0);
  return c;
}

OpCost softmax_cost(const RowOp& r, const Op& op, const GpuSpec& gpu) {
  double row_bytes = (double)r.cols * dtype_bytes(r.dtype);
  AtenSoftmaxKernel kind = aten_softmax_kernel(r);
  bool multi_pass = kind == AtenSoftmaxKernel::MultiPass;
  const SoftmaxConstants& k = kind == AtenSoftmaxKernel::Warp1024    ? kSoftmaxWarp1024
                              : kind == AtenSoftmaxKernel::Warp2048  ? kSoftmaxWarp2048
                              : kind == AtenSoftmaxKernel::Registers ? kSoftmaxReg
                              : multi_pass                           ? kSoftmaxMultiPass
                                                                     : kSoftmaxSmem;
  OpCost c;
  Streams s = start(r, op, gpu, c);
  double walk_us = k.walk_fixed_us + (double)r.cols * k.ns_per_col / 1000;
  double per_row_cycles = (double)r.cols / k.elements_per_clk_per_sm +
                          kSoftmaxMaskedCyclesPerElement * r.masked_fraction * (double)r.cols;
  if (kind == AtenSoftmaxKernel::Registers) {
    double values = std::ceil((double)r.cols / 1024);
    per_row_cycles += kSoftmaxRegCyclesPerValue * values;
    if (values >= kSoftmaxRegWideValues) per_row_cycles *= kSoftmaxRegWideFactor;
  }
  double rate_us =
      (double)r.rows * per_row_cycles / (sm_count(gpu) * gpu.compute.max_clock_MHz.value);
  double passes = 2;  // read, write
  if (multi_pass) {   // max and sum passes re-read the row: from L2 while the rows in flight fit
    double in_flight = std::min((double)r.rows, sm_count(gpu) * kMultiPassBlocksPerSm) * row_bytes;
    passes = 2 + 2 * (1 - l2_hit_fraction(gpu, in_flight));
  }
  settle(gpu, c, k.traffic_factor * passes * s.one_pass_bytes, s.hit, walk_us, rate_us);
  return c;
}

}  // namespace

AtenSoftmaxKernel aten_softmax_kernel(const RowOp& r) {
  double row_bytes = (double)r.cols * dtype_bytes(r.dtype);
  if (r.cols <= 2048 && row_bytes <= 8192)
    return r.cols <= 1024 ? AtenSoftmaxKernel::Warp1024 : AtenSoftmaxKernel::Warp2048;
  if (r.cols <= 8192) return AtenSoftmaxKernel::Registers;
  return row_bytes > kSoftmaxSmemBytes ? AtenSoftmaxKernel::MultiPass
                                       : AtenSoftmaxKernel::SharedMemory;
}

OpCost aten_row_forward_cost(const RowOp& r, const Op& op, const GpuSpec& gpu) {
  require_invariant(r.kind == RowOpKind::RmsNorm || r.kind == RowOpKind::LayerNorm ||
                        r.kind == RowOpKind::Softmax,
                    "aten_row_forward_cost is for the forward row kernels");
  return r.kind == RowOpKind::Softmax ? softmax_cost(r, op, gpu) : norm_cost(r, op, gpu);
}

}  // namespace ridgeline
