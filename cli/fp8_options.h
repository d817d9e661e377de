// `predict`'s training-precision flags: --precision bf16|fp8, --fp8-recipe and
// --fp8-param-gather (Transformer Engine FP8 training on a cluster: workloads/fp8_training.h).
// Apart from predict_options.h so that the other commands sharing those flags do not take them.
#pragma once

#include "workloads/fp8_training.h"

#include <CLI/CLI.hpp>

#include <string>

namespace ridgeline {

struct Fp8Flags {
  std::string precision = "bf16";
  std::string recipe = "delayed";
  bool param_gather = false;
};

void add_fp8_flags(CLI::App& cmd, Fp8Flags& f);

// What the flags ask for. Throws InputError naming the flag for --precision fp8 without
// --cluster or outside training, and for --fp8-recipe / --fp8-param-gather without
// --precision fp8 (the GPU and the strategy are checked by check_fp8_training).
Fp8Training fp8_training_from(const CLI::App& cmd, const Fp8Flags& f, bool on_cluster,
                              const std::string& phase);

}  // namespace ridgeline
