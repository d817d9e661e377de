// predict_op(): dispatch to the op family's cost model, then add what all share: the FLOP
// counts of the op (useful work, not padded tiles) and the plain datasheet roofline.
#include "common/errors.h"
#include "hardware/derived.h"
#include "model/attention_impl.h"
#include "model/cost_models.h"
#include "model/kernel_terms.h"
#include "model/op_cost.h"
#include "workloads/op_math.h"

#include <algorithm>

namespace ridgeline {

namespace {

struct Dispatch {
  const GpuSpec& gpu;
  const Op& op;  // the memory-bound models read where its inputs come from (warm_l2)
  OpCost operator()(const GemmOp& g) const { return gemm_cost(g, gpu); }
  OpCost operator()(const AttentionOp& a) const { return attention_impl_cost(a, gpu); }
  OpCost operator()(const ElementwiseOp& e) const { return elementwise_cost(e, op, gpu); }
  OpCost operator()(const ReduceOp& r) const { return reduce_cost(r, op, gpu); }
  OpCost operator()(const RowOp& r) const { return row_op_cost(r, op, gpu); }
  OpCost operator()(const CollectiveOp&) const {
    throw InputError(located(op.id.empty() ? "op" : op.id,
                             "a collective needs a cluster (collective_cost, --cluster)"));
  }
};

// The unit whose datasheet peak bounds the op in a plain roofline.
MathUnit roofline_unit(const Op& op, const GpuSpec& gpu) {
  if (auto* g = std::get_if<GemmOp>(&op.shape)) return gemm_unit(gpu, g->dtype);
  if (auto* a = std::get_if<AttentionOp>(&op.shape)) return matrix_unit(gpu, a->dtype);
  return MathUnit::VectorFp32;
}

}  // namespace

double plain_roofline_us(const Op& op, const GpuSpec& gpu) {
  OpWork w = op_work(op);
  double compute_s = w.total_flops() / peak_flops_per_s(gpu, roofline_unit(op, gpu));
  double memory_s = w.unique_bytes() / hbm_bytes_per_s(gpu);
  return std::max(compute_s, memory_s) * 1e6;
}

OpCost predict_op(const Op& op, const GpuSpec& gpu) {
  OpCost c = std::visit(Dispatch{gpu, op}, op.shape);
  OpWork w = op_work(op);
  c.matrix_flops = w.matrix_flops;
  c.vector_flops = w.vector_flops;
  c.sfu_ops = w.sfu_ops;
  c.roofline_us = plain_roofline_us(op, gpu);
  if (auto* r = std::get_if<RowOp>(&op.shape)) c.impl = row_impl_name(r->impl);
  if (auto* e = std::get_if<ElementwiseOp>(&op.shape)) c.impl = elementwise_impl_name(*e);
  return c;
}

}  // namespace ridgeline
