// Memory-bound kernels: elementwise ops, full reductions, and row ops (RMSNorm, LayerNorm,
// softmax). Their time is the bytes they move over the bandwidth they can reach, and that
// bandwidth depends on how many SMs have work: an elementwise kernel launches one CTA per
// vector.cta_bytes of output; a row op one CTA per row (or per cta_bytes, when rows are short),
// so a norm over 8 rows keeps only 8 SMs busy. Elementwise kernels on strided or broadcast
// operands run ATen's generic indexing path: strided_elements_per_clk per SM at most (less with
// more view dims or 4-byte elements), and strided_latency_us more. ATen's own forward norms and
// softmax (RowImpl::PyTorch) are costed in aten_row_cost.cpp, its backward row kernels by
// pytorch_row_cost. A full reduction runs as ATen splits it (reduce_cost), its few blocks bound by
// the loads each keeps in flight. With warm_l2 the inputs were left in L2 by the previous kernel:
// the part of the working set L2 holds (soft knee near capacity) skips HBM, and so do the outputs,
// which stay dirty in L2.
#include "common/errors.h"
#include "hardware/derived.h"
#include "model/cost_models.h"
#include "model/kernel_terms.h"
#include "workloads/op_math.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

// ATen's register softmax (cunn_SoftMaxForwardReg: a block per row holding it in registers, a
// max, an exp-sum and a write pass with two block reductions) issues ~1.15 elements per clock per
// SM busy: fitted on the fit split of validate/data/h200-sxm-hf-kernels-2026-12-01.json (H200,
// 1024-16384 rows of 4096 and 8192 columns at 0.97-1.23).
constexpr double kAtenSoftmaxElementsPerClk = 1.15;

OpCost stream_cost(const Op& op, double ctas, const GpuSpec& gpu) {
  OpWork w = op_work(op);
  OpCost c;
  double hit = start_memory_kernel(op, ctas, gpu, c);
  c.bytes.hbm = (1 - hit) * w.unique_bytes();
  c.bytes.l2 = w.unique_bytes();
  finish(gpu, c);
  return c;
}

// A CTA of a one-shot kernel (elementwise, single-pass row op) loads, computes, then stores:
// only other CTAs on its SM overlap its math with their memory traffic. With k CTAs per SM the
// shorter phase is hidden but for 1/k of it; a lone CTA per SM pays both.
void add_unhidden_phase(OpCost& c) {
  double memory_us = std::max({c.hbm_us, c.l2_us, c.smem_us});
  double per_sm = std::max(1.0, c.detail.ctas / c.detail.active_sms);
  c.time_us += std::min(memory_us, c.compute_us) / per_sm;
}

// ATen's row kernels: one block per row walks it serially (pytorch_row_ns_per_col per element;
// up to the runtime's launch.blocks_per_sm rows share an SM at a time) while the whole input
// streams at a reduced share of the bandwidth; the slower of the two.
OpCost pytorch_row_cost(const RowOp& r, const Op& op, const GpuSpec& gpu) {
  const auto& v = gpu.model.vector;
  OpCost c = stream_cost(op, (double)r.rows, gpu);
  bool softmax = r.kind == RowOpKind::Softmax || r.kind == RowOpKind::SoftmaxBackward;
  double row_bytes = (double)r.cols * dtype_bytes(r.dtype);
  if (softmax && row_bytes > gpu.compute.max_smem_per_sm_bytes.value) {
    // ATen's softmax over rows that shared memory cannot hold (cunn_SoftMaxForward/Backward, a
    // block per row, as for a loss over the vocabulary) streams each row three times (max, sum,
    // output; backward: sum of dy, then dy and y) and writes it once, at full bandwidth.
    double n = (double)r.rows * row_bytes;
    double scale = 4 * n / op_work(op).unique_bytes();
    c.bytes.hbm *= scale;
    c.bytes.l2 *= scale;
    finish(gpu, c);
    return c;
  }
  require_invariant(r.launch.blocks_per_sm > 0, "an ATen row kernel without its launch");
  double row_waves = ceil_div((double)r.rows, r.launch.blocks_per_sm * sm_count(gpu));
  double serial_us = row_waves * (double)r.cols * v.pytorch_row_ns_per_col.value / 1000;
  if (softmax) {  // cunn_SoftMaxForwardReg: max, exp-sum and write passes over registers
    double elements_us =
        (double)r.rows * (double)r.cols /
        (c.detail.active_sms * kAtenSoftmaxElementsPerClk * gpu.compute.max_clock_MHz.value);
    serial_us = elements_us;  // spread over the block's threads, not walked serially
  }
  c.hbm_us /= v.pytorch_row_bandwidth_fraction.value;
  c.compute_us = std::max(c.compute_us, serial_us);
  double top = std::max({c.compute_us, c.hbm_us, c.l2_us});
  c.time_us = c.overhead_us + top;
  // Walking a row serially is latency, not arithmetic throughput.
  bool serial = top == serial_us && serial_us > c.hbm_us;
  c.bottleneck = top < c.overhead_us || serial
                     ? Bottleneck::Latency
                     : (top == c.hbm_us ? Bottleneck::Hbm : Bottleneck::Compute);
  return c;
}

