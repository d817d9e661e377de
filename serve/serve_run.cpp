// run_serving (see serve_run.h).
#include "serve/serve_run.h"

#include "common/errors.h"

namespace ridgeline {

KvSizing engine_kv(const EngineConfig& engine, StepModel& model) {
  return size_kv_cache(engine, model);
}

namespace {

// Why a request can never run, or "" when it can.
std::string never_fits(const Request& r, const StepMemory& m, const KvSizing& kv,
                       const EngineConfig& e) {
  int64_t total = r.input_tokens + r.output_tokens;
  if (m.max_context_tokens > 0 && total > m.max_context_tokens)
    return std::to_string(r.input_tokens) + " + " + std::to_string(r.output_tokens) +
           " tokens exceed the model's context of " + std::to_string(m.max_context_tokens);
  int64_t blocks = (total + e.block_size_tokens - 1) / e.block_size_tokens;
  if (blocks > kv.blocks)
    return std::to_string(total) + " tokens need " + std::to_string(blocks) +
           " KV blocks; the engine's cache holds " + std::to_string(kv.blocks) + " blocks of " +
           std::to_string(e.block_size_tokens) + " tokens";
  return "";
}

}  // namespace

ServeRun run_serving(Workload workload, const ServeSetup& setup, const KvSizing& kv) {
  ServeRun run;
  run.engine = *setup.engine;
  run.kv = kv;
  run.arrivals = setup.arrivals;
  StepMemory mem = setup.model->memory();
  std::vector<Request> kept;
  for (const Request& r : workload.requests) {
    std::string why = never_fits(r, mem, kv, run.engine);
    if (why.empty()) {
      kept.push_back(r);
      kept.back().id = (int64_t)kept.size() - 1;
    } else if (setup.lengths_from_flags) {
      throw InputError("--input-len/--output-len: request " + std::to_string(r.id) + ": " + why);
    } else {
      workload.rejected.push_back({"request " + std::to_string(r.id), why});
    }
  }
  if (kept.empty()) throw InputError("--workload: no request can run (all were rejected)");
  workload.requests = std::move(kept);
  assign_arrivals(workload, setup.arrivals, setup.seed);
  if (setup.warmup_requests >= (int64_t)workload.requests.size())
    throw InputError("--warmup " + std::to_string(setup.warmup_requests) +
                     ": must be less than the requests that run (" +
                     std::to_string(workload.requests.size()) + ")");
  SimOptions opt{setup.arrivals, kv.blocks, setup.record_steps, setup.warmup_requests,
                 setup.progress};
  run.sim = simulate(workload.requests, run.engine, *setup.model, opt);
  run.report = make_report(run.sim, setup.model->gpus(), setup.slo, setup.warmup_requests);
  run.workload = std::move(workload);
  return run;
}

}  // namespace ridgeline
