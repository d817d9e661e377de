// Names of op kinds and dtypes; see op.h.
#include "workloads/op.h"

namespace ridgeline {

const char* dtype_name(DType d) {
  switch (d) {
    case DType::Fp32:
      return "fp32";
    case DType::Tf32:
      return "tf32";
    case DType::Bf16:
      return "bf16";
    case DType::Fp16:
      return "fp16";
    case DType::Fp8:
      return "fp8";
  }
  return "?";
}

std::optional<DType> parse_dtype(const std::string& name) {
  for (DType d : {DType::Fp32, DType::Tf32, DType::Bf16, DType::Fp16, DType::Fp8}) {
    if (name == dtype_name(d)) return d;
  }
  return std::nullopt;
}

double dtype_bytes(DType d) {
  switch (d) {
    case DType::Fp32:
    case DType::Tf32:
      return 4;
    case DType::Bf16:
    case DType::Fp16:
      return 2;
    case DType::Fp8:
      return 1;
  }
  return 0;
}

const char* elementwise_kind_name(ElementwiseKind k) {
  switch (k) {
    case ElementwiseKind::Copy:
      return "copy";
    case ElementwiseKind::Add:
      return "add";
    case ElementwiseKind::Mul:
      return "mul";
    case ElementwiseKind::MulScalar:
      return "mul_scalar";
    case ElementwiseKind::Gelu:
      return "gelu";
    case ElementwiseKind::Silu:
      return "silu";
    case ElementwiseKind::SiluMul:
      return "silu_mul";
    case ElementwiseKind::AdamW:
      return "adamw";
  }
  return "?";
}

const char* reduce_kind_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum:
      return "sum";
    case ReduceKind::Max:
      return "max";
    case ReduceKind::Mean:
      return "mean";
  }
  return "?";
}

const char* row_op_kind_name(RowOpKind k) {
  switch (k) {
    case RowOpKind::RmsNorm:
      return "rmsnorm";
    case RowOpKind::LayerNorm:
      return "layernorm";
    case RowOpKind::Softmax:
      return "softmax";
    case RowOpKind::RmsNormBackward:
      return "rmsnorm_backward";
    case RowOpKind::LayerNormBackward:
      return "layernorm_backward";
    case RowOpKind::SoftmaxBackward:
      return "softmax_backward";
  }
  return "?";
}

const char* op_family(const Op& op) {
  struct {
    const char* operator()(const GemmOp&) const { return "gemm"; }
    const char* operator()(const AttentionOp& a) const {
      return a.backward ? "attention_backward" : "attention";
    }
    const char* operator()(const ElementwiseOp&) const { return "elementwise"; }
    const char* operator()(const ReduceOp&) const { return "reduce"; }
    const char* operator()(const RowOp& r) const { return row_op_kind_name(r.kind); }
  } name;
  return std::visit(name, op.shape);
}

}  // namespace ridgeline
