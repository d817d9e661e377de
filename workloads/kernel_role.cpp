// Role constructors and names; see kernel_role.h.
#include "workloads/kernel_role.h"

#include "common/errors.h"

#include <utility>

namespace ridgeline {

namespace role {

KernelRole gemm(Projection p) {
  KernelRole r;
  r.kind = RoleKind::WeightGemm;
  r.projection = p;
  return r;
}
KernelRole attention() {
  return of(RoleKind::Attention);
}
KernelRole norm(NormSite site) {
  KernelRole r;
  r.kind = RoleKind::Norm;
  r.norm = site;
  return r;
}
KernelRole norm_part(NormSite site, NormPart part) {
  KernelRole r = norm(site);
  r.norm_part = part;
  return r;
}
KernelRole residual_add() {
  return of(RoleKind::ResidualAdd);
}
KernelRole activation(Activation a) {
  KernelRole r;
  r.kind = RoleKind::Activation;
  r.activation = a;
  return r;
}
KernelRole rope(RopePart part, Tensor t) {
  KernelRole r;
  r.kind = RoleKind::Rope;
  r.rope = part;
  r.tensor = t;
  return r;
}
KernelRole cache_write(Tensor t) {
  KernelRole r;
  r.kind = RoleKind::CacheWrite;
  r.tensor = t;
  return r;
}
KernelRole cache_dequant(Tensor t) {
  KernelRole r;
  r.kind = RoleKind::CacheDequant;
  r.tensor = t;
  return r;
}
KernelRole embedding(EmbeddingPart part) {
  KernelRole r;
  r.kind = RoleKind::Embedding;
  r.embedding = part;
  return r;
}
KernelRole of(RoleKind kind) {
  KernelRole r;
  r.kind = kind;
  return r;
}
KernelRole moe(RoleKind kind, MoePart part) {
  KernelRole r;
  r.kind = kind;
  r.moe = part;
  return r;
}
KernelRole collective(CommGroup group, CommPurpose purpose, Pass pass) {
  KernelRole r;
  r.kind = RoleKind::Collective;
  r.group = group;
  r.purpose = purpose;
  r.pass = pass;
  return r;
}
KernelRole loss(LossPart part) {
  KernelRole r;
  r.kind = RoleKind::Loss;
  r.loss = part;
  return r;
}
KernelRole autocast(CastOf what, Projection p, Tensor t) {
  KernelRole r;
  r.kind = RoleKind::Autocast;
  r.cast = what;
  r.projection = p;
  r.tensor = t;
  return r;
}
KernelRole backward(KernelRole forward, GradKind grad) {
  forward.pass = Pass::Backward;
  forward.grad = grad;
  return forward;
}
KernelRole recompute(KernelRole forward) {
  forward.pass = Pass::Recompute;
  return forward;
}

}  // namespace role

namespace {

// The name of `v` in a table of (value, name) pairs; every enum value has a row.
template <class E, size_t N>
const char* name_in(const std::pair<E, const char*> (&table)[N], E v) {
  for (const auto& [value, name] : table) {
    if (value == v) return name;
  }
  return "?";
}

constexpr std::pair<RoleKind, const char*> kKindNames[] = {
    {RoleKind::Unset, "unset"},
    {RoleKind::WeightGemm, "weight_gemm"},
    {RoleKind::Attention, "attention"},
    {RoleKind::Norm, "norm"},
    {RoleKind::ResidualAdd, "residual_add"},
    {RoleKind::Activation, "activation"},
    {RoleKind::Rope, "rope"},
    {RoleKind::CacheWrite, "cache_write"},
    {RoleKind::CacheDequant, "cache_dequant"},
    {RoleKind::Embedding, "embedding"},
    {RoleKind::MoeRouting, "moe_routing"},
    {RoleKind::MoeDispatch, "moe_dispatch"},
    {RoleKind::MoeCombine, "moe_combine"},
    {RoleKind::Loss, "loss"},
    {RoleKind::Optimizer, "optimizer"},
    {RoleKind::RopeTable, "rope_table"},
    {RoleKind::Mask, "mask"},
    {RoleKind::CacheRepeat, "cache_repeat"},
    {RoleKind::AttentionScores, "attention_scores"},
    {RoleKind::Softcap, "softcap"},
    {RoleKind::Autocast, "autocast"},
    {RoleKind::GradScaler, "grad_scaler"},
    {RoleKind::Collective, "collective"},
};

const char* kind_name(RoleKind v) {
  return name_in(kKindNames, v);
}

constexpr std::pair<Projection, const char*> kProjectionNames[] = {
    {Projection::None, ""},
    {Projection::Q, "q"},
    {Projection::K, "k"},
    {Projection::V, "v"},
    {Projection::Qkv, "qkv"},
    {Projection::O, "o"},
    {Projection::Gate, "gate"},
    {Projection::Up, "up"},
    {Projection::GateUp, "gate_up"},
    {Projection::Down, "down"},
    {Projection::Fc, "fc"},
    {Projection::Proj, "proj"},
    {Projection::Router, "router"},
    {Projection::ExpertsGateUp, "experts_gate_up"},
    {Projection::ExpertsDown, "experts_down"},
    {Projection::LmHead, "lm_head"},
    {Projection::QA, "q_a"},
    {Projection::QB, "q_b"},
    {Projection::KvA, "kv_a"},
    {Projection::KvB, "kv_b"},
    {Projection::AbsorbUk, "absorb_uk"},
    {Projection::AbsorbUv, "absorb_uv"},
};

const char* projection_name(Projection v) {
  return name_in(kProjectionNames, v);
}

constexpr std::pair<NormSite, const char*> kNormNames[] = {
    {NormSite::None, ""},
    {NormSite::Input, "input"},
    {NormSite::Post, "post"},
    {NormSite::Final, "final"},
    {NormSite::PostAttention, "post_attention"},
    {NormSite::PostMlp, "post_mlp"},
    {NormSite::Q, "q"},
    {NormSite::K, "k"},
};

const char* norm_name(NormSite v) {
  return name_in(kNormNames, v);
}

constexpr std::pair<NormPart, const char*> kNormPartNames[] = {
    {NormPart::None, ""},       {NormPart::ToFp32, "to_fp32"},   {NormPart::Pow, "pow"},
    {NormPart::Mean, "mean"},   {NormPart::AddEps, "add_eps"},   {NormPart::Rsqrt, "rsqrt"},
    {NormPart::Scale, "scale"}, {NormPart::ToInput, "to_input"}, {NormPart::Weight, "weight"},
};

const char* norm_part_name(NormPart v) {
  return name_in(kNormPartNames, v);
}

constexpr std::pair<RopePart, const char*> kRopeNames[] = {
    {RopePart::None, ""},          {RopePart::MulCos, "mul_cos"},
    {RopePart::Neg, "neg"},        {RopePart::Cat, "cat"},
    {RopePart::MulSin, "mul_sin"}, {RopePart::Add, "add"},
    {RopePart::Fused, "fused"},    {RopePart::FusedWithCacheWrite, "fused_with_cache_write"},
};

const char* rope_name(RopePart v) {
  return name_in(kRopeNames, v);
}

constexpr std::pair<Tensor, const char*> kTensorNames[] = {
    {Tensor::None, ""}, {Tensor::Q, "q"}, {Tensor::K, "k"}, {Tensor::V, "v"}, {Tensor::Qkv, "qkv"},
};

const char* tensor_name(Tensor v) {
  return name_in(kTensorNames, v);
}

constexpr std::pair<Activation, const char*> kActivationNames[] = {
    {Activation::None, ""},
    {Activation::Silu, "silu"},
    {Activation::Gelu, "gelu"},
    {Activation::GateMul, "gate_mul"},
    {Activation::SiluMul, "silu_mul"},
    {Activation::Relu2, "relu2"},
};

const char* activation_name(Activation v) {
  return name_in(kActivationNames, v);
}

constexpr std::pair<EmbeddingPart, const char*> kEmbeddingNames[] = {
    {EmbeddingPart::None, ""},
    {EmbeddingPart::Tokens, "tokens"},
    {EmbeddingPart::Positions, "positions"},
    {EmbeddingPart::Add, "add"},
};

const char* embedding_name(EmbeddingPart v) {
  return name_in(kEmbeddingNames, v);
}

constexpr std::pair<LossPart, const char*> kLossNames[] = {
    {LossPart::None, ""},
    {LossPart::LogitsToFp32, "logits_to_fp32"},
    {LossPart::LogSoftmax, "log_softmax"},
    {LossPart::LogSoftmaxBackward, "log_softmax_backward"},
    {LossPart::GradToBf16, "grad_to_bf16"},
};

const char* loss_name(LossPart v) {
  return name_in(kLossNames, v);
}

constexpr std::pair<MoePart, const char*> kMoePartNames[] = {
    {MoePart::None, ""},
    {MoePart::Permute, "permute"},
    {MoePart::SortChunks, "sort_chunks"},
    {MoePart::UnpermuteProbs, "unpermute_probs"},
    {MoePart::AuxLoss, "aux_loss"},
};

constexpr std::pair<GradKind, const char*> kGradNames[] = {
    {GradKind::None, ""},
    {GradKind::Dgrad, "dgrad"},
    {GradKind::Wgrad, "wgrad"},
    {GradKind::GradContiguous, "grad_contiguous"},
    {GradKind::Input, "input"},
    {GradKind::InputA, "input_a"},
    {GradKind::InputB, "input_b"},
    {GradKind::CatFill, "cat_fill"},
    {GradKind::CatCopy1, "cat_copy_1"},
    {GradKind::CatCopy2, "cat_copy_2"},
    {GradKind::CatAccumulate, "cat_accumulate"},
    {GradKind::BranchSum, "branch_sum"},
    {GradKind::TableZero, "table_zero"},
    {GradKind::TableIndexAdd, "table_index_add"},
    {GradKind::ToInputDtype, "to_input_dtype"},
};

const char* grad_name(GradKind v) {
  return name_in(kGradNames, v);
}

constexpr std::pair<CommPurpose, const char*> kPurposeNames[] = {
    {CommPurpose::None, ""},
    {CommPurpose::Activations, "activations"},
    {CommPurpose::InputGrad, "input_grad"},
    {CommPurpose::WeightGrad, "weight_grad"},
    {CommPurpose::Params, "params"},
    {CommPurpose::KvChunk, "kv_chunk"},
    {CommPurpose::Tokens, "tokens"},
};

const char* cast_name(CastOf c) {
  return c == CastOf::Weight ? "weight" : c == CastOf::Input ? "input" : "";
}

void append(std::string& s, const char* part) {
  if (*part) s += std::string(".") + part;
}

}  // namespace

std::string role_name(const KernelRole& r) {
  std::string s = kind_name(r.kind);
  append(s, projection_name(r.projection));
  append(s, norm_name(r.norm));
  append(s, norm_part_name(r.norm_part));
  append(s, tensor_name(r.tensor));
  append(s, rope_name(r.rope));
  append(s, activation_name(r.activation));
  append(s, embedding_name(r.embedding));
  append(s, loss_name(r.loss));
  append(s, cast_name(r.cast));
  append(s, name_in(kMoePartNames, r.moe));
  append(s, comm_group_name(r.group));
  append(s, name_in(kPurposeNames, r.purpose));
  if (r.kind == RoleKind::Collective) return s;  // a backward collective moves a gradient already
  if (r.pass == Pass::Backward) return std::string("backward.") + grad_name(r.grad) + "(" + s + ")";
  if (r.pass == Pass::Recompute) return "recompute(" + s + ")";
  return s;
}

constexpr std::pair<SectionKind, const char*> kSectionKindNames[] = {
    {SectionKind::Embedding, "embedding"},
    {SectionKind::DecoderBlock, "decoder_block"},
    {SectionKind::Head, "head"},
    {SectionKind::Loss, "loss"},
    {SectionKind::HeadBackward, "head_backward"},
    {SectionKind::BlockBackward, "block_backward"},
    {SectionKind::EmbeddingBackward, "embedding_backward"},
    {SectionKind::Optimizer, "optimizer"},
};

const char* comm_group_name(CommGroup g) {
  static constexpr std::pair<CommGroup, const char*> names[] = {
      {CommGroup::None, ""}, {CommGroup::Tp, "tp"}, {CommGroup::Pp, "pp"},
      {CommGroup::Dp, "dp"}, {CommGroup::Cp, "cp"}, {CommGroup::Ep, "ep"},
  };
  return name_in(names, g);
}

const char* section_kind_name(SectionKind k) {
  return name_in(kSectionKindNames, k);
}

SectionKind backward_kind(SectionKind forward) {
  if (forward == SectionKind::Embedding) return SectionKind::EmbeddingBackward;
  if (forward == SectionKind::DecoderBlock) return SectionKind::BlockBackward;
  if (forward == SectionKind::Head) return SectionKind::HeadBackward;
  throw InternalError(std::string("no backward section for a ") + section_kind_name(forward) +
                      " section");
}

}  // namespace ridgeline
