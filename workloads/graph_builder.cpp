// build_graph(): the sections of a step. Inference (prefill, decode): embedding, the decoder
// block repeated once per layer, and the head (final norm, LM head on the last position of each
// sequence unless logits_all). --blocks N keeps only N decoder blocks. Training adds the loss,
// the backward sections and the optimizer step (train_builder.cpp).
#include "workloads/graph_builder.h"

#include "workloads/builder_ops.h"
#include "workloads/train_builder.h"

#include "common/errors.h"

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
  emit_hf_forward_prologue(e, m, run);        // transformers' masks and RoPE tables, if chosen
  emit_inductor_forward_prologue(e, m, run);  // torch.compile's RoPE freqs, if chosen
  return s;
}

GraphSection block_section(const ModelConfig& m, const RunConfig& run, const std::string& name,
                           int64_t repeat, int64_t first_layer) {
  GraphSection s{SectionKind::DecoderBlock, name, repeat, first_layer};
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
  emit_block_forward(e, m, run, shape);
  return s;
}

// The decoder blocks: one section repeated, or, for DeepSeek's dense first layers before its MoE
// layers (first_k_dense_replace), a dense_block section and a moe_block section.
void add_block_sections(OpGraph& g, const ModelConfig& m, const RunConfig& run) {
  int64_t blocks = run.blocks > 0 ? run.blocks : m.layers;
  int64_t dense = dense_layer_count(m, blocks);
  ModelConfig dense_model = m;
  dense_model.moe.experts = 0;
  if (dense == 0 || m.moe.experts == 0) {
    g.sections.push_back(block_section(m, run, "decoder_block", blocks, 0));
  } else if (dense == blocks) {
    g.sections.push_back(block_section(dense_model, run, "decoder_block", blocks, 0));
  } else {
    g.sections.push_back(block_section(dense_model, run, "dense_block", dense, 0));
    g.sections.push_back(block_section(m, run, "moe_block", blocks - dense, dense));
  }
}

// The final norm over T tokens and the LM head over `rows` of them.
GraphSection head_section(const ModelConfig& m, const RunConfig& run, int64_t T, int64_t rows) {
  GraphSection s{SectionKind::Head, "head", 1, -1};
  Emitter e{s, run.activations};
  emit_norm(e, m, run, NormSite::Final, T, {});
  e.emit(role::gemm(Projection::LmHead), "lm_head", weight_gemm(rows, m.vocab, m.hidden, run));
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
  add_block_sections(g, model, run);
  if (whole) g.sections.push_back(head_section(model, run, T, all ? T : run.batch));
  if (run.phase == Phase::Train) add_training_sections(g, model, run);
  return g;
}

OpGraph build_serving_step_graph(const ModelConfig& model, const RunConfig& run, int64_t tokens,
                                 int64_t sampled) {
  require_invariant(tokens >= 1 && sampled >= 1 && sampled <= tokens, "serving step sizes");
  if (model.deepseek.mla.enabled())
    throw InputError(model.source + ": multi-head latent attention (" + model.family +
                     ") is not priced by the serving simulator yet; use ridgeline predict");
  OpGraph g;
  g.description = model.name + " serving step, " + std::to_string(tokens) + " tokens, " +
                  std::to_string(sampled) + " sampled, attention apart, " + run.runtime.name;
  g.sections.push_back(embedding_section(model, run, tokens));
  GraphSection s{SectionKind::DecoderBlock, "decoder_block", model.layers, 0};
  Emitter e{s, run.activations};
  emit_block_forward(e, model, run, BlockShape{tokens, tokens, 1, 1, false, true, false});
  g.sections.push_back(std::move(s));
  g.sections.push_back(head_section(model, run, tokens, sampled));
  return g;
}

}  // namespace ridgeline
