// build_graph(): the sections of a step. Inference (prefill, decode): embedding, the decoder
// block repeated once per layer, and the head (final norm, LM head on the last position of each
// sequence unless logits_all). --blocks N keeps only N decoder blocks. Training adds the loss,
// the backward sections and the optimizer step (train_builder.cpp); with fp32 master weights
// the forward is first rewritten as torch.autocast runs it (autocast.cpp).
#include "workloads/graph_builder.h"

#include "workloads/autocast.h"
#include "workloads/builder_ops.h"
#include "workloads/mla_forward.h"
#include "workloads/train_builder.h"

#include "common/errors.h"

#include <algorithm>

namespace ridgeline {

namespace {

GraphSection embedding_section(const ModelConfig& m, const RunConfig& run, int64_t T) {
  GraphSection s{SectionKind::Embedding, "embedding", 1, -1};
  Emitter e{s, run.activations};
  e.emit(role::embedding(EmbeddingPart::Tokens), "embed_tokens",
         ew_op(ElementwiseKind::Copy, T * m.hidden, run.activations));
  if (m.position == PositionKind::Learned) {
    OpVertex tok = e.last;
    OpVertex pos = e.emit(role::embedding(EmbeddingPart::Positions), "embed_positions",
                          ew_op(ElementwiseKind::Copy, T * m.hidden, run.activations), {});
    e.emit(role::embedding(EmbeddingPart::Add), "embed_add",
           ew_op(ElementwiseKind::Add, T * m.hidden, run.activations), {tok, pos});
  }
  if (m.embedding_scale)  // Gemma: hidden_states * sqrt(hidden_size)
    e.emit(role::embedding(EmbeddingPart::Tokens), "embed_scale",
           ew_op(ElementwiseKind::MulScalar, T * m.hidden, run.activations));
  emit_hf_forward_prologue(e, m, run);        // transformers' masks and RoPE tables, if chosen
  emit_inductor_forward_prologue(e, m, run);  // torch.compile's RoPE freqs, if chosen
  return s;
}

// The name of a layer group's section where layers differ: "decoder_block.sliding.moe", ...;
// DeepSeek's dense first layers before its MoE layers: "dense_block", "moe_block".
std::string group_name(const ModelConfig& whole, const ModelConfig& g, size_t groups) {
  if (whole.layer_kinds.empty())
    return groups == 1 ? "decoder_block" : g.moe.experts > 0 ? "moe_block" : "dense_block";
  std::string name = "decoder_block";
  bool windows = false, moe = false, nope = false;
  for (const auto& k : whole.layer_kinds) {
    windows = windows || k.window != whole.layer_kinds.front().window;
    moe = moe || k.moe != whole.layer_kinds.front().moe;
    nope = nope || k.rope != whole.layer_kinds.front().rope;
  }
  bool chunked = false;
  for (const auto& k : whole.layer_kinds) chunked = chunked || k.chunked;
  if (windows) name += g.sliding_window == 0 ? ".full" : chunked ? ".chunked" : ".sliding";
  if (nope && g.position == PositionKind::None && !windows) name += ".nope";
  if (moe) name += g.moe.experts > 0 ? ".moe" : ".dense";
  return name;
}

GraphSection block_section(const ModelConfig& whole, const LayerGroup& group, size_t groups,
                           const RunConfig& run) {
  const ModelConfig& m = group.model;
  GraphSection s{SectionKind::DecoderBlock, group_name(whole, m, groups), group.count, group.first};
  Emitter e{s, run.activations};
  BlockShape shape{run.batch, step_tokens(run), 0, 0, true, false, true};
  if (run.phase == Phase::Decode) {
    shape.q_len = 1;
    shape.kv_len = run.kv_len + 1;
    shape.causal = false;  // one new token sees the whole cache
    shape.cache_write = true;
  } else {  // a prompt, or a prompt chunk over kv_len cached tokens it attends to and extends
    shape.q_len = run.seq;
    shape.kv_len = run.kv_len + run.seq;
    shape.cache_write = run.kv_len > 0;
  }
  // A sliding (or chunked) layer's cache holds its window: a decode step reads and extends that.
  if (run.phase == Phase::Decode && m.sliding_window > 0)
    shape.kv_len = std::min(shape.kv_len, m.sliding_window);
  emit_block_forward(e, m, run, shape);
  return s;
}

// The final norm over T tokens and the LM head over `rows` of them.
GraphSection head_section(const ModelConfig& m, const RunConfig& run, int64_t T, int64_t rows) {
  GraphSection s{SectionKind::Head, "head", 1, -1};
  Emitter e{s, run.activations};
  emit_norm(e, m, run, NormSite::Final, T, {});
  OpVertex logits = e.emit(role::gemm(Projection::LmHead), "lm_head",
                           head_weight_gemm(rows, m.vocab, m.hidden, run));
  emit_logit_softcap(e, m, rows, logits);
  return s;
}

}  // namespace

OpGraph build_graph(const ModelConfig& model, const RunConfig& run) {
  check_run_config(run, model);
  OpGraph g;
  g.description = model.name + " " + phase_name(run.phase) + ", batch " +
                  std::to_string(run.batch) +
                  (run.phase == Phase::Decode ? ", kv " + std::to_string(run.kv_len)
                                              : ", seq " + std::to_string(run.seq)) +
                  (run.phase == Phase::Prefill && run.kv_len > 0
                       ? " over " + std::to_string(run.kv_len) + " cached"
                       : "") +
                  ", " + run.runtime.name;
  bool whole = run.blocks == 0;
  int64_t T = step_tokens(run);
  bool all = run.logits_all || run.phase == Phase::Train;
  if (whole) g.sections.push_back(embedding_section(model, run, T));
  auto groups = layer_groups(model, run.blocks > 0 ? run.blocks : model.layers);
  for (const auto& group : groups)
    g.sections.push_back(block_section(model, group, groups.size(), run));
  if (whole) g.sections.push_back(head_section(model, run, T, all ? T : run.batch));
  apply_autocast(g, run);  // --master-weights fp32: the forward as torch.autocast runs it
  if (run.phase == Phase::Train) add_training_sections(g, model, run);
  return g;
}

void check_serving_mla(const ModelConfig& model, const RunConfig& run) {
  if (model.deepseek.mla.enabled() && run.runtime.choices_for(model).mla != MlaImpl::Absorbed)
    throw InputError(model.source + ": multi-head latent attention (" + model.family +
                     ") is served in its absorbed form only (a runtime whose attention/mla is "
                     "\"absorbed\", as the vllm, sglang and trtllm engines run it); runtime " +
                     run.runtime.name + " runs transformers' expand_kv");
}

OpGraph build_serving_mla_attention_graph(const ModelConfig& model, const RunConfig& run,
                                          int64_t requests, int64_t q_len, int64_t kv_len) {
  check_serving_mla(model, run);
  require_invariant(requests >= 1 && q_len >= 1 && kv_len >= q_len, "an attention group");
  OpGraph g;
  g.description = model.name + " MLA attention, " + std::to_string(requests) + " x " +
                  std::to_string(q_len) + " over " + std::to_string(kv_len);
  GraphSection s{SectionKind::DecoderBlock, "mla attention", model.layers, 0};
  Emitter e{s, run.activations};
  emit_absorbed_mla_attention_part(
      e, model, run, BlockShape{requests, requests * q_len, q_len, kv_len, q_len > 1, false, true});
  g.sections.push_back(std::move(s));
  return g;
}

OpGraph build_serving_step_graph(const ModelConfig& model, const RunConfig& run, int64_t tokens,
                                 int64_t sampled) {
  require_invariant(tokens >= 1 && sampled >= 1 && sampled <= tokens, "serving step sizes");
  check_serving_mla(model, run);
  OpGraph g;
  g.description = model.name + " serving step, " + std::to_string(tokens) + " tokens, " +
                  std::to_string(sampled) + " sampled, attention apart, " + run.runtime.name;
  g.sections.push_back(embedding_section(model, run, tokens));
  auto groups = layer_groups(model, model.layers);
  for (const auto& group : groups) {
    GraphSection s{SectionKind::DecoderBlock, group_name(model, group.model, groups.size()),
                   group.count, group.first};
    Emitter e{s, run.activations};
    emit_block_forward(e, group.model, run, BlockShape{tokens, tokens, 1, 1, false, true, false});
    g.sections.push_back(std::move(s));
  }
  g.sections.push_back(head_section(model, run, tokens, sampled));
  return g;
}

}  // namespace ridgeline
