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
  emit_hf_forward_prologue(e, m, run);  // transformers' masks and RoPE tables, if chosen
  return s;
}

GraphSection block_section(const ModelConfig& m, const RunConfig& run) {
  GraphSection s{SectionKind::DecoderBlock, "decoder_block", run.blocks > 0 ? run.blocks : m.layers,
                 0};
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
  g.sections.push_back(block_section(model, run));
  if (whole) g.sections.push_back(head_section(model, run, T, all ? T : run.batch));
  if (run.phase == Phase::Train) add_training_sections(g, model, run);
  return g;
}

OpGraph build_serving_step_graph(const ModelConfig& model, const RunConfig& run, int64_t tokens,
                                 int64_t sampled) {
  require_invariant(tokens >= 1 && sampled >= 1 && sampled <= tokens, "serving step sizes");
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
