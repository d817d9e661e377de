// The rules of reading one op in the `ridgeline op` contract, written once over any reader with
// JsonReader's typed calls (has, integer, string, one_of, boolean, non_negative, fail, finish,
// and op_id: the "id" as text, a string or an integer). op_parse.cpp runs them over a
// JsonReader (nlohmann, every error message); op_parse_fast.cpp over a flat simdjson reader
// that gives up on the first irregularity so that the JsonReader path says what is wrong.
#pragma once

#include "workloads/op.h"
#include "workloads/op_parse.h"
#include "workloads/runtime_profile.h"

#include <string>

namespace ridgeline::op_rules {

template <class Reader>
int64_t dim(Reader& r, const char* key) {
  long long v = r.integer(key, 1);
  if (v > kMaxDimension) r.fail(key, "too large (the limit is 2^40)");
  return v;
}

template <class Reader>
DType read_dtype(Reader& r, std::initializer_list<DType> allowed, const char* why,
                 const char* key = "dtype") {
  std::string name = r.string(key);
  auto d = parse_dtype(name);
  if (!d) r.fail(key, "unknown dtype \"" + name + "\"; expected fp32, tf32, bf16, fp16 or fp8");
  for (DType a : allowed) {
    if (a == *d) return *d;
  }
  r.fail(key, std::string(why) + "; got " + name);
}

template <class Reader>
GemmOp read_gemm(Reader& r) {
  GemmOp g;
  g.m = dim(r, "m");
  g.n = dim(r, "n");
  g.k = dim(r, "k");
  if (r.has("batch")) g.batch = dim(r, "batch");
  if (r.has("groups")) {  // a grouped GEMM: one B per group, each against m rows of A
    if (g.batch != 1) r.fail("groups", "a grouped GEMM takes groups or batch, not both");
    g.groups = r.positive("groups");
    if (g.groups > (double)kMaxDimension) r.fail("groups", "too large (the limit is 2^40)");
  }
  g.dtype = read_dtype(r, {DType::Fp32, DType::Tf32, DType::Bf16, DType::Fp16, DType::Fp8}, "");
  return g;
}

template <class Reader>
AttentionOp read_attention(Reader& r) {
  AttentionOp a;
  a.batch = dim(r, "batch");
  a.heads = dim(r, "heads");
  a.kv_heads = dim(r, "kv_heads");
  a.head_dim = dim(r, "head_dim");
  a.q_len = dim(r, "q_len");
  a.kv_len = dim(r, "kv_len");
  a.causal = r.boolean("causal");
  a.dtype = read_dtype(r, {DType::Bf16, DType::Fp16, DType::Fp8},
                       "flash attention runs in bf16, fp16 or fp8");
  if (r.has("kv_dtype")) {  // the KV cache's storage, dequantized as the kernel loads it
    DType kv = read_dtype(r, {DType::Bf16, DType::Fp16, DType::Fp8},
                          "a KV cache is stored in bf16, fp16 or fp8", "kv_dtype");
    if (kv != a.dtype) a.kv_dtype = kv;
  }
  if (a.heads % a.kv_heads != 0) {
    r.fail("kv_heads", "heads (" + std::to_string(a.heads) + ") must be a multiple of kv_heads (" +
                           std::to_string(a.kv_heads) + ")");
  }
  if (a.head_dim > 256) r.fail("head_dim", "flash attention supports head_dim up to 256");
  return a;
}

constexpr std::initializer_list<DType> kStorageTypes = {DType::Fp32, DType::Bf16, DType::Fp16,
                                                        DType::Fp8};
constexpr const char* kNotStorage = "tf32 is a tensor-core mode, not a storage type";

template <class Reader>
ElementwiseOp read_elementwise(Reader& r) {
  // An optimizer step is a training op, and a cat a workload's kernel: not `ridgeline op` inputs.
  ElementwiseOp e;
  e.kind = *elementwise_kinds().parse(
      r.one_of("kind", elementwise_kinds().names({ElementwiseKind::AdamW, ElementwiseKind::Cat})));
  e.numel = dim(r, "numel");
  e.dtype = read_dtype(r, kStorageTypes, kNotStorage);
  if (r.has("out_dtype")) {  // a cast
    if (e.kind != ElementwiseKind::Copy)
      r.fail("out_dtype", "only a copy casts (\"kind\": \"copy\" with out_dtype)");
    DType out = read_dtype(r, kStorageTypes, kNotStorage, "out_dtype");
    if (out != e.dtype) e.out_dtype = out;
  }
  return e;
}

template <class Reader>
ReduceOp read_reduce(Reader& r) {
  ReduceOp x;
  x.kind = *reduce_kinds().parse(r.one_of("kind", reduce_kinds().names()));
  x.numel = dim(r, "numel");
  x.dtype = read_dtype(r, kStorageTypes, kNotStorage);
  x.launch = default_runtime().launch.reduction;  // an op line runs PyTorch's (ATen's) launch
  return x;
}

template <class Reader>
RowOp read_row_op(Reader& r, RowOpKind kind) {
  RowOp x;
  x.kind = kind;
  x.rows = dim(r, "rows");
  x.cols = dim(r, "cols");
  x.dtype = read_dtype(r, {DType::Fp32, DType::Bf16, DType::Fp16},
                       "normalizations run in fp32, bf16 or fp16");
  x.launch = default_runtime().launch.rows;  // an op line runs PyTorch's (ATen's) launch
  return x;
}

template <class Reader>
Op read_op(Reader& r, const std::string& fallback_id) {
  Op op;
  op.id = fallback_id;
  if (r.has("id")) op.id = r.op_id("id");
  std::string kind = r.one_of(
      "op", {"gemm", "attention", "elementwise", "reduce", "rmsnorm", "layernorm", "softmax"});
  if (kind == "gemm")
    op.shape = read_gemm(r);
  else if (kind == "attention")
    op.shape = read_attention(r);
  else if (kind == "elementwise")
    op.shape = read_elementwise(r);
  else if (kind == "reduce")
    op.shape = read_reduce(r);
  else  // a norm or softmax, named as its RowOpKind
    op.shape = read_row_op(r, *row_op_kinds().parse(kind));
  if (r.has("warm_l2")) {
    if (kind == "gemm" || kind == "attention") {
      r.fail("warm_l2", "only memory-bound ops (elementwise, reduce, norms) take warm_l2");
    }
    op.warm_l2 = r.boolean("warm_l2");
  }
  if (r.has("strided")) {
    if (kind != "elementwise")
      r.fail("strided", "only elementwise ops take strided (operands that are strided views)");
    std::get<ElementwiseOp>(op.shape).strided = r.boolean("strided");
  }
  if (r.has("l2_working_set_bytes")) {
    if (!op.warm_l2) {
      r.fail("l2_working_set_bytes", "only with \"warm_l2\": true (what else L2 holds then)");
    }
    op.l2_working_set_bytes = r.non_negative("l2_working_set_bytes");
  }
  r.finish();
  return op;
}

}  // namespace ridgeline::op_rules
