// The rules of reading one op in the `ridgeline op` contract, written once over any reader with
// JsonReader's typed calls (has, integer, string, one_of, boolean, non_negative, fail, finish,
// and op_id: the "id" as text, a string or an integer). op_parse.cpp runs them over a
// JsonReader (nlohmann, every error message); op_parse_fast.cpp over a flat simdjson reader
// that gives up on the first irregularity so that the JsonReader path says what is wrong.
#pragma once

#include "workloads/op.h"
#include "workloads/op_parse.h"
#include "workloads/runtime_profile.h"

#include <cmath>
#include <string>
#include <vector>

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
  if (!d)
    r.fail(key, "unknown dtype \"" + name + "\"; expected fp32, tf32, bf16, fp16, fp8 or nvfp4");
  for (DType a : allowed) {
    if (a == *d) return *d;
  }
  r.fail(key, std::string(why) + "; got " + name);
}

// "impl": one of the op kind's implementations (`kind` names the op in the message). A name
// that belongs to another op kind's implementations gets its own message.
template <class Reader, class E>
E read_impl(Reader& r, const NameTable<E>& table, const std::string& kind) {
  std::string name = r.string("impl");
  if (auto v = table.parse(name)) return *v;
  std::string list;
  for (const auto& n : table.names()) list += (list.empty() ? "" : ", ") + n;
  bool elsewhere = attention_impls().parse(name) || row_impls().parse(name) ||
                   adamw_impls().parse(name) || name == "vectorized" || name == "generic";
  if (elsewhere)
    r.fail("impl",
           "\"" + name + "\" is not an implementation of " + kind + "; " + kind + " takes " + list);
  r.fail("impl", "unknown implementation \"" + name + "\"; " + kind + " takes " + list);
}