// A torch.cat of contiguous inputs runs CatArrayBatchedCopy_vectorized, a vectorized copy. With a
// strided input (a view, such as a cropped KV cache) ATen's CatArrayBatchedCopy copies 2-byte
// elements one at a time through its batched-input indexing: ~160 G elements/s on the H200 from
// 8.4 M to 268 M elements (transformers' DynamicCache cat onto a cropped cache, fit split of
// validate/data/h200-sxm-hf-2026-12-01.json), 0.4 of the generic strided path's rate there.
constexpr double kCatShareOfStridedRate = 0.4;

// The generic path's cost per element grows with the dims its TensorIterator keeps (an integer
// division and a multiply-add per operand for each): ~10% of the 3-dim cost per dim from 2 to 6
// dims, no less at 1; 4-byte elements run elementwise_kernel<128, 2> (2 per thread, not 4) at 0.9
// of the elements per clock. Fitted on the fit split of
// validate/data/h200-sxm-view-dims-2026-12-03.json (scripts/fit_view_dims.py: copies and
// muls of views with 1 to 6 dims, sliced rows, row broadcasts, bf16 and fp32, 4M-67M elements).
constexpr double kStridedCostPerDim = 0.102;
constexpr double kStridedFourByteRate = 0.9;
// A copy out of a broadcast view (input_reuse > 1: transformers' repeat_kv, K and V expanded to
// every query head) walks its input's contiguous rows again for each repeat and runs 1.12x the
// generic rate of its dims: the median of predicted / measured over the fit split's expand copies
// of 4M elements and more (7 shapes: the StaticCache repeat_kv kernels of
// validate/data/h200-sxm-hf-2026-12-01.json's profiles, 8.4M-271M elements, 1.09-1.20; the expand
// copy of validate/data/h200-sxm-view-dims-2026-12-03.json, 1.29).
constexpr double kExpandCopyRate = 1.12;

double strided_rate_factor(const ElementwiseOp& e) {
  double per_element = 1 + kStridedCostPerDim * (std::max(e.view_dims, 2) - kCalibratedViewDims);
  return (dtype_bytes(e.dtype) >= 4 ? kStridedFourByteRate : 1.0) / per_element;
}

}  // namespace

