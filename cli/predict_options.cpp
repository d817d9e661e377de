// See predict_options.h.
#include "cli/predict_options.h"

#include "common/errors.h"

namespace ridgeline {

void add_target_flags(CLI::App& cmd, PredictOptions& o) {
  cmd.add_option("--gpu", o.gpu, "GPU preset name or path to a .json (default h100-sxm)");
  cmd.add_option("--set", o.sets,
                 "What-if override of a GPU figure, PATH=VALUE, PATH=+30%, PATH=1.3x (repeatable)");
  cmd.add_option("--profile", o.profile,
                 "Calibrated profile: a built-in name (h100-sxm), a file from `ridgeline calibrate "
                 "fit`, or none; default: the "
                 "GPU's own, else its architecture's");
  add_workload_flags(cmd, o, true);
  cmd.add_option("--format", o.format, "table (default), json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
}

void add_predict_flags(CLI::App& cmd, PredictOptions& o) {
  add_target_flags(cmd, o);
  cmd.add_flag("--ignore-memory", o.ignore_memory,
               "Predict even when the step does not fit in memory");
  cmd.add_option("--trace", o.trace, "Write a Chrome/Perfetto trace of the step to this file");
  cmd.add_option("--top", o.top, "Kernels listed in the table (default 10; table format only)")
      ->check(CLI::PositiveNumber);
}

void add_workload_flags(CLI::App& cmd, PredictOptions& o, bool required) {
  cmd.add_option("--model", o.model,
                 "Model preset name, path to a Hugging Face config.json, or the folder holding it")
      ->required(required);
  cmd.add_option("--phase", o.phase, "prefill, decode or train")
      ->required(required)
      ->check(CLI::IsMember({"prefill", "decode", "train"}));
  cmd.add_option("--batch", o.batch, "Sequences per step (default 1)");
  cmd.add_option("--seq", o.seq, "Prompt tokens (prefill) or sequence length (train)");
  cmd.add_option("--kv-len", o.kv_len,
                 "Cached tokens: before the new one (decode), or before the prompt chunk "
                 "(prefill of a chunk over a cached prefix)");
  cmd.add_option("--kv-cache-impl", o.kv_cache_impl,
                 "transformers' cache class: dynamic (DynamicCache, the hf-transformers default) "
                 "or static (StaticCache); only with a runtime that uses them")
      ->check(CLI::IsMember({"dynamic", "static"}));
  cmd.add_option(
         "--max-cache-len", o.max_cache_len,
         "A StaticCache's length, which attention spans in decode (runtimes with "
         "kv_cache/update static_index_copy, e.g. hf-transformers with --kv-cache-impl static; "
         "default: the "
         "positions the step reaches)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--blocks", o.blocks,
                 "Only N >= 1 decoder blocks (no embedding, final norm or LM head)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--logits", o.logits, "last (default) or all positions")
      ->check(CLI::IsMember({"last", "all"}));
  cmd.add_option("--launch", o.launch, "graph (default) or eager")
      ->check(CLI::IsMember({"graph", "eager"}));
  cmd.add_option("--runtime", o.runtime,
                 "Which kernels the implementation launches: a preset (pytorch-eager, the "
                 "default, fused or hf-transformers) or a runtime .json file (docs/runtimes.md)");
  cmd.add_option("--weights", o.weights,
                 "Weight precision: bf16 (default), fp16, fp32, fp8 (e4m3, inference), int8 or "
                 "int4 (weight-only, dequantized in the GEMM; inference)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "fp8", "int8", "int4"}));
  cmd.add_option("--activations", o.activations,
                 "Activation precision: bf16 (default), fp16, fp32 or fp8 (norms, elementwise "
                 "kernels, attention's queries)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "fp8"}));
  cmd.add_option("--kv-cache", o.kv_cache,
                 "KV-cache precision: bf16 (default), fp16, fp32 or fp8 (what attention reads)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "fp8"}));
  cmd.add_option("--optimizer", o.optimizer, "none (default) or adamw (train)")
      ->check(CLI::IsMember({"none", "adamw"}));
  cmd.add_flag("--recompute", o.recompute, "Recompute activations in the backward pass (train)");
  cmd.add_option("--moe-imbalance", o.moe_imbalance,
                 "Busiest expert's tokens over the mean (default 1)");
}

RunConfig run_config_from(const PredictOptions& o) {
  RunConfig r;
  r.phase =
      o.phase == "decode" ? Phase::Decode : (o.phase == "train" ? Phase::Train : Phase::Prefill);
  r.batch = o.batch;
  r.seq = o.seq;
  r.kv_len = o.kv_len;
  r.blocks = o.blocks;
  r.cache_capacity = o.max_cache_len;
  r.logits_all = o.logits == "all";
  r.launch = o.launch == "eager" ? LaunchMode::Eager : LaunchMode::Graph;
  r.runtime = load_runtime(o.runtime);
  if (!o.kv_cache_impl.empty()) select_cache_impl(r.runtime, o.kv_cache_impl, "--kv-cache-impl");
  if (o.weights == "int8" || o.weights == "int4") {  // weight-only: bf16 math, narrow weights
    r.weights = DType::Bf16;
    r.weight_bits = o.weights == "int8" ? 8 : 4;
  } else {
    r.weights = *parse_dtype(o.weights);
  }
  r.activations = *parse_dtype(o.activations);
  r.kv_cache = *parse_dtype(o.kv_cache);
  r.optimizer = o.optimizer == "adamw" ? Optimizer::AdamW : Optimizer::None;
  r.recompute = o.recompute;
  r.moe_imbalance = o.moe_imbalance;
  return r;
}

}  // namespace ridgeline