// What an attention implementation runs (the GPU's limits are checked when it is predicted,
// model/attention_impl.h): FlashAttention and cuDNN in 16-bit (FlashAttention-3 and cuDNN also
// fp8) with head_dim up to 256; the memory-efficient kernel and math in fp32, bf16 or fp16 with
// any head_dim. Without "impl", an fp32 or head_dim > 256 op is the one SDPA falls back to.
template <class Reader>
void check_attention_impl(Reader& r, const AttentionOp& a) {
  if (!a.impl) return;
  AttentionImpl i = *a.impl;
  std::string name = attention_impl_name(i);
  if (i == AttentionImpl::FlashMla)
    r.fail("impl",
           "flashmla runs MLA's absorbed decode over the latent cache, which op lines do not "
           "describe (predict a DeepSeek model with --runtime fused)");
  bool fused =
      i == AttentionImpl::Cudnn || i == AttentionImpl::Flash2 || i == AttentionImpl::Flash3;
  if (fused && a.dtype == DType::Fp32)
    r.fail("impl", name + " runs in bf16 or fp16, not fp32 (efficient and math take fp32)");
  bool fp8 = i == AttentionImpl::Cudnn || i == AttentionImpl::Flash3;
  if (!fp8 && (a.dtype == DType::Fp8 || a.kv_storage() == DType::Fp8))
    r.fail(a.dtype == DType::Fp8 ? "impl" : "kv_dtype",
           name + " does not read fp8 (cudnn and flash3 do)");
  if ((i == AttentionImpl::Flash2 || i == AttentionImpl::Flash3) && a.additive_mask)
    r.fail("impl", name + " takes no additive mask (SDPA runs cudnn, efficient or math with one)");
  if (fused && a.head_dim > 256)
    r.fail("head_dim", name + " supports head_dim up to 256 (efficient and math take more); got " +
                           std::to_string(a.head_dim));
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
  // Routed rows: routed_tokens tokens each sent to top_k of the groups (experts) at random, so
  // each expert's rows are Binomial(routed_tokens, top_k / groups) and m is their mean.
  if (r.has("routed_tokens") || r.has("top_k")) {
    const char* key = r.has("routed_tokens") ? "top_k" : "routed_tokens";
    if (!r.has(key)) r.fail(key, "routed rows take routed_tokens and top_k together");
    if (g.groups <= 0) r.fail("routed_tokens", "routed rows are a grouped GEMM's (give groups)");
    if (g.groups != std::floor(g.groups))
      r.fail("groups", "with routed rows, groups is the experts: a whole number");
    int64_t tokens = dim(r, "routed_tokens"), top_k = dim(r, "top_k");
    auto experts = (int64_t)g.groups;
    if (top_k > experts)
      r.fail("top_k", std::to_string(top_k) + " is more than the " + std::to_string(experts) +
                          " experts (groups)");
    int64_t mean = (tokens * top_k + experts - 1) / experts;
    if (g.m != mean)
      r.fail("m",
             "with routed rows m is an expert's mean rows, ceil(routed_tokens x top_k / "
             "groups) = " +
                 std::to_string(mean) + "; got " + std::to_string(g.m));
    g.routed = {experts, (double)tokens, (double)top_k / (double)experts};
  }
  g.dtype = read_dtype(
      r, {DType::Fp32, DType::Tf32, DType::Bf16, DType::Fp16, DType::Fp8, DType::Fp4}, "");
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
  if (r.has("additive_mask")) a.additive_mask = r.boolean("additive_mask");
  a.dtype = read_dtype(r, {DType::Fp32, DType::Bf16, DType::Fp16, DType::Fp8},
                       "attention runs in fp32, bf16, fp16 or fp8");
  if (r.has("impl")) a.impl = read_impl(r, attention_impls(), "attention");
  if (r.has("kv_dtype")) {  // the KV cache's storage, dequantized as the kernel loads it
    DType kv = read_dtype(r, {DType::Bf16, DType::Fp16, DType::Fp8},
                          "a KV cache is stored in bf16, fp16 or fp8", "kv_dtype");
    if (kv != a.dtype) a.kv_dtype = kv;
  }
  if (a.heads % a.kv_heads != 0) {
    r.fail("kv_heads", "heads (" + std::to_string(a.heads) + ") must be a multiple of kv_heads (" +
                           std::to_string(a.kv_heads) + ")");
  }
  check_attention_impl(r, a);
  return a;
}

constexpr std::initializer_list<DType> kStorageTypes = {DType::Fp32, DType::Bf16, DType::Fp16,
                                                        DType::Fp8};
constexpr const char* kNotStorage = "tf32 is a tensor-core mode, not a storage type";

// An AdamW step over `numel` parameters in `tensors` tensors (params, grads and both moments in
// dtype): torch.optim.AdamW's default on CUDA is foreach; "impl" says fused or for-loop.
template <class Reader>
void read_adamw(Reader& r, ElementwiseOp& e) {
  if (e.dtype == DType::Fp8) r.fail("dtype", "AdamW keeps its parameters in fp32, bf16 or fp16");
  if (r.has("strided")) r.fail("strided", "an AdamW step takes no strided (its tensors are whole)");
  if (r.has("view_dims"))
    r.fail("view_dims", "an AdamW step has no view dims (its tensors are whole)");
  e.tensors = dim(r, "tensors");
  if (e.tensors > e.numel) r.fail("tensors", "more tensors than parameters (numel)");
  e.adamw = AdamwImpl::Foreach;
  if (r.has("impl")) e.adamw = read_impl(r, adamw_impls(), "adamw");
}

