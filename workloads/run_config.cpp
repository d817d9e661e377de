// Names and checks of run configs; see run_config.h.
#include "workloads/run_config.h"

#include "common/errors.h"
#include "workloads/moe_routing.h"

#include <cmath>
#include <sstream>

namespace ridgeline {

double expert_weight_bytes_per_param(const RunConfig& run, double dense_bytes) {
  return run.mxfp4_experts ? kMxfp4BitsPerWeight / 8 : dense_bytes;
}

bool weights_quantized(const RunConfig& run) {
  return run.weights == DType::Fp8 || run.weights == DType::Fp4 || run.weight_bits > 0;
}

DType table_weight_dtype(const RunConfig& run) {
  if (!weights_quantized(run)) return run.weights;
  return run.activations == DType::Fp16 ? DType::Fp16 : DType::Bf16;
}

double non_expert_weight_bytes(const RunConfig& run, double params, double tables,
                               double bytes_per_param) {
  if (!weights_quantized(run)) return params * bytes_per_param;
  return (params - tables) * bytes_per_param + tables * dtype_bytes(table_weight_dtype(run));
}

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::Prefill:
      return "prefill";
    case Phase::Decode:
      return "decode";
    case Phase::Train:
      return "train";
  }
  return "?";
}

const char* runtime_name(const RuntimeProfile& r) {
  return r.name.c_str();
}
const char* launch_name(LaunchMode l) {
  return l == LaunchMode::Eager ? "eager" : "graph";
}
const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::None:
      return "none";
    case Recompute::Selective:
      return "selective";
    case Recompute::Full:
      return "full";
  }
  return "?";
}

const char* master_weights_name(MasterWeights w) {
  return w == MasterWeights::Fp32 ? "fp32" : "none";
}

