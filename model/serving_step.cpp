// Serving step prices (see serving_step.h).
#include "model/serving_step.h"

#include "model/op_cost.h"
#include "model/prediction.h"
#include "workloads/graph_builder.h"
#include "workloads/op_math.h"

#include <algorithm>

namespace ridgeline {

namespace {

// The attention kernel's math dtype, as the graph builders choose it (block_forward.cpp).
DType attention_dtype(const RunConfig& run) {
  if (run.activations != DType::Fp8) return run.activations;
  return run.kv_cache == DType::Fp8 ? DType::Fp8 : run.kv_cache;
}

// One kernel's time as the run launches it: eagerly, no kernel takes less than PyTorch's
// per-op host cost.
double launched_us(const OpShape& shape, const GpuSpec& gpu, const RunConfig& run) {
  double us = predict_op(Op{"", shape, false}, gpu).time_us;
  return run.launch == LaunchMode::Eager ? std::max(us, gpu.launch.python_eager_us.value) : us;
}

}  // namespace

double serving_dense_us(const GpuSpec& gpu, const ModelConfig& model, const RunConfig& run,
                        int64_t tokens, int64_t sampled) {
  OpGraph g = build_serving_step_graph(model, run, tokens, sampled);
  return predict_workload(g, model, run, gpu).total_us;
}

double serving_attention_us(const GpuSpec& gpu, const ModelConfig& model, const RunConfig& run,
                            int64_t requests, int64_t q_len, int64_t kv_len) {
  if (model.deepseek.mla.enabled())
    return predict_workload(build_serving_mla_attention_graph(model, run, requests, q_len, kv_len),
                            model, run, gpu)
        .total_us;
  double us = 0;
  for (const LayerGroup& g : layer_groups(model, model.layers)) {
    AttentionOp a;
    a.batch = requests;
    a.heads = g.model.heads;
    a.kv_heads = g.model.kv_heads;
    a.head_dim = g.model.head_dim;
    a.q_len = q_len;
    // A windowed layer (sliding, or Llama 4's chunk) attends to at most its window before each
    // query: the group's keys are capped at the window (or the chunk's queries, when longer).
    int64_t w = g.model.sliding_window;
    a.kv_len = w > 0 ? std::min(kv_len, std::max(w, q_len)) : kv_len;
    a.causal = q_len > 1;
    a.dtype = attention_dtype(run);
    if (run.kv_cache != a.dtype) a.kv_dtype = run.kv_cache;
    us += launched_us(a, gpu, run) * (double)g.count;
  }
  return us;
}

double serving_packed_attention_us(const GpuSpec& gpu, const ModelConfig& model,
                                   const RunConfig& run, int64_t q_tokens, int64_t kv_tokens) {
  DType kv_dtype = run.kv_cache;
  // cache.update's read: K and V of every request gathered by index (a vectorized gather).
  ElementwiseOp gather;
  gather.kind = ElementwiseKind::Copy;
  gather.numel = kv_tokens * model.kv_heads * model.head_dim;
  gather.dtype = kv_dtype;
  // repeat_kv's expand and .contiguous() of the transposed view: ATen's strided copy to every
  // query head (a copy even without GQA: the view is transposed).
  ElementwiseOp expand;
  expand.kind = ElementwiseKind::Copy;
  expand.numel = kv_tokens * model.heads * model.head_dim;
  expand.dtype = kv_dtype;
  expand.strided = true;
  AttentionOp a;
  a.batch = 1;
  a.heads = model.heads;
  a.kv_heads = model.heads;
  a.head_dim = model.head_dim;
  a.q_len = q_tokens;
  a.kv_len = std::max(kv_tokens, q_tokens);
  a.causal = false;
  a.additive_mask = true;
  a.dtype = attention_dtype(run);
  if (kv_dtype != a.dtype) a.kv_dtype = kv_dtype;
  double layer_us = 2 * launched_us(gather, gpu, run) + 2 * launched_us(expand, gpu, run) +
                    launched_us(a, gpu, run);
  return layer_us * (double)model.layers;
}

ServingMemory serving_memory(const GpuSpec& gpu, const ModelConfig& model, const RunConfig& run) {
  RunConfig one = run;
  one.phase = Phase::Decode;
  one.batch = 1;
  one.kv_len = 1;
  one.blocks = 0;
  MemoryFootprint f = memory_footprint(build_graph(model, one), model, one, gpu);
  ServingMemory m{f.capacity_bytes, f.weights_bytes, f.reserved_bytes, 0, 0, 0};
  set_serving_kv_bytes(m, model, run);
  return m;
}

RunConfig serving_run(const ModelConfig& model, RunConfig run) {
  check_serving_mla(model, run);
  // An NVFP4 checkpoint (ModelOpt's, e.g. gpt-oss's FP4 rows) holds its experts in NVFP4 too.
  run.mxfp4_experts = model.moe.mxfp4_experts && run.weights != DType::Fp4;
  return run;
}

void set_serving_kv_bytes(ServingMemory& m, const ModelConfig& model, const RunConfig& run) {
  double bytes = dtype_bytes(run.kv_cache), windowed = 0;
  m.kv_bytes_per_token = kv_cache_bytes_per_token(model, bytes);  // K and V, or MLA's latent
  m.kv_window_tokens = 0;
  m.kv_windowed_share = 0;
  if (model.layer_kinds.empty()) return;  // a uniform window (Mistral) keeps every token
  for (const LayerGroup& g : layer_groups(model, model.layers)) {
    if (g.model.sliding_window == 0) continue;
    windowed += kv_cache_bytes(g.model, 1, g.count, bytes);
    m.kv_window_tokens = std::max(m.kv_window_tokens, g.model.sliding_window);
  }
  m.kv_windowed_share = m.kv_bytes_per_token > 0 ? windowed / m.kv_bytes_per_token : 0;
}

double serving_activation_peak_bytes(const GpuSpec& gpu, const ModelConfig& model,
                                     const RunConfig& run, int64_t tokens) {
  RunConfig p = run;
  p.phase = Phase::Prefill;
  p.batch = 1;
  p.seq = tokens;
  p.kv_len = 0;
  p.blocks = 0;
  return memory_footprint(build_graph(model, p), model, p, gpu).activation_bytes;
}

}  // namespace ridgeline