template <class Reader>
ElementwiseOp read_elementwise(Reader& r) {
  // A cat is a workload's kernel, not a `ridgeline op` input.
  ElementwiseOp e;
  static const std::vector<std::string> kKinds = elementwise_kinds().names({ElementwiseKind::Cat});
  e.kind = *elementwise_kinds().parse(r.one_of("kind", kKinds));
  e.numel = dim(r, "numel");
  e.dtype = read_dtype(r, kStorageTypes, kNotStorage);
  if (r.has("out_dtype")) {  // a cast
    if (e.kind != ElementwiseKind::Copy)
      r.fail("out_dtype", "only a copy casts (\"kind\": \"copy\" with out_dtype)");
    DType out = read_dtype(r, kStorageTypes, kNotStorage, "out_dtype");
    if (out != e.dtype) e.out_dtype = out;
  }
  if (e.kind == ElementwiseKind::AdamW) {
    read_adamw(r, e);
    return e;
  }
  if (r.has("tensors")) r.fail("tensors", "only an AdamW step (\"kind\": \"adamw\") takes tensors");
  if (r.has("strided")) e.strided = r.boolean("strided");
  if (r.has("impl")) {  // the vectorized path on contiguous operands, ATen's generic one on views
    static const NameTable<bool> kPaths = {{false, "vectorized"}, {true, "generic"}};
    bool generic = read_impl(r, kPaths, "elementwise");
    if (r.has("strided") && generic != e.strided)
      r.fail("impl", std::string(generic ? "generic" : "vectorized") +
                         " contradicts \"strided\": " + (e.strided ? "true" : "false") +
                         " (strided operands run generic)");
    e.strided = generic;
  }
  if (r.has("view_dims")) {  // how the strided operands coalesce
    if (!e.strided) r.fail("view_dims", "only a strided op (\"strided\": true) has view dims");
    long long d = r.integer("view_dims", 1);
    if (d > kMaxViewDims)
      r.fail("view_dims", "at most " + std::to_string(kMaxViewDims) + " (ATen's MAX_DIMS), got " +
                              std::to_string(d));
    e.view_dims = (int)d;
  }
  return e;
}

template <class Reader>
ReduceOp read_reduce(Reader& r) {
  ReduceOp x;
  static const std::vector<std::string> kKinds = reduce_kinds().names();
  x.kind = *reduce_kinds().parse(r.one_of("kind", kKinds));
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
  // torch.rms_norm, F.layer_norm and softmax run ATen's own kernels unless "impl" says triton
  // (a single-pass kernel: the row read once into registers).
  x.impl = RowImpl::PyTorch;
  if (r.has("impl")) x.impl = read_impl(r, row_impls(), row_op_kind_name(kind));
  if (r.has("masked_fraction")) {  // the share of each row's values a mask set to the min
    if (kind != RowOpKind::Softmax)
      r.fail("masked_fraction", "only softmax takes masked_fraction (masked attention scores)");
    if (x.impl != RowImpl::PyTorch)
      r.fail("masked_fraction",
             "only ATen's softmax (impl aten) pays for masked values; the single-pass (triton) "
             "kernel's fast exp does not");
    x.masked_fraction = r.non_negative("masked_fraction");
    if (x.masked_fraction > 1) r.fail("masked_fraction", "a fraction of each row: at most 1");
  }
  return x;
}

template <class Reader>
Op read_op(Reader& r, const std::string& fallback_id) {
  Op op;
  op.id = fallback_id;
  if (r.has("id")) op.id = r.op_id("id");
  static const std::vector<std::string> kKinds = {"gemm",    "attention", "elementwise", "reduce",
                                                  "rmsnorm", "layernorm", "softmax"};
  std::string kind = r.one_of("op", kKinds);  // a static list: no allocation a line
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
  if (r.has("strided") && kind != "elementwise")
    r.fail("strided", "only elementwise ops take strided (operands that are strided views)");
  if (r.has("view_dims") && kind != "elementwise")
    r.fail("view_dims", "only elementwise ops take view_dims (how their strided views coalesce)");
  if (r.has("impl") && (kind == "gemm" || kind == "reduce"))
    r.fail("impl", kind +
                       " has no implementation choice (attention, rmsnorm, layernorm, softmax "
                       "and elementwise ops take \"impl\")");
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
