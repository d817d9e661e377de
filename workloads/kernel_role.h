// What a kernel and a section are for, as typed values. Builders give every node a role and every
// section a kind; the backward pass, the memory footprint and anything else that decides a
// number reads these, never the display names ("q_proj", "residual_add_1"), which are for
// people and may change (renamed, sharded, prefixed "recompute.") without moving a number.
//
//   q_proj                  {WeightGemm, projection Q}
//   q_rope_neg              {Rope, rope Neg, tensor Q}
//   post_norm               {Norm, norm Post}
//   q_proj.dgrad            {WeightGemm, projection Q, pass Backward, grad Dgrad}
//   recompute.silu          {Activation, activation Silu, pass Recompute}
//   o_proj.tp_all_reduce    {Collective, group Tp, purpose Activations}
// role_name() spells a role for messages and tests: "weight_gemm.q", "rope.q.neg",
// "backward.dgrad(weight_gemm.q)".
#pragma once

#include <cstdint>
#include <string>

namespace ridgeline {

enum class RoleKind : uint8_t {
  Unset,  // never emitted by a builder (a test walks every built graph to check)
  WeightGemm,
  Attention,
  Norm,
  ResidualAdd,
  Activation,
  Rope,
  CacheWrite,
  CacheDequant,
  Embedding,
  MoeRouting,   // router probabilities, top-k, routing weights
  MoeDispatch,  // sorting token-expert pairs, gathers, group offsets, expert-parallel masks
  MoeCombine,   // routing weights applied, un-permute, the sum over each token's k rows
  Loss,
  Optimizer,
  RopeTable,    // RoPE's cos/sin tables recomputed by a forward (transformers)
  Mask,         // attention-mask creation and conversion, cache-position arithmetic
  CacheRepeat,  // K or V repeated to every query head before attention (repeat_kv)
  Collective,   // a communication node (stream comm): which group it runs over is `group`
  // transformers' eager_attention_forward, where SDPA cannot run the model's attention (logit
  // soft-capping, attention sinks): the two batched matmuls and the kernels over the scores
  AttentionScores,
  Softcap,  // cap * tanh(x / cap) on attention scores or logits, as three kernels
  // torch.autocast over fp32 parameters (--master-weights fp32, autocast.h): a weight or an fp32
  // input cast to the compute dtype before the GEMM or attention that autocast runs in it
  Autocast,
  GradScaler,  // torch.amp.GradScaler's unscale and inf check, and its scale update (fp16)
};

// Which weight a GEMM multiplies by. Qkv is one fused weight (a serving engine's qkv_proj,
// GPT-2's c_attn); Fc and Proj are a GELU MLP's two weights (GPT-2's c_fc, c_proj).
enum class Projection : uint8_t {
  None,
  Q,
  K,
  V,
  Qkv,
  O,
  Gate,
  Up,
  GateUp,
  Down,
  Fc,
  Proj,
  Router,
  ExpertsGateUp,
  ExpertsDown,
  LmHead,
  // Multi-head latent attention (mla_config.h): q's down and up projections, the latent's down
  // projection (with the RoPE key) and its up projection to every head's key and value; in the
  // absorbed form, the batched per-head products by W_UK (into q) and W_UV (after attention).
  QA,
  QB,
  KvA,
  KvB,
  AbsorbUk,
  AbsorbUv,
};
// Before attention, the MLP, the head; after attention and after the MLP (OLMo 2, Gemma); on
// q and on k (QK-norm).
enum class NormSite : uint8_t { None, Input, Post, Final, PostAttention, PostMlp, Q, K };
// One kernel of a norm written out in PyTorch ops (transformers' LlamaRMSNorm in fp32); None for
// a norm that is one kernel.
enum class NormPart : uint8_t { None, ToFp32, Pow, Mean, AddEps, Rsqrt, Scale, ToInput, Weight };
// RoPE as Hugging Face's rotate_half launches it (x*cos + cat(-x2, x1)*sin), or one fused kernel
// (which may also write K and V into the KV cache).
enum class RopePart : uint8_t { None, MulCos, Neg, Cat, MulSin, Add, Fused, FusedWithCacheWrite };
enum class Tensor : uint8_t { None, Q, K, V, Qkv };  // the tensor a RoPE or cache kernel works on
// Silu, Gelu: the activation alone; GateMul: silu(gate) * up; SiluMul: both in one kernel;
// Relu2: squared ReLU of an ungated MLP (Nemotron).
enum class Activation : uint8_t { None, Silu, Gelu, GateMul, SiluMul, Relu2 };
enum class EmbeddingPart : uint8_t { None, Tokens, Positions, Add };
enum class LossPart : uint8_t { None, LogitsToFp32, LogSoftmax, LogSoftmaxBackward, GradToBf16 };
// An MoE kernel whose backward is its own kernel (Megatron-Core's MoE layer with Transformer
// Engine, moe_megatron.cpp): the tokens permuted into expert order, their chunks sorted by local
// expert (expert parallelism), the weighted un-permute, the load-balancing loss. None for the
// routing and index kernels, whose backward is nothing (and for transformers' MoE kernels).
enum class MoePart : uint8_t { None, Permute, SortChunks, UnpermuteProbs, AuxLoss };
enum class Pass : uint8_t { Forward, Backward, Recompute };
// What an Autocast kernel casts: the weight of its GEMM (projection), or an fp32 input.
enum class CastOf : uint8_t { None, Weight, Input };
// The communication group a collective runs over (parallel_config.h): tensor, pipeline, data,
// context or expert parallel ranks.
enum class CommGroup : uint8_t { None, Tp, Pp, Dp, Cp, Ep };
constexpr int kCommGroups = 6;             // CommGroup values, None included (index 0)
const char* comm_group_name(CommGroup g);  // "", "tp", "pp", "dp", "cp", "ep"
// What a collective node carries: the forward activations, an input gradient (backward), the
// weight gradients, parameters (ZeRO-3 gathers), the KV chunks of ring attention, or tokens
// (MoE dispatch / combine).
enum class CommPurpose : uint8_t {
  None,
  Activations,
  InputGrad,
  WeightGrad,
  Params,
  KvChunk,
  Tokens
};
// The backward kernels of a forward kernel (Pass::Backward).
enum class GradKind : uint8_t {
  None,
  Dgrad,           // a GEMM's input gradient, dY·W
  Wgrad,           // a GEMM's weight gradient, dYᵀ·X
  GradContiguous,  // a transposed gradient (q, k, v) copied contiguous before its GEMMs
  Input,           // the one input-gradient kernel of an attention, norm or elementwise op
  InputA,          // a product of two activations: the gradient of each side
  InputB,
  CatFill,  // cat's backward: a zeroed gradient, the two halves copied in, accumulated
  CatCopy1,
  CatCopy2,
  CatAccumulate,
  BranchSum,  // where the residual stream's two branches' gradients meet
  TableZero,  // the embedding table's gradient zeroed, then the token rows index-added
  TableIndexAdd,
  // Under autocast (--master-weights fp32): a gradient cast back to a 16-bit input's dtype where
  // the forward kernel promoted it to fp32 (RoPE's mul by the fp32 tables, the residual add).
  ToInputDtype,
};

struct KernelRole {
  RoleKind kind = RoleKind::Unset;
  Projection projection = Projection::None;  // WeightGemm
  NormSite norm = NormSite::None;            // Norm
  NormPart norm_part = NormPart::None;       // Norm written out in PyTorch ops
  RopePart rope = RopePart::None;            // Rope
  Tensor tensor = Tensor::None;              // Rope, CacheWrite, CacheDequant
  Activation activation = Activation::None;  // Activation
  EmbeddingPart embedding = EmbeddingPart::None;
  LossPart loss = LossPart::None;
  CastOf cast = CastOf::None;   // Autocast
  MoePart moe = MoePart::None;  // MoeRouting, MoeDispatch, MoeCombine
  Pass pass = Pass::Forward;
  GradKind grad = GradKind::None;           // Pass::Backward
  CommGroup group = CommGroup::None;        // Collective
  CommPurpose purpose = CommPurpose::None;  // Collective

