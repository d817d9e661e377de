// The one-line op constructors of workloads/builder_ops.h: GEMMs typed by the weights they read
// (the run's precision and quantization, MXFP4 experts, the 16-bit LM head under quantized
// weights), elementwise and row ops, strided views and repeat_kv's copy.
#include "workloads/builder_ops.h"

namespace ridgeline {

Op gemm_op(int64_t m, int64_t n, int64_t k, DType d, int64_t batch) {
  GemmOp g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.batch = batch;
  g.dtype = d;
  return Op{"", g, false};
}

Op weight_gemm(int64_t m, int64_t n, int64_t k, const RunConfig& run) {
  Op op = gemm_op(m, n, k, run.weights);
  std::get<GemmOp>(op.shape).weight_bits = run.weight_bits;
  return op;
}
Op head_weight_gemm(int64_t m, int64_t n, int64_t k, const RunConfig& run) {
  if (!weights_quantized(run)) return weight_gemm(m, n, k, run);
  return gemm_op(m, n, k, table_weight_dtype(run));
}
Op expert_weight_gemm(int64_t m, int64_t n, int64_t k, const RunConfig& run) {
  if (!run.mxfp4_experts) return weight_gemm(m, n, k, run);
  DType math = run.activations == DType::Fp8 ? DType::Bf16 : run.activations;
  Op op = gemm_op(m, n, k, math);
  std::get<GemmOp>(op.shape).weight_bits = kMxfp4BitsPerWeight;
  return op;
}
Op ew_op(ElementwiseKind kind, int64_t numel, DType d) {
  return Op{"", ElementwiseOp{kind, numel, d, false, {}}, false};
}
Op row_op(RowOpKind kind, int64_t rows, int64_t cols, DType d, const RowLaunch& launch) {
  return Op{"", RowOp{kind, rows, cols, d, RowImpl::SinglePass, launch}, false};
}

Op strided(Op op, int view_dims) {
  auto& e = std::get<ElementwiseOp>(op.shape);
  e.strided = true;
  e.view_dims = view_dims;
  return op;
}

Op repeat_kv_op(int64_t out_numel, int64_t n_rep, DType d) {
  Op op = ew_op(ElementwiseKind::Copy, out_numel, d);
  std::get<ElementwiseOp>(op.shape).input_reuse = n_rep;
  return op;
}

}  // namespace ridgeline
