// Names of op kinds and dtypes, one NameTable each (parsing and printing read the same table);
// see op.h.
#include "workloads/op.h"

namespace ridgeline {

const NameTable<DType>& dtype_names() {
  static const NameTable<DType> t = {{DType::Fp32, "fp32"}, {DType::Tf32, "tf32"},
                                     {DType::Bf16, "bf16"}, {DType::Fp16, "fp16"},
                                     {DType::Fp8, "fp8"},   {DType::Fp4, "nvfp4"}};
  return t;
}

const NameTable<ElementwiseKind>& elementwise_kinds() {
  static const NameTable<ElementwiseKind> t = {
      {ElementwiseKind::Copy, "copy"},        {ElementwiseKind::Add, "add"},
      {ElementwiseKind::Mul, "mul"},          {ElementwiseKind::MulScalar, "mul_scalar"},
      {ElementwiseKind::Gelu, "gelu"},        {ElementwiseKind::Silu, "silu"},
      {ElementwiseKind::SiluMul, "silu_mul"}, {ElementwiseKind::Relu2, "relu2"},
      {ElementwiseKind::AdamW, "adamw"},      {ElementwiseKind::Cat, "cat"}};
  return t;
}

const NameTable<ReduceKind>& reduce_kinds() {
  static const NameTable<ReduceKind> t = {
      {ReduceKind::Sum, "sum"}, {ReduceKind::Max, "max"}, {ReduceKind::Mean, "mean"}};
  return t;
}

const NameTable<RowOpKind>& row_op_kinds() {
  static const NameTable<RowOpKind> t = {{RowOpKind::RmsNorm, "rmsnorm"},
                                         {RowOpKind::LayerNorm, "layernorm"},
                                         {RowOpKind::Softmax, "softmax"},
                                         {RowOpKind::RmsNormBackward, "rmsnorm_backward"},
                                         {RowOpKind::LayerNormBackward, "layernorm_backward"},
                                         {RowOpKind::SoftmaxBackward, "softmax_backward"}};
  return t;
}

const NameTable<AttentionImpl>& attention_impls() {
  static const NameTable<AttentionImpl> t = {
      {AttentionImpl::Cudnn, "cudnn"},   {AttentionImpl::Flash2, "flash2"},
      {AttentionImpl::Flash3, "flash3"}, {AttentionImpl::Efficient, "efficient"},
      {AttentionImpl::Math, "math"},     {AttentionImpl::FlashMla, "flashmla"}};
  return t;
}

const NameTable<RowImpl>& row_impls() {
  static const NameTable<RowImpl> t = {{RowImpl::PyTorch, "aten"}, {RowImpl::SinglePass, "triton"}};
  return t;
}

const char* attention_impl_name(AttentionImpl i) {
  return attention_impls().name(i);
}
const char* row_impl_name(RowImpl i) {
  return row_impls().name(i);
}
const NameTable<AdamwImpl>& adamw_impls() {
  static const NameTable<AdamwImpl> t = {{AdamwImpl::Fused, "fused"},
                                         {AdamwImpl::Foreach, "foreach"},
                                         {AdamwImpl::ForLoop, "for-loop"}};
  return t;
}

const char* elementwise_impl_name(const ElementwiseOp& e) {
  if (e.kind == ElementwiseKind::AdamW) return adamw_impls().name(e.adamw);
  return e.strided ? "generic" : "vectorized";
}

const NameTable<CollectiveKind>& collective_kinds() {
  static const NameTable<CollectiveKind> t = {
      {CollectiveKind::AllReduce, "all_reduce"},         {CollectiveKind::AllGather, "all_gather"},
      {CollectiveKind::ReduceScatter, "reduce_scatter"}, {CollectiveKind::AllToAll, "all_to_all"},
      {CollectiveKind::Broadcast, "broadcast"},          {CollectiveKind::SendRecv, "send_recv"}};
  return t;
}

const char* collective_kind_name(CollectiveKind k) {
  return collective_kinds().name(k);
}

const char* dtype_name(DType d) {
  return dtype_names().name(d);
}

std::optional<DType> parse_dtype(const std::string& name) {
  return dtype_names().parse(name);
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
    case DType::Fp4:
      return kNvfp4BitsPerElement / 8;
  }
  return 0;
}

const char* elementwise_kind_name(ElementwiseKind k) {
  return elementwise_kinds().name(k);
}

const char* reduce_kind_name(ReduceKind k) {
  return reduce_kinds().name(k);
}

const char* row_op_kind_name(RowOpKind k) {
  return row_op_kinds().name(k);
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
    const char* operator()(const CollectiveOp&) const { return "collective"; }
  } name;
  return std::visit(name, op.shape);
}

}  // namespace ridgeline
