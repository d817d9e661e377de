// Memory a step needs on the GPU:
//  - weights: every parameter of the model (or of --blocks N decoder blocks), every expert of an
//    MoE layer whatever the routing sends it (model_config.h);
//  - KV cache: 2 x layers x batch x positions (a StaticCache: its length) x kv_heads x head_dim,
//    in the KV-cache dtype (MLA: layers x batch x positions x (kv_lora_rank + qk_rope_head_dim))
//    (prefill counts the cache its prompt fills, decode the cache it reads plus the new token);
//  - activations: inference keeps the largest kernel's inputs and outputs alive twice over
//    (producer and consumer overlap); training keeps every forward kernel's output of every
//    block for the backward pass (only the block inputs with full recomputation, plus one block;
//    selective recomputation keeps the same: a flash attention kernel saves no scores),
//    and the fp32 logits;
//  - gradients: one per weight, in the weight dtype; AdamW keeps two moments per weight, in the
//    weight dtype (PyTorch's default for bf16 parameters), fp32 with --master-weights fp32;
//  - reserved: the runtime profile's reserved_bytes (1 GiB in both presets) for the CUDA
//    context, cuBLAS/cuDNN workspaces and allocator slack.
// Sections are told apart by their kind (kernel_role.h), never by their display names.
// The largest batch that fits scales the batch-proportional parts (KV cache, activations).
#include "model/prediction.h"

#include "workloads/autocast.h"
#include "workloads/graph_builder.h"
#include "workloads/op_math.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

double forward_outputs(const GraphSection& s) {
  double bytes = 0;
  for (OpVertex v : launch_order(s)) bytes += op_work(s.dag()[v].op).bytes_written;
  return bytes;
}

double largest_kernel_activations(const OpGraph& g) {
  double most = 0;
  for (const auto& s : g.sections) {
    if (s.kind == SectionKind::Optimizer) continue;  // updates weights and state in place
    for (OpVertex v : launch_order(s)) {
      const Op& op = s.dag()[v].op;
      OpWork w = op_work(op);
      double act = w.unique_bytes();
      if (auto* gm = std::get_if<GemmOp>(&op.shape))
        act -= gm->problems() * gm->n * gm->k * dtype_bytes(gm->dtype);
      most = std::max(most, act);
    }
  }
  return most;
}

double activation_bytes(const OpGraph& g, const ModelConfig& m, const RunConfig& run) {
  if (run.phase != Phase::Train) return 2 * largest_kernel_activations(g);
  double saved = 0;
  for (const auto& s : g.sections) {
    if (s.kind == SectionKind::DecoderBlock) {
      double per_block = forward_outputs(s);
      DType stream = under_autocast(run) ? DType::Fp32 : run.activations;  // the residual's
      double input = (double)step_tokens(run) * m.hidden * dtype_bytes(stream);
      saved +=
          run.recompute == Recompute::Full ? s.repeat * input + per_block : s.repeat * per_block;
    } else if (s.kind == SectionKind::Embedding || s.kind == SectionKind::Head ||
               s.kind == SectionKind::Loss) {
      saved += forward_outputs(s);
    }
  }
  return saved + largest_kernel_activations(g);
}

double kv_cache_bytes(const ModelConfig& m, const RunConfig& run) {
  if (run.phase == Phase::Train) return 0;
  // A StaticCache holds --max-cache-len positions from the start; a sliding layer its window.
  double positions = (double)std::max(step_positions(run), run.cache_capacity);
  return run.batch * ridgeline::kv_cache_bytes(m, positions, run.blocks, dtype_bytes(run.kv_cache));
}

}  // namespace

MemoryFootprint memory_footprint(const OpGraph& graph, const ModelConfig& model,
                                 const RunConfig& run, const GpuSpec& gpu) {
  MemoryFootprint f;
  double params = (double)weight_parameter_count(model, run.blocks);
  // fp32 master parameters (--master-weights fp32): fp32 weights, gradients and AdamW state;
  // their bf16 copies are the forward's weight casts, saved for backward as activations.
  double wbytes = run.weight_bits > 0 ? run.weight_bits / 8.0 : dtype_bytes(param_dtype(run));
  double experts = routed_expert_parameter_count(model, run.blocks);  // MXFP4 ones: inference
  f.weights_bytes =
      non_expert_weight_bytes(run, params - experts,
                              (double)table_parameter_count(model, run.blocks), wbytes) +
      experts * expert_weight_bytes_per_param(run, wbytes);
  f.kv_cache_bytes = kv_cache_bytes(model, run);
  f.activation_bytes = activation_bytes(graph, model, run);
  if (run.phase == Phase::Train) f.gradient_bytes = params * wbytes;
  if (run.optimizer == Optimizer::AdamW) f.optimizer_bytes = 2 * params * wbytes;
  f.reserved_bytes = run.runtime.reserved_bytes;
  f.capacity_bytes = gpu.memory.hbm.capacity_bytes.value;
  double fixed = f.weights_bytes + f.gradient_bytes + f.optimizer_bytes + f.reserved_bytes;
  double per_batch = (f.kv_cache_bytes + f.activation_bytes) / (double)run.batch;
  f.max_batch =
      fixed >= f.capacity_bytes ? 0 : (int64_t)std::floor((f.capacity_bytes - fixed) / per_batch);
  return f;
}

}  // namespace ridgeline