  bool operator==(const KernelRole&) const = default;
  bool is_rope_part(RopePart p) const { return kind == RoleKind::Rope && rope == p; }
};

// One-line constructors for builders.
namespace role {
KernelRole gemm(Projection p);
KernelRole attention();
KernelRole norm(NormSite site);
KernelRole norm_part(NormSite site, NormPart part);
KernelRole residual_add();
KernelRole activation(Activation a);
KernelRole rope(RopePart part, Tensor t);
KernelRole cache_write(Tensor t);
KernelRole cache_dequant(Tensor t);
KernelRole embedding(EmbeddingPart part);
KernelRole of(RoleKind kind);                 // MoeRouting, MoeDispatch, MoeCombine, Optimizer
KernelRole moe(RoleKind kind, MoePart part);  // an MoE kernel with a backward of its own
KernelRole loss(LossPart part);
// An autocast cast: the weight of the GEMM of projection `p`, or an fp32 input to that GEMM (or,
// p None, to attention: the tensor `t` it casts).
KernelRole autocast(CastOf what, Projection p, Tensor t = Tensor::None);
KernelRole collective(CommGroup group, CommPurpose purpose, Pass pass = Pass::Forward);
// The `grad` kernel of the backward of `forward`, and `forward` run again for recomputation.
KernelRole backward(KernelRole forward, GradKind grad);
KernelRole recompute(KernelRole forward);
}  // namespace role

// What a section of a step is; backward sections say whose backward they are.
enum class SectionKind : uint8_t {
  Embedding,
  DecoderBlock,
  Head,
  Loss,
  HeadBackward,
  BlockBackward,
  EmbeddingBackward,
  Optimizer,
};

std::string role_name(const KernelRole& r);
const char* section_kind_name(SectionKind k);
// The kind of the backward section of a forward section (Embedding, DecoderBlock, Head).
SectionKind backward_kind(SectionKind forward);

}  // namespace ridgeline
