// Training sections; see train_builder.h. The backward of a section is derived from its
// forward kernels, walked in reverse:
//   GEMM X[m,k]·W[n,k]^T      -> dgrad dY·W (m x k x n) and wgrad dY^T·X (n x k x m)
//   attention                -> the flash backward kernel
//   norm / softmax           -> their backward row kernels
//   silu, gelu               -> one backward kernel reading the input and dY
//   mul of two activations   -> two muls; mul by a constant (RoPE's cos, sin), neg -> one
//   residual add             -> one add where the gradients of the two branches meet
//   cat                      -> its halves copied into a zeroed gradient, then accumulated
//   views, cache writes      -> nothing (q/k/v gradients are copied contiguous before their GEMMs)
//   Megatron's MoE permute, weighted un-permute, chunk sort, aux loss (MoePart) -> TE's backward
//                            kernel of each (emit_moe_backward)
//   cast (autocast's, a norm's to(fp32)) -> the gradient cast back (ToCopyBackward0), and a
//                            promoted kernel's (fp32 out of a bf16 input) gradient cast to bf16
// With full recomputation the block's forward kernels run again before its backward; with
// selective recomputation only its attention kernel does. Which rule
// applies is read from each kernel's role (kernel_role.h), never from its name.
#include "workloads/train_builder.h"

#include "workloads/autocast.h"
#include "workloads/builder_ops.h"
#include "workloads/graph_builder.h"

#include <string>