namespace {

// --master-weights and --grad-scaler: what torch.autocast and GradScaler accept.
void check_mixed_precision(const RunConfig& run) {
  auto fail = [](const std::string& flag, const std::string& msg) {
    throw InputError(flag + ": " + msg);
  };
  bool master = run.master_weights == MasterWeights::Fp32;
  if (master && run.phase != Phase::Train)
    fail("--master-weights", "master weights belong to training (--phase train)");
  if (master && run.weights != DType::Bf16 && run.weights != DType::Fp16)
    fail("--master-weights", "autocast casts the fp32 parameters to --weights bf16 or fp16, got " +
                                 std::string(dtype_name(run.weights)));
  if (master && run.activations != run.weights)
    fail("--master-weights", "autocast computes in one dtype: --activations must equal --weights");
  if (!run.grad_scaler) return;
  if (run.phase != Phase::Train)
    fail("--grad-scaler", "loss scaling belongs to training (--phase train)");
  if (run.weights != DType::Fp16)
    fail("--grad-scaler", "loss scaling is for fp16 (--weights fp16); " +
                              std::string(dtype_name(run.weights)) +
                              " has fp32's exponent range or is fp32");
  if (!master)
    fail("--grad-scaler",
         "GradScaler refuses fp16 gradients (\"Attempting to unscale FP16 "
         "gradients\"): add --master-weights fp32");
  if (run.optimizer == Optimizer::None)
    fail("--grad-scaler", "GradScaler unscales in scaler.step(optimizer): add --optimizer adamw");
}

std::string format_number(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

}  // namespace

int64_t step_tokens(const RunConfig& run) {
  return run.phase == Phase::Decode ? run.batch : run.batch * run.seq;
}

int64_t step_positions(const RunConfig& run) {
  return run.phase == Phase::Decode ? run.kv_len + 1 : run.kv_len + run.seq;
}

void check_run_config(const RunConfig& run, const ModelConfig& model) {
  auto fail = [](const std::string& flag, const std::string& msg) {
    throw InputError(flag + ": " + msg);
  };
  if (run.batch < 1) fail("--batch", "must be at least 1, got " + std::to_string(run.batch));
  if (run.phase == Phase::Decode) {
    if (run.kv_len < 1) fail("--kv-len", "decode needs the number of cached tokens (>= 1)");
    if (run.seq != 0) fail("--seq", "decode takes --kv-len, not --seq");
  } else {
    if (run.seq < 1) fail("--seq", std::string(phase_name(run.phase)) + " needs --seq >= 1");
    if (run.kv_len < 0) fail("--kv-len", "must be at least 0, got " + std::to_string(run.kv_len));
    if (run.kv_len != 0 && run.phase == Phase::Train)
      fail("--kv-len", "train takes --seq, not --kv-len");
  }
  int64_t positions = step_positions(run);
  if (model.max_positions > 0 && positions > model.max_positions) {
    fail(run.phase == Phase::Decode || run.kv_len > 0 ? "--kv-len" : "--seq",
         std::to_string(positions) + " positions exceed the model's " +
             std::to_string(model.max_positions) + " (max_position_embeddings)");
  }
  if (run.blocks < 0) fail("--blocks", "must be at least 1 (leave it out for the whole model)");
  if (run.logits_all && run.blocks > 0)
    fail("--logits", "--blocks N runs no LM head, so there are no logits to choose");
  if (run.logits_all && run.phase == Phase::Train)
    fail("--logits", "training computes logits for every position (the loss needs them all)");
  if (run.blocks > model.layers) {
    fail("--blocks", std::to_string(run.blocks) + " exceeds the model's " +
                         std::to_string(model.layers) + " layers");
  }
  if (run.phase == Phase::Train && run.weights == DType::Fp8) {
    fail("--weights", "fp8 weights are for inference; train in bf16 or fp16");
  }
  if (run.phase == Phase::Train && run.weights == DType::Fp4)
    fail("--weights", "nvfp4 weights are for inference; train in bf16 or fp16");
  if (run.activations == DType::Fp4 || run.kv_cache == DType::Fp4)
    fail(run.activations == DType::Fp4 ? "--activations" : "--kv-cache",
         "nvfp4 is a GEMM operand format (--weights nvfp4); activations and the KV cache stay "
         "bf16, fp16 or fp8");
  if (run.weights == DType::Fp4 && run.mxfp4_experts)
    fail("--expert-weights", "mxfp4: not with --weights nvfp4 (the experts are NVFP4 already)");
  if (run.optimizer != Optimizer::None && run.phase != Phase::Train) {
    fail("--optimizer", "an optimizer step belongs to training (--phase train)");
  }
  if (run.recompute != Recompute::None && run.phase != Phase::Train)
    fail("--recompute", "only training saves activations");
  if (run.weight_bits > 0 && run.phase == Phase::Train)
    fail("--weights", "int8/int4 weights are for inference");
  if (run.mxfp4_experts && model.moe.experts == 0)
    fail("--expert-weights", "mxfp4: " + model.name + " has no experts");
  if (run.mxfp4_experts && run.phase == Phase::Train)
    fail("--expert-weights", "mxfp4 experts are for inference");
  if (run.mxfp4_experts && run.weight_bits > 0)
    fail("--expert-weights", "mxfp4: not with int8/int4 --weights");
  if (!(run.moe_imbalance >= 1))  // NaN too
    fail("--moe-imbalance", "the busiest expert has at least the mean load (>= 1)");
  if (run.moe_imbalance > 1 && model.moe.experts == 0)
    fail("--moe-imbalance", model.name + " has no experts");
  double most = max_moe_imbalance(model.moe.experts, model.moe.top_k);
  if (model.moe.experts > 0 && run.moe_imbalance > most * (1 + 1e-12)) {
    fail("--moe-imbalance",
         format_number(run.moe_imbalance) + " is impossible for top-" +
             std::to_string(model.moe.top_k) + " of " + std::to_string(model.moe.experts) +
             " experts: the busiest expert gets each token at most once, so at most " +
             format_number(most) + " times the mean (E/k)");
  }
  if (run.cache_capacity != 0) {
    const BlockChoices& c = run.runtime.choices_for(model);
    // torch.compile's decode (mask inductor_sdpa) runs on a StaticCache too.
    if (c.cache_update != CacheUpdate::StaticIndexCopy && c.mask != AttentionMask::InductorSdpa)
      fail("--max-cache-len", "only a StaticCache has a length of its own; runtime " +
                                  run.runtime.name +
                                  " updates its cache otherwise (with --runtime hf-transformers, "
                                  "add --kv-cache-impl static)");
    if (run.phase == Phase::Train) fail("--max-cache-len", "training keeps no cache");
    if (run.cache_capacity < positions)
      fail("--max-cache-len", std::to_string(run.cache_capacity) + " is shorter than the " +
                                  std::to_string(positions) + " positions the step reaches");
  }
  check_mixed_precision(run);
  for (DType d : {run.weights, run.activations, run.kv_cache}) {
    if (d == DType::Tf32)
      fail("--weights/--activations/--kv-cache", "tf32 is a tensor-core mode, not a storage type");
  }
}

}  // namespace ridgeline
