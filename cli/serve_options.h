// Flags shared by `ridgeline serve` and `ridgeline capacity`, and their translation into serve/
// inputs: the model's precision, the requests (lengths from flags or a trace file).
#pragma once

#include "serve/engine.h"
#include "serve/request.h"
#include "serve/workload.h"
#include "workloads/run_config.h"

#include <CLI/CLI.hpp>

#include <string>
#include <utility>

namespace ridgeline {

struct ServeOptions {
  std::string gpu, model, engine, precision = "bf16";
  std::string input_len, output_len, workload;
  long long requests = 0, seed = 0;
  std::string format = "table";
};

void add_serve_workload_flags(CLI::App& cmd, ServeOptions& o);
// --precision bf16|fp16|fp8: weights and KV cache in it (activations 16-bit); runtime and launch
// from the engine.
RunConfig serve_run_config(const std::string& precision, const EngineConfig& engine);
// The requests of --input-len/--output-len (with --requests, --seed) or --workload FILE. With
// `undrawn`, lengths from flags are left undrawn there (an empty Workload is returned).
Workload serve_workload(const ServeOptions& o, const CLI::App& cmd,
                        GeneratedWorkload* undrawn = nullptr);

// The mean prompt and output lengths of the run's requests, or of the specs in `undrawn` when
// they are drawn as requests arrive, for an engine that sizes itself from them (trtllm_bench.h).
std::pair<double, double> mean_lengths(const Workload& w,
                                       const GeneratedWorkload* undrawn = nullptr);

}  // namespace ridgeline
