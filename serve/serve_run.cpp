// run_serving (see serve_run.h).
#include "serve/serve_run.h"

#include "common/errors.h"
#include "serve/disaggregated.h"
#include "serve/kv_pool.h"
#include "serve/metrics_stream.h"

namespace ridgeline {

KvSizing engine_kv(const EngineConfig& engine, StepModel& model) {
  return size_kv_cache(engine, model);
}

EngineConfig replica_engine(const EngineConfig& engine, const StepModel& model) {
  EngineConfig e = engine;
  e.max_num_seqs *= model.data_parallel_ranks();
  e.max_num_batched_tokens *= model.data_parallel_ranks();
  return e;
}

namespace {

// Why a request can never run, or "" when it can.
std::string never_fits(const Request& r, const StepMemory& m, const KvSizing& kv,
                       const EngineConfig& e) {
  int64_t total = r.input_tokens + r.output_tokens;
  if (m.max_context_tokens > 0 && total > m.max_context_tokens)
    return std::to_string(r.input_tokens) + " + " + std::to_string(r.output_tokens) +
           " tokens exceed the model's context of " + std::to_string(m.max_context_tokens);
  int64_t blocks = kv_blocks_for(total, e.block_size_tokens, kv_window(m));
  if (blocks > kv.blocks / kv.ranks)
    return std::to_string(total) + " tokens need " + std::to_string(blocks) +
           " KV blocks; the engine's cache holds " + std::to_string(kv.blocks / kv.ranks) +
           (kv.ranks > 1 ? " a rank" : "") + " blocks of " + std::to_string(e.block_size_tokens) +
           " tokens";
  return "";
}

}  // namespace

namespace {

void check_warmup(const ServeSetup& setup, int64_t count) {
  if (setup.warmup_requests >= count)
    throw InputError("--warmup " + std::to_string(setup.warmup_requests) +
                     ": must be less than the requests that run (" + std::to_string(count) + ")");
}

// The loop over `source`, its report folded as it runs.
void simulate_into(ServeRun& run, RequestSource& source, const ServeSetup& setup) {
  int64_t count = source.size();
  MetricsFold fold(setup.slo, setup.warmup_requests, count - setup.warmup_requests);
  SimOptions opt;
  opt.arrivals = setup.arrivals;
  opt.kv_blocks = run.kv.blocks;
  opt.record_steps = setup.record_steps;
  opt.warmup_requests = setup.warmup_requests;
  opt.progress = setup.progress;
  opt.keep_requests = setup.keep_requests;
  opt.sinks = {&fold};
  if (setup.log_requests) {
    run.request_log = std::make_shared<RequestLog>(count);
    opt.sinks.push_back(run.request_log.get());
  }
  run.sim = simulate(source, run.engine, *setup.model, opt);
  run.report = fold.report(run.sim, setup.model->gpus());
}

}  // namespace

Workload prepare_workload(Workload workload, const ServeSetup& setup, const KvSizing& kv) {
  const EngineConfig& engine = *setup.engine;
  StepMemory mem = setup.model->memory();
  size_t kept = 0;  // filtered in place: a 10^6-line trace is not copied
  for (const Request& r : workload.requests) {
    std::string why = never_fits(r, mem, kv, engine);
    if (why.empty()) {
      Request& k = workload.requests[kept] = r;
      k.id = (int64_t)kept++;
    } else if (setup.lengths_from_flags) {
      throw InputError("--input-len/--output-len: request " + std::to_string(r.id) + ": " + why);
    } else {
      workload.rejected.push_back({"request " + std::to_string(r.id), why});
    }
  }
  if (kept == 0) throw InputError("--workload: no request can run (all were rejected)");
  workload.requests.resize(kept);
  assign_arrivals(workload, setup.arrivals, setup.seed);
  return workload;
}

int64_t ServeSetup::gpus() const {
  int64_t g = model->gpus();
  return disaggregate ? g * (disaggregate->prefill + disaggregate->decode) : g;
}

ServeRun run_serving(Workload input, const ServeSetup& setup, const KvSizing& kv) {
  if (setup.disaggregate) return run_disaggregated(std::move(input), setup, kv);
  ServeRun run;
  run.engine = replica_engine(*setup.engine, *setup.model);
  run.kv = kv;
  run.arrivals = setup.arrivals;
  Workload workload = prepare_workload(std::move(input), setup, kv);
  check_warmup(setup, (int64_t)workload.requests.size());
  VectorSource source(workload.requests, setup.arrivals.kind != ArrivalSpec::Kind::ClosedLoop);
  simulate_into(run, source, setup);
  run.workload = std::move(workload);
  return run;
}

ServeRun run_serving(const GeneratedWorkload& workload, const ServeSetup& setup,
                     const KvSizing& kv) {
  require_invariant(setup.disaggregate == nullptr, "a Workload for disaggregated pools");
  ServeRun run;
  run.engine = replica_engine(*setup.engine, *setup.model);
  run.kv = kv;
  run.arrivals = setup.arrivals;
  check_warmup(setup, workload.count);
  DrawnSource source(workload.input, workload.output, workload.count, workload.seed,
                     setup.arrivals);
  source.check_each([mem = setup.model->memory(), &kv, &run](const Request& r, int64_t i) {
    std::string why = never_fits(r, mem, kv, run.engine);
    if (!why.empty())
      throw InputError("--input-len/--output-len: request " + std::to_string(i) + ": " + why);
  });
  simulate_into(run, source, setup);
  return run;
}

}  // namespace ridgeline
