// The training-precision flags of `predict`; see fp8_options.h.
#include "cli/fp8_options.h"

#include "common/errors.h"

namespace ridgeline {

void add_fp8_flags(CLI::App& cmd, Fp8Flags& f) {
  cmd.add_option("--precision", f.precision,
                 "Training GEMM precision with --cluster: bf16 (default) or fp8 (Transformer "
                 "Engine: linear layers' GEMMs in fp8 with their casts; attention stays bf16)")
      ->check(CLI::IsMember({"bf16", "fp8"}));
  cmd.add_option("--fp8-recipe", f.recipe,
                 "FP8 scaling with --precision fp8: delayed (default; amax history), current "
                 "(per-tensor current scaling), blockwise (1x128 / 128x128 scales) or mxfp8 "
                 "(32-element microscaling, Blackwell)")
      ->check(CLI::IsMember({"delayed", "current", "blockwise", "mxfp8"}));
  cmd.add_flag("--fp8-param-gather", f.param_gather,
               "With --precision fp8: fp8 primary weights, so ZeRO 1-2's parameter all-gather "
               "carries the decoder blocks' weights in fp8 (NeMo 2.0's fp8_params)");
}

Fp8Training fp8_training_from(const CLI::App& cmd, const Fp8Flags& f, bool on_cluster,
                              const std::string& phase) {
  auto given = [&](const char* flag) { return cmd.get_option(flag)->count() > 0; };
  Fp8Training t;
  t.on = f.precision == "fp8";
  if (!t.on) {
    for (const char* flag : {"--fp8-recipe", "--fp8-param-gather"})
      if (given(flag)) throw InputError(std::string(flag) + ": only with --precision fp8");
    return t;
  }
  if (!on_cluster)
    throw InputError(
        "--precision fp8: FP8 training is predicted on a cluster (--cluster C --gpus N ...; "
        "--gpus 1 for one GPU)");
  if (phase != "train")
    throw InputError("--precision fp8: Transformer Engine FP8 is a training precision; --phase " +
                     phase + " takes --weights / --activations fp8");
  t.recipe = *parse_fp8_recipe(f.recipe);
  t.param_gather = f.param_gather;
  return t;
}

}  // namespace ridgeline