OpCost elementwise_cost(const ElementwiseOp& e, const Op& op, const GpuSpec& gpu) {
  if (e.kind == ElementwiseKind::AdamW && e.adamw != AdamwImpl::Fused)
    return adamw_impl_cost(e, gpu);
  double out_bytes = (double)e.numel * dtype_bytes(e.dtype);
  OpCost c = stream_cost(op, ceil_div(out_bytes, gpu.model.vector.cta_bytes.value), gpu);
  if (e.strided) {  // index arithmetic per element, no vector loads: an issue-rate limit (a
    // strided cat's element by element copy at a share of that rate)
    double rate = gpu.model.vector.strided_elements_per_clk.value * strided_rate_factor(e) *
                  (e.kind == ElementwiseKind::Cat ? kCatShareOfStridedRate : 1.0) *
                  (e.kind == ElementwiseKind::Copy && e.input_reuse > 1 ? kExpandCopyRate : 1.0);
    double idx_us =
        (double)e.numel / (c.detail.active_sms * rate * gpu.compute.max_clock_MHz.value);
    if (idx_us > c.compute_us) {
      c.compute_us = idx_us;
      finish(gpu, c);
    }
  }
  add_unhidden_phase(c);
  if (e.kind == ElementwiseKind::AdamW) {  // many tensors per launch, four streams each
    double slower = c.hbm_us / gpu.model.vector.adamw_bandwidth_fraction.value - c.hbm_us;
    c.hbm_us += slower;
    c.time_us += slower;
  }
  if (e.strided) add_overhead(c, gpu.model.vector.strided_latency_us.value);
  return c;
}

OpCost reduce_cost(const ReduceOp& r, const Op& op, const GpuSpec& gpu) {
  const auto& v = gpu.model.vector;
  // ATen's setReduceConfig for a full reduction, as the runtime launches it (r.launch): blocks of
  // threads_per_block threads; one block walks the input while that leaves under
  // max_values_per_thread values per thread, else the input is split over
  // max(min(SMs x reduce_ctas_per_sm, vpt / min_values_per_thread), vpt / max_values_per_thread)
  // blocks.
  const ReduceLaunch& l = r.launch;
  require_invariant(l.threads_per_block > 0 && l.min_values_per_thread > 0,
                    "a reduction without its launch");
  double numel = (double)r.numel;
  double vpt = ceil_div(numel, l.threads_per_block);
  double slots = sm_count(gpu) * v.reduce_ctas_per_sm.value;
  double ctas = vpt < l.max_values_per_thread
                    ? 1
                    : std::max(std::min(slots, ceil_div(vpt, l.min_values_per_thread)),
                               ceil_div(vpt, l.max_values_per_thread));
  OpCost c = stream_cost(op, ctas, gpu);
  // A block keeps reduce_cta_inflight_elements of loads in flight and waits a memory latency for
  // each such batch (Little's law), which bounds a few blocks long before bandwidth does.
  double walk_us = ceil_div(ctas, slots) * (numel / ctas) / v.reduce_cta_inflight_elements.value *
                   memory_latency_us(gpu, c.detail.hbm_load_fraction);
  if (walk_us > std::max({c.compute_us, c.hbm_us, c.l2_us})) {
    c.time_us = c.overhead_us + walk_us;
    c.bottleneck = Bottleneck::Latency;
  }
  // Each block reduces in shared memory before it writes; split over several blocks, the
  // semaphores are cleared by a memset first (a graph node of its own) and the last block to
  // finish combines the partials.
  add_overhead(c, v.row_reduce_us.value);
  if (ctas > 1) add_overhead(c, gpu.launch.graph_us.value + v.reduce_combine_us.value);
  return c;
}

OpCost row_op_cost(const RowOp& r, const Op& op, const GpuSpec& gpu) {
  double bytes = (double)r.rows * (double)r.cols * dtype_bytes(r.dtype);
  if (r.impl == RowImpl::PyTorch) {
    bool forward = r.kind == RowOpKind::RmsNorm || r.kind == RowOpKind::LayerNorm ||
                   r.kind == RowOpKind::Softmax;
    return forward ? aten_row_forward_cost(r, op, gpu) : pytorch_row_cost(r, op, gpu);
  }
  double ctas = std::min((double)r.rows, ceil_div(bytes, gpu.model.vector.cta_bytes.value));
  OpCost c = stream_cost(op, ctas, gpu);
  add_unhidden_phase(c);
  add_overhead(c, gpu.model.vector.row_reduce_us.value);  // the row is reduced before it is written
  return c;
}

}  // namespace ridgeline
