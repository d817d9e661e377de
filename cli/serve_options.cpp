// Flags shared by serve and capacity (see serve_options.h).
#include "cli/serve_options.h"

#include "common/errors.h"
#include "serve/workload.h"

#include <algorithm>

namespace ridgeline {

void add_serve_workload_flags(CLI::App& cmd, ServeOptions& o) {
  cmd.add_option("--model", o.model, "Model preset or HF config.json")->required();
  cmd.add_option("--precision", o.precision,
                 "Weights and KV cache: bf16, fp16, fp8 or nvfp4 (NVFP4 GEMMs, FP8 KV cache)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp8", "nvfp4"}));
  cmd.add_option("--input-len", o.input_len,
                 "Prompt tokens: N, uniform:MIN:MAX, normal:MEAN:SD or lognormal:MEDIAN:SIGMA");
  cmd.add_option("--output-len", o.output_len, "Output tokens (same forms as --input-len)");
  cmd.add_option("--workload", o.workload,
                 "Trace file (.csv or .jsonl): arrival_s, input_tokens, output_tokens a line");
  cmd.add_option("--requests", o.requests, "Requests to send (with --input-len/--output-len)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--seed", o.seed, "Seed of the lengths and arrivals")
      ->check(CLI::NonNegativeNumber);
}

RunConfig serve_run_config(const std::string& precision, const EngineConfig& engine) {
  RunConfig r = engine_precisions(*parse_dtype(precision), engine);
  r.runtime = load_runtime(engine.runtime);
  r.launch = engine.graph_launch ? LaunchMode::Graph : LaunchMode::Eager;
  return r;
}

Workload serve_workload(const ServeOptions& o, const CLI::App& cmd, GeneratedWorkload* undrawn) {
  bool lengths = !o.input_len.empty() || !o.output_len.empty();
  if (lengths && !o.workload.empty())
    throw InputError("--workload: gives the lengths itself; drop --input-len/--output-len");
  if (!o.workload.empty()) {
    if (cmd.count("--requests") > 0)
      throw InputError("--requests: the --workload file's lines are the requests");
    if (cmd.count("--seed") > 0) throw InputError("--seed: a --workload file has no random draws");
    return read_trace("--workload", o.workload);
  }
  if (o.input_len.empty() || o.output_len.empty())
    throw InputError(
        "--input-len and --output-len (or --workload FILE): say what the requests are");
  if (o.requests < 1) throw InputError("--requests: how many requests to send (>= 1)");
  // A run's memory no longer grows with its requests, but its time does (about 3.5 s for 10^6
  // short requests): 10^9 is an hour. Found probing: 2^63 - 1 requests never ended.
  if (o.requests > 1000000000)
    throw InputError("--requests " + std::to_string(o.requests) + ": at most 1000000000");
  GeneratedWorkload g{parse_length_spec("--input-len", o.input_len),
                      parse_length_spec("--output-len", o.output_len), o.requests,
                      (uint64_t)o.seed};
  if (undrawn != nullptr) {
    *undrawn = g;
    return {};
  }
  return generate_workload(g.input, g.output, g.count, g.seed);
}

std::pair<double, double> mean_lengths(const Workload& w, const GeneratedWorkload* undrawn) {
  if (undrawn != nullptr) return {mean_length(undrawn->input), mean_length(undrawn->output)};
  double in = 0, out = 0;
  for (const Request& r : w.requests) in += (double)r.input_tokens, out += (double)r.output_tokens;
  double n = std::max<double>(1, (double)w.requests.size());
  return {std::max(1.0, in / n), std::max(1.0, out / n)};
}

}  // namespace ridgeline