namespace ridgeline {

namespace {

// The forward kernel a backward kernel belongs to: its name (for display) and role.
struct Forward {
  const std::string& name;
  const KernelRole& role;
};

void emit_gemm_backward(Emitter& e, const Forward& f, const GemmOp& g) {
  auto grad = [&](GradKind k) { return role::backward(f.role, k); };
  // q/k/v's gradients arrive as transposed views and are made contiguous before their GEMMs.
  Projection p = f.role.projection;
  if (p == Projection::Q || p == Projection::K || p == Projection::V) {
    e.emit(grad(GradKind::GradContiguous), f.name + ".grad_contiguous",
           ew_op(ElementwiseKind::Copy, g.m * g.n, g.dtype));
  }
  // A grouped GEMM's gradients are grouped GEMMs over the same experts; the input gradient
  // keeps the routed rows as its rows (their uneven tiles), the weight gradient reduces over them.
  auto grad_gemm = [&](int64_t m, int64_t n, int64_t k, bool rows_routed) {
    Op op = gemm_op(m, n, k, g.dtype == DType::Fp8 ? DType::Bf16 : g.dtype, g.batch);
    GemmOp& d = std::get<GemmOp>(op.shape);
    d.groups = g.groups;
    if (rows_routed) d.routed = g.routed;
    return op;
  };
  e.emit(grad(GradKind::Dgrad), f.name + ".dgrad", grad_gemm(g.m, g.k, g.n, true));
  e.emit(grad(GradKind::Wgrad), f.name + ".wgrad", grad_gemm(g.n, g.k, g.m, false));
}

RowOpKind backward_of(RowOpKind k) {
  switch (k) {
    case RowOpKind::LayerNorm:
      return RowOpKind::LayerNormBackward;
    case RowOpKind::Softmax:
      return RowOpKind::SoftmaxBackward;
    default:
      return RowOpKind::RmsNormBackward;
  }
}

// The gradient of a cast or of a promoted kernel (an fp32 output from a 16-bit input) cast back
// to the input's dtype. Back to fp32 it runs ATen's unrolled dynamic-cast copy
// (unrolled_elementwise_kernel<direct_copy_kernel_cuda>, no vector loads), priced as the
// non-vectorized (strided) path; to bf16 ATen's vectorized bfloat16_copy_kernel_cuda.
void emit_cast_backward(Emitter& e, const Forward& f, const ElementwiseOp& x, GradKind g) {
  Op op = cast_op(x.numel, *x.out_dtype, x.dtype);
  e.emit(role::backward(f.role, g), f.name + ".grad_to_input_dtype",
         x.dtype == DType::Fp32 ? strided(op) : op);
}

// Megatron-Core's MoE kernels with a backward of their own (moe_megatron.cpp), in Transformer
// Engine: permute's is the un-permute without probs (each token's k rows summed), the weighted
// un-permute's one kernel writing the k rows' gradient (and the probs'), a chunk sort's the same
// sort, the aux loss's the gradient of its T x E scores.
void emit_moe_backward(Emitter& e, const Forward& f, const ElementwiseOp& x) {
  auto ew = [&](ElementwiseKind k, int64_t n) {
    e.emit(role::backward(f.role, GradKind::Input), f.name + ".backward", ew_op(k, n, x.dtype));
  };
  switch (f.role.moe) {
    case MoePart::Permute:
      return ew(ElementwiseKind::Add, x.numel / 2);
    case MoePart::UnpermuteProbs:
      return ew(ElementwiseKind::Mul, 2 * x.numel);
    case MoePart::SortChunks:
    case MoePart::AuxLoss:
      return ew(ElementwiseKind::Copy, x.numel);
    case MoePart::None:
      return;
  }
}

void emit_elementwise_backward(Emitter& e, const Forward& f, const ElementwiseOp& x,
                               bool autocast) {
  if (f.role.moe != MoePart::None) return emit_moe_backward(e, f, x);
  // A gradient meets the same broadcast or strided operands (RoPE's cos/sin tables, the halves
  // of a cat), so ATen runs it on the same generic, non-vectorized path as the forward kernel.
  auto ew = [&](GradKind g, const std::string& suffix, ElementwiseKind k, int64_t n) {
    Op op = ew_op(k, n, x.dtype);
    e.emit(role::backward(f.role, g), f.name + suffix, x.strided ? strided(op) : op);
  };
  const KernelRole& r = f.role;
  switch (x.kind) {
    case ElementwiseKind::Silu:
    case ElementwiseKind::Gelu:
    case ElementwiseKind::Relu2:  // 2 relu(x) dY: the input and dY, as the others
      return ew(GradKind::Input, ".backward", ElementwiseKind::Mul, x.numel);
    case ElementwiseKind::SiluMul:
      return ew(GradKind::Input, ".backward", ElementwiseKind::Mul, 2 * x.numel);
    case ElementwiseKind::Mul:  // by a constant (RoPE's cos, sin): one kernel; else one a side
      if (r.is_rope_part(RopePart::MulCos) || r.is_rope_part(RopePart::MulSin)) {
        if (!x.out_dtype) return ew(GradKind::Input, ".backward", ElementwiseKind::Mul, x.numel);
        // Under autocast: the fp32 gradient times the fp32 table, cast back to q's bf16.
        Op op = strided(ew_op(ElementwiseKind::Mul, x.numel, *x.out_dtype));
        e.emit(role::backward(f.role, GradKind::Input), f.name + ".backward", op);
        return emit_cast_backward(e, f, x, GradKind::ToInputDtype);
      }
      ew(GradKind::InputA, ".backward_a", ElementwiseKind::Mul, x.numel);
      return ew(GradKind::InputB, ".backward_b", ElementwiseKind::Mul, x.numel);
    case ElementwiseKind::MulScalar:
      ew(GradKind::Input, ".backward", ElementwiseKind::MulScalar, x.numel);
      if (r.is_rope_part(RopePart::Neg)) {  // cat's backward: the halves into a zeroed grad
        ew(GradKind::CatFill, ".grad_fill", ElementwiseKind::MulScalar, x.numel);
        ew(GradKind::CatCopy1, ".grad_copy_1", ElementwiseKind::Copy, x.numel);
        ew(GradKind::CatCopy2, ".grad_copy_2", ElementwiseKind::Copy, x.numel);
        ew(GradKind::CatAccumulate, ".grad_accumulate", ElementwiseKind::Add, 2 * x.numel);
      }
      return;
    case ElementwiseKind::Add:
      if (r.kind != RoleKind::ResidualAdd) return;
      if (!autocast) return ew(GradKind::BranchSum, ".grad_sum", ElementwiseKind::Add, x.numel);
      // fp32 stream + bf16 branch: the fp32 gradients meet, and the branch's is cast to bf16.
      e.emit(role::backward(r, GradKind::BranchSum), f.name + ".grad_sum",
             ew_op(ElementwiseKind::Add, x.numel, x.dtype));
      e.emit(role::backward(r, GradKind::ToInputDtype), f.name + ".grad_to_input_dtype",
             cast_op(x.numel, x.dtype, DType::Bf16));
      return;
    case ElementwiseKind::Copy:  // a fused RoPE kernel's backward rotates the gradient back
      // A cast's gradient is cast back (ToCopyBackward0): autocast's, and HF norms' to(fp32)
      // and to(input_dtype) (other casts, e.g. MoE routing's, are not matched to a profile yet).
      if (x.out_dtype && (r.kind == RoleKind::Autocast || r.kind == RoleKind::Norm))
        return emit_cast_backward(e, f, x, GradKind::Input);
      if (r.is_rope_part(RopePart::Fused) || r.is_rope_part(RopePart::FusedWithCacheWrite))
        ew(GradKind::Input, ".backward", ElementwiseKind::Copy, x.numel);
      return;
    default:
      return;
  }
}

// The backward kernels of `forward`, in reverse launch order, into `e`.
void emit_backward_of(Emitter& e, const GraphSection& forward, bool autocast) {
  std::vector<OpVertex> order = launch_order(forward);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const GraphNode& n = forward.dag()[*it];
    Forward f{n.name, n.role};
    if (auto* g = std::get_if<GemmOp>(&n.op.shape)) emit_gemm_backward(e, f, *g);
    if (auto* a = std::get_if<AttentionOp>(&n.op.shape)) {
      AttentionOp b = *a;
      b.backward = true;
      e.emit(role::backward(n.role, GradKind::Input), n.name + ".backward", Op{"", b, false});
    }
    if (auto* r = std::get_if<RowOp>(&n.op.shape)) {
      Op b = row_op(backward_of(r->kind), r->rows, r->cols, r->dtype, r->launch);
      std::get<RowOp>(b.shape).impl = r->impl;
      e.emit(role::backward(n.role, GradKind::Input), n.name + ".backward", b);
    }
    if (auto* x = std::get_if<ElementwiseOp>(&n.op.shape))
      emit_elementwise_backward(e, f, *x, autocast);
  }
}

// The forward kernels recomputation runs again: all of them (full), or the attention core alone
// (selective: Megatron's core attention, the kernels whose role is Attention).
void copy_kernels(Emitter& e, const GraphSection& from, Recompute mode) {
  for (OpVertex v : launch_order(from)) {
    const GraphNode& n = from.dag()[v];
    if (mode == Recompute::Selective && n.role.kind != RoleKind::Attention) continue;
    e.emit(role::recompute(n.role), "recompute." + n.name, n.op);
  }
}

// torch.amp.GradScaler's step (--grad-scaler; not measured: the data has no fp16 run):
// _amp_foreach_non_finite_check_and_unscale_ reads and rewrites every fp32 gradient, then
// _amp_update_scale_ updates the one-element scale (the loss's scaling is in the loss section).
void emit_grad_scaler_step(Emitter& e, int64_t params) {
  KernelRole r = role::of(RoleKind::GradScaler);
  e.emit(r, "grad_scaler.unscale_check_inf",
         ew_op(ElementwiseKind::MulScalar, params, DType::Fp32));
  e.emit(r, "grad_scaler.update_scale", ew_op(ElementwiseKind::MulScalar, 1, DType::Fp32));
}

GraphSection loss_section(const ModelConfig& m, const RunConfig& run) {
  GraphSection s{SectionKind::Loss, "loss", 1, -1};
  Emitter e{s, run.activations};
  int64_t T = step_tokens(run);
  int64_t n = T * m.vocab;
  // Logits upcast to fp32 (2 bytes in, 4 out), log-softmax and its backward in fp32, gradient
  // back to bf16 (4 in, 2 out): copies of 6 bytes per logit, written as fp32 copies of 3/4 of them.
  e.emit(role::loss(LossPart::LogitsToFp32), "logits_to_fp32",
         ew_op(ElementwiseKind::Copy, n * 3 / 4, DType::Fp32));
  // F.cross_entropy runs ATen's log_softmax whatever the runtime of the model itself.
  const RowLaunch& rows = run.runtime.launch.rows;
  Op ls = row_op(RowOpKind::Softmax, T, m.vocab, DType::Fp32, rows);
  std::get<RowOp>(ls.shape).impl = RowImpl::PyTorch;
  Op lsb = row_op(RowOpKind::SoftmaxBackward, T, m.vocab, DType::Fp32, rows);
  std::get<RowOp>(lsb.shape).impl = RowImpl::PyTorch;
  e.emit(role::loss(LossPart::LogSoftmax), "log_softmax", ls);
  e.emit(role::loss(LossPart::LogSoftmaxBackward), "log_softmax.backward", lsb);
  e.emit(role::loss(LossPart::GradToBf16), "logits_grad_to_bf16",
         ew_op(ElementwiseKind::Copy, n * 3 / 4, DType::Fp32));
  // scaler.scale(loss): the loss times the scale before backward.
  if (run.grad_scaler)
    e.emit(role::of(RoleKind::GradScaler), "grad_scaler.scale_loss",
           ew_op(ElementwiseKind::MulScalar, 1, DType::Fp32));
  return s;
}

GraphSection backward_section(const GraphSection& forward, const RunConfig& run,
                              Recompute recompute) {
  GraphSection s{backward_kind(forward.kind), forward.name + "_backward", forward.repeat,
                 forward.first_layer};
  Emitter e{s, run.activations};
  if (recompute != Recompute::None) copy_kernels(e, forward, recompute);
  emit_backward_of(e, forward, under_autocast(run));
  return s;
}

}  // namespace

