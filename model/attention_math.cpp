// SDPA's math backend (at::_scaled_dot_product_attention_math) as the kernels PyTorch 2.11 runs
// for 16-bit inputs on CUDA, read off an H200 profile (validate/data/h200-sxm-hf-kernels-*.json,
// "math" records: 16 kernels in decode, 22 in causal prefill): q, k and v cast to fp32 (three
// copies), with GQA k and v expanded to every query head (ATen's generic strided copy), q and k
// each scaled by sqrt(scale), scores = q.k^T as an FP32 CUDA-core bmm (cuBLAS' sgemm, or a
// gemv in decode), with a causal mask built over q_len x kv_len and added to the scores, softmax
// over kv_len (ATen's, paying for the -inf scores), _safe_softmax's isneginf / all / where passes
// over the scores, out = p.v (a second FP32 bmm), the output and the attention weights (the math
// function returns them too) cast back. Each is priced by its own kernel model; the time is their
// sum (back to back, as in a CUDA graph).
#include "common/errors.h"
#include "model/attention_impl.h"
#include "model/kernel_terms.h"
#include "workloads/op_math.h"
#include "workloads/runtime_profile.h"

#include <algorithm>
#include <vector>

namespace ridgeline {

namespace {

Op elementwise(ElementwiseKind k, double numel, DType d, bool strided = false,
               std::optional<DType> out = std::nullopt) {
  ElementwiseOp e;
  e.kind = k;
  e.numel = std::max<int64_t>(1, (int64_t)numel);
  e.dtype = d;
  e.strided = strided;
  e.out_dtype = out;
  return Op{"", e, false};
}

// One of the math path's two FP32 batched matmuls (scores = q.k^T, out = p.v).
Op fp32_bmm(int64_t batch, int64_t m, int64_t n, int64_t k) {
  GemmOp g;
  g.batch = batch;
  g.m = m;
  g.n = n;
  g.k = k;
  g.dtype = DType::Fp32;
  return Op{"", g, false};
}

std::vector<Op> math_kernels(const AttentionOp& a) {
  double b = (double)a.batch, h = (double)a.heads, hk = (double)a.kv_heads;
  double s = (double)a.q_len, l = (double)a.kv_len, d = (double)a.head_dim;
  double q = b * h * s * d, kv = b * hk * l * d, scores = b * h * s * l;
  std::vector<Op> ops;
  bool cast = a.dtype != DType::Fp32;
  if (cast) {  // to fp32 for the math
    ops.push_back(elementwise(ElementwiseKind::Copy, q, a.dtype, false, DType::Fp32));
    for (int i = 0; i < 2; ++i)
      ops.push_back(elementwise(ElementwiseKind::Copy, kv, a.kv_storage(), false, DType::Fp32));
  }
  if (a.heads != a.kv_heads) {  // k and v repeated to every query head
    for (int i = 0; i < 2; ++i)
      ops.push_back(elementwise(ElementwiseKind::Copy, b * h * l * d, DType::Fp32, true));
  }
  ops.push_back(elementwise(ElementwiseKind::MulScalar, q, DType::Fp32));  // q * sqrt(scale)
  ops.push_back(elementwise(ElementwiseKind::MulScalar, b * h * l * d, DType::Fp32));  // k's
  ops.push_back(fp32_bmm(a.batch * a.heads, a.q_len, a.kv_len, a.head_dim));           // q.k^T
  if (a.causal) {  // the mask: ones, tril, its float bias (fills, masked_fill)
    ops.push_back(elementwise(ElementwiseKind::Copy, s * l, DType::Fp8));
    ops.push_back(elementwise(ElementwiseKind::Copy, s * l, DType::Fp8, true));
    ops.push_back(elementwise(ElementwiseKind::Copy, s * l, DType::Fp32, true));
  }
  if (a.causal || a.additive_mask)  // the bias (built, or the caller's) added to the scores
    ops.push_back(elementwise(ElementwiseKind::Add, scores, DType::Fp32, true));
  RowOp soft;
  soft.kind = RowOpKind::Softmax;
  soft.rows = std::max<int64_t>(1, a.batch * a.heads * a.q_len);
  soft.cols = a.kv_len;
  soft.dtype = DType::Fp32;
  soft.impl = RowImpl::PyTorch;
  soft.launch = default_runtime().launch.rows;
  if (a.causal && a.kv_len > 0)  // the causal bias's -inf scores, which ATen's exp pays for
    soft.masked_fraction = masked_keys_per_row(a.q_len, a.kv_len, a.kv_len, true, 0) / l;
  ops.push_back(Op{"", soft, false});
  // _safe_softmax: isneginf (4 bytes in, 1 out), all over each row, where(all, 0, p)
  ops.push_back(elementwise(ElementwiseKind::Copy, scores, DType::Fp32, false, DType::Fp8));
  ops.push_back(elementwise(ElementwiseKind::Copy, scores / 2, DType::Fp8));
  ops.push_back(elementwise(ElementwiseKind::Copy, scores, DType::Fp32, true));
  ops.push_back(fp32_bmm(a.batch * a.heads, a.q_len, a.head_dim, a.kv_len));  // p.v
  if (cast) {  // the output and the attention weights it also returns, cast back
    ops.push_back(elementwise(ElementwiseKind::Copy, q, DType::Fp32, false, a.dtype));
    ops.push_back(elementwise(ElementwiseKind::Copy, scores, DType::Fp32, false, a.dtype));
  }
  return ops;
}

}  // namespace

OpCost math_attention_cost(const AttentionOp& a, const GpuSpec& gpu) {
  OpCost c;
  double top = -1;
  for (const Op& op : math_kernels(a)) {
    OpCost k = predict_op(op, gpu);
    c.time_us += k.time_us;
    c.compute_us += k.compute_us;
    c.hbm_us += k.hbm_us;
    c.l2_us += k.l2_us;
    c.smem_us += k.smem_us;
    c.overhead_us += k.overhead_us;
    c.bytes.hbm += k.bytes.hbm;
    c.bytes.l2 += k.bytes.l2;
    c.bytes.smem += k.bytes.smem;
    if (k.time_us > top) {  // the slowest kernel's bound and launch stand for the op's
      top = k.time_us;
      c.bottleneck = k.bottleneck;
      c.detail = k.detail;
    }
  }
  c.detail.kernels = (int)math_kernels(a).size();
  return c;
}

}  // namespace ridgeline
