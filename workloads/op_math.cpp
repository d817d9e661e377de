// FLOPs and operand bytes of each op kind; see op_math.h.
#include "workloads/op_math.h"

#include "common/errors.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

ElementwiseInfo elementwise_info(ElementwiseKind k) {
  switch (k) {
    case ElementwiseKind::Copy:
    case ElementwiseKind::Cat:
      return {1, 0, 0};
    case ElementwiseKind::Add:
      return {2, 1, 0};
    case ElementwiseKind::Mul:
      return {2, 1, 0};
    case ElementwiseKind::MulScalar:
      return {1, 1, 0};
    case ElementwiseKind::Gelu:
      return {1, 14, 0};  // erf by polynomial, 0.5*x*(1+erf(x/sqrt2))
    case ElementwiseKind::Silu:
      return {1, 3, 2};  // x / (1 + exp(-x)): exp and reciprocal
    case ElementwiseKind::SiluMul:
      return {2, 4, 2};
    case ElementwiseKind::Relu2:
      return {1, 2, 0};  // max(x, 0), then its square
    case ElementwiseKind::AdamW:
      return {4, 16, 1, 3};  // moments, bias correction, sqrt, decay; writes param, m, v
  }
  return {1, 0, 0};
}

double attention_pairs(const AttentionOp& a) {
  double q = (double)a.q_len, kv = (double)a.kv_len;
  if (!a.causal) return q * kv;
  if (kv >= q) return q * (kv - q) + q * (q + 1) / 2;
  return kv * (kv + 1) / 2;  // queries before the first key see nothing
}

double masked_keys_per_row(int64_t q_len, int64_t keys, int64_t filled, bool causal,
                           int64_t window) {
  require_invariant(q_len > 0 && filled >= 0 && keys >= filled, "a score row's keys");
  double w = window > 0 ? (double)window : (double)filled;
  // The keys a row sees, summed over 1..n rows seeing 1, 2, ... n keys, at most w each.
  auto seen_up_to = [w](double n) {
    if (n <= 0) return 0.0;
    return n <= w ? n * (n + 1) / 2 : w * (w + 1) / 2 + (n - w) * w;
  };
  double q = (double)q_len, f = (double)filled;
  double kept = causal ? (seen_up_to(f) - seen_up_to(f - q)) / q : std::min(f, w);
  return (double)keys - kept;
}

double gemm_output_bytes(DType d) {
  return d == DType::Fp8 || d == DType::Fp4 ? 2 : dtype_bytes(d);
}