void add_training_sections(OpGraph& g, const ModelConfig& model, const RunConfig& run) {
  bool whole = run.blocks == 0;
  std::vector<GraphSection> forward = g.sections;
  if (whole) g.sections.push_back(loss_section(model, run));  // block stacks get dY from outside
  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    if (it->kind == SectionKind::Embedding) {
      GraphSection s{SectionKind::EmbeddingBackward, "embedding_backward", 1, -1};
      Emitter e{s, run.activations};
      KernelRole table = role::embedding(EmbeddingPart::Tokens);
      e.emit(role::backward(table, GradKind::TableZero), "embed_grad_zero",
             ew_op(ElementwiseKind::MulScalar, model.vocab * model.hidden / 2, param_dtype(run)));
      e.emit(role::backward(table, GradKind::TableIndexAdd), "embed_grad_index_add",
             ew_op(ElementwiseKind::Add, step_tokens(run) * model.hidden, param_dtype(run)));
      g.sections.push_back(std::move(s));
      continue;
    }
    Recompute recompute = it->kind == SectionKind::DecoderBlock ? run.recompute : Recompute::None;
    g.sections.push_back(backward_section(*it, run, recompute));
  }
  if (run.optimizer == Optimizer::AdamW) {
    GraphSection s{SectionKind::Optimizer, "optimizer", 1, -1};
    Emitter e{s, run.activations};
    int64_t params = weight_parameter_count(model, run.blocks);
    if (run.grad_scaler) emit_grad_scaler_step(e, params);
    e.emit(role::of(RoleKind::Optimizer), "adamw",
           ew_op(ElementwiseKind::AdamW, params, param_dtype(run)));
    g.sections.push_back(std::move(s));
  }
}

}  // namespace ridgeline
