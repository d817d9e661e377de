// generate() from a prefill and decode steps; see generate_predict.h.
#include "model/generate_predict.h"

#include "common/errors.h"
#include "workloads/graph_builder.h"

namespace ridgeline {

namespace {

// A decode step of the call. transformers switches a grouped_mm experts backend to batched_mm for
// generate()'s decode steps on a GPU (experts_interface.md, "Decode-stage switching"; only
// grouped_mm entries switch: Llama 4's eager experts keep theirs); the prefill keeps grouped_mm.
RunConfig decode_at(const RunConfig& prefill, int64_t kv_len) {
  RunConfig decode = prefill;
  decode.phase = Phase::Decode;
  decode.seq = 0;
  decode.kv_len = kv_len;
  for (BlockChoices* c : {&decode.runtime.block, &decode.runtime.learned_positions})
    if (c->moe == MoeImpl::HfGroupedMm) c->moe = MoeImpl::HfBatchedMm;
  return decode;
}

}  // namespace

GenerateSteps predict_generate_steps(const ModelConfig& model, const RunConfig& prefill,
                                     int64_t new_tokens, const GpuSpec& gpu) {
  if (prefill.phase != Phase::Prefill || prefill.seq < 1)
    throw InputError("--seq: generate needs a prompt of at least one token");
  if (new_tokens < 1)
    throw InputError("--new-tokens: generate needs at least one new token, got " +
                     std::to_string(new_tokens));
  // The last decode step writes the token at position kv_len + seq + new_tokens - 2.
  int64_t positions = prefill.kv_len + prefill.seq + new_tokens - 1;
  if (model.max_positions > 0 && positions > model.max_positions)
    throw InputError("--new-tokens: " + std::to_string(prefill.seq) + " prompt tokens and " +
                     std::to_string(new_tokens) + " new tokens reach " + std::to_string(positions) +
                     " positions, over the model's " + std::to_string(model.max_positions) +
                     " (max_position_embeddings)");
  GenerateSteps s;
  s.new_tokens = new_tokens;
  s.prefill = predict_workload(build_graph(model, prefill), model, prefill, gpu);
  s.times.ttft_us = prefill.runtime.generate_setup_us + s.prefill.total_us;
  s.memory = s.prefill.memory;
  if (new_tokens > 1) {
    // Decode steps see prompt .. prompt + new_tokens - 2 cached tokens; their mean.
    s.decode_kv_first = prefill.kv_len + prefill.seq;
    s.decode_kv_last = s.decode_kv_first + new_tokens - 2;
    RunConfig mean = decode_at(prefill, s.decode_kv_first + (new_tokens - 2) / 2);
    s.decode = predict_workload(build_graph(model, mean), model, mean, gpu);
    s.times.per_token_us = s.decode->total_us;
    RunConfig last = decode_at(prefill, s.decode_kv_last);
    s.memory = memory_footprint(build_graph(model, last), model, last, gpu);
  }
  s.times.total_us = s.times.ttft_us + (double)(new_tokens - 1) * s.times.per_token_us;
  s.tokens_per_s = (double)(prefill.batch * new_tokens) / (s.times.total_us * 1e-6);
  return s;
}

GeneratePrediction predict_generate(const ModelConfig& model, const RunConfig& prefill,
                                    int64_t new_tokens, const GpuSpec& gpu) {
  return predict_generate_steps(model, prefill, new_tokens, gpu).times;
}

}  // namespace ridgeline