namespace {

struct WorkOf {
  OpWork operator()(const GemmOp& g) const {
    OpWork w;
    double b = g.problems(), m = (double)g.m, n = (double)g.n, k = (double)g.k;
    w.matrix_flops = 2 * b * m * n * k;
    double b_bytes = g.weight_bits > 0 ? g.weight_bits / 8.0 : dtype_bytes(g.dtype);
    w.bytes_read = b * (m * k * dtype_bytes(g.dtype) + n * k * b_bytes);
    w.bytes_written = b * m * n * gemm_output_bytes(g.dtype);
    return w;
  }
  OpWork operator()(const AttentionOp& a) const {
    OpWork w;
    double pairs = attention_pairs(a) * (double)a.batch * (double)a.heads;
    double e = dtype_bytes(a.dtype), e_kv = dtype_bytes(a.kv_storage());
    double q = (double)a.batch * a.heads * a.q_len * a.head_dim;
    double o = (double)a.batch * a.heads * a.q_len * a.v_dim();
    double kv_tokens = (double)a.batch * a.kv_heads * a.kv_len;
    double kv = kv_tokens * a.head_dim;  // K alone
    double k_and_v = a.v_in_k ? kv : kv_tokens * (a.head_dim + a.v_dim());
    w.matrix_flops = 2 * pairs * (double)(a.head_dim + a.v_dim());  // Q.K^T and P.V
    w.vector_flops = 4 * pairs;                                     // scale, max, subtract, sum
    w.sfu_ops = pairs;                                              // exp
    w.bytes_read = q * e + k_and_v * e_kv;
    w.bytes_written = o * (a.dtype == DType::Fp8 ? 2 : e);
    if (a.backward) {  // recompute Q.K^T, then dV, dP, dQ, dK: 5 GEMMs of the forward's size
      w.matrix_flops *= 2.5;
      w.vector_flops *= 2;
      w.bytes_read += 2 * o * e;  // O and dO
      w.bytes_written = q * e + k_and_v * e_kv;
    }
    return w;
  }
  OpWork operator()(const ElementwiseOp& x) const {
    OpWork w;
    ElementwiseInfo info = elementwise_info(x.kind);
    double n = (double)x.numel, e = dtype_bytes(x.dtype);
    w.vector_flops = n * info.flops_per_element;
    w.sfu_ops = n * info.sfu_per_element;
    w.bytes_read = n * e * info.inputs / (double)std::max<int64_t>(1, x.input_reuse);
    w.bytes_written = n * (x.out_dtype ? dtype_bytes(*x.out_dtype) : e) * info.outputs;
    return w;
  }
  OpWork operator()(const ReduceOp& r) const {
    OpWork w;
    double n = (double)r.numel, e = dtype_bytes(r.dtype);
    w.vector_flops = n;
    w.bytes_read = n * e;
    w.bytes_written = e;
    return w;
  }
  OpWork operator()(const RowOp& r) const {
    OpWork w;
    double n = (double)r.rows * (double)r.cols, e = dtype_bytes(r.dtype);
    bool ln = r.kind == RowOpKind::LayerNorm || r.kind == RowOpKind::LayerNormBackward;
    bool rms = r.kind == RowOpKind::RmsNorm || r.kind == RowOpKind::RmsNormBackward;
    double weights = ln ? 2 : (rms ? 1 : 0);
    bool backward = r.kind == RowOpKind::RmsNormBackward ||
                    r.kind == RowOpKind::LayerNormBackward || r.kind == RowOpKind::SoftmaxBackward;
    w.bytes_read = (backward ? 2 : 1) * n * e + weights * (double)r.cols * e;
    w.bytes_written = n * e;
    switch (r.kind) {
      case RowOpKind::RmsNormBackward:
      case RowOpKind::LayerNormBackward:  // dx, and per-block partial sums of dw
        w.vector_flops = 8 * n;
        w.sfu_ops = (double)r.rows;
        w.bytes_written += weights * (double)r.cols * 4 * std::ceil((double)r.rows / 64);
        break;
      case RowOpKind::SoftmaxBackward:  // dx = p * (dy - sum(p * dy))
        w.vector_flops = 4 * n;
        break;
      case RowOpKind::RmsNorm:  // x*x, sum, x*rstd, *w
        w.vector_flops = 4 * n;
        w.sfu_ops = (double)r.rows;
        break;
      case RowOpKind::LayerNorm:  // sum, x-mean, square, sum, *rstd, *w, +b
        w.vector_flops = 7 * n;
        w.sfu_ops = (double)r.rows;
        break;
      case RowOpKind::Softmax:  // max, subtract, exp, sum, divide
        w.vector_flops = 4 * n;
        w.sfu_ops = n;
        break;
    }
    return w;
  }
  // One rank's part: the bytes it sends and receives over links (the bus-bandwidth numerator
  // of nccl-tests), and for reductions one add per element it receives.
  OpWork operator()(const CollectiveOp& c) const {
    OpWork w;
    w.bytes_read = w.bytes_written = collective_wire_bytes(c);
    bool reduces = c.kind == CollectiveKind::AllReduce || c.kind == CollectiveKind::ReduceScatter;
    if (reduces) w.vector_flops = collective_wire_bytes(c) / dtype_bytes(c.dtype);
    if (c.kind == CollectiveKind::AllReduce) w.vector_flops /= 2;  // the all-gather half adds none
    return w;
  }
};

}  // namespace

double collective_bus_factor(CollectiveKind kind, int ranks) {
  double n = ranks;
  switch (kind) {
    case CollectiveKind::AllReduce:
      return ranks > 1 ? 2 * (n - 1) / n : 0;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllToAll:
      return ranks > 1 ? (n - 1) / n : 0;
    case CollectiveKind::Broadcast:
    case CollectiveKind::SendRecv:
      return 1;
  }
  return 1;
}

double collective_wire_bytes(const CollectiveOp& c) {
  return c.bytes * collective_bus_factor(c.kind, c.ranks);
}

OpWork op_work(const Op& op) {
  return std::visit(WorkOf{}, op.shape);
}

}  // namespace ridgeline
