// generate() from a prefill and decode steps; see generate_predict.h.
#include "model/generate_predict.h"

#include "common/errors.h"
#include "model/prediction.h"
#include "workloads/graph_builder.h"

namespace ridgeline {

GeneratePrediction predict_generate(const ModelConfig& model, const RunConfig& prefill,
                                    int64_t new_tokens, const GpuSpec& gpu) {
  if (prefill.phase != Phase::Prefill || new_tokens < 1)
    throw InputError("--new-tokens: generate needs a prompt (--seq) and at least one new token");
  GeneratePrediction g;
  g.ttft_us = predict_workload(build_graph(model, prefill), model, prefill, gpu).total_us;
  if (new_tokens > 1) {
    RunConfig decode = prefill;
    decode.phase = Phase::Decode;
    decode.seq = 0;
    // Decode steps see prompt .. prompt + new_tokens - 2 cached tokens; their mean.
    decode.kv_len = prefill.kv_len + prefill.seq + (new_tokens - 2) / 2;
    g.per_token_us = predict_workload(build_graph(model, decode), model, decode, gpu).total_us;
  }
  g.total_us = g.ttft_us + (double)(new_tokens - 1) * g.per_token_us;
  return g;
}

}  // namespace ridgeline
