// The discrete-event serving loop. Events are arrivals and step ends: at each step boundary the
// requests that arrived join the waiting queue, the engine's policy forms the batch, the step
// model prices it (device time + the engine's host overhead a step), and when it ends every
// request whose computed tokens caught up emits a token (streamed at the step's end). Closed
// loop: a finished request sends the next one at its finish time. Requests are taken from a
// RequestSource as they arrive and forgotten when they finish: memory follows the requests in
// the engine, not the run's length. Each finished request and each step's token gaps go to the
// options' sinks as they happen (a MetricsFold, metrics_stream.h; a request log for outputs
// that list requests); the result keeps every request's timestamps and gaps only when asked.
#pragma once

#include "serve/arrivals.h"
#include "serve/engine.h"
#include "serve/request.h"
#include "serve/request_source.h"
#include "serve/step_model.h"

#include <functional>
#include <vector>

namespace ridgeline {

struct RequestRecord {
  int64_t id = 0, input_tokens = 0, output_tokens = 0, preemptions = 0;
  double arrival_s = 0, first_scheduled_s = 0, first_token_s = 0, finish_s = 0;
  double max_itl_s = 0;
};

struct StepRecord {
  double start_s = 0, end_s = 0;
  int64_t tokens = 0, padded_tokens = 0, prefill_tokens = 0, decodes = 0, prefills = 0;
  int64_t running = 0, waiting = 0;
  double kv_used = 0;  // fraction of blocks held at the step's end
  int64_t slot = 0;  // pipeline parallelism: launch count mod pp (batches of a slot never overlap)
};

struct SimResult {
  std::vector<RequestRecord> requests;  // by request id (empty unless keep_requests)
  // Pooled inter-token gaps of the measured requests as (gap, tokens), each distinct gap of a
  // step once (empty unless keep_requests).
  std::vector<std::pair<double, int64_t>> itl_gaps;
  std::vector<StepRecord> steps;  // empty unless asked for
  int64_t step_count = 0, preemptions = 0, kv_blocks = 0, block_size_tokens = 0;
  double kv_used_mean = 0, kv_used_max = 0;  // time-weighted over busy time
  double duration_s = 0;                     // first arrival to last finish
};

// What the loop reports as it runs.
class SimSink {
 public:
  virtual ~SimSink() = default;
  virtual void finished(const RequestRecord& r) = 0;  // every request, warm-up included
  virtual void token_gaps(double /*gap_s*/, int64_t /*tokens*/) {}  // measured requests only
};

struct SimOptions {
  ArrivalSpec arrivals;
  int64_t kv_blocks = 0;
  bool record_steps = false;
  int64_t warmup_requests = 0;  // the first N requests (by id) leave no ITL sample
  std::function<void(int64_t finished, int64_t total, double t_s)> progress;  // may be empty
  bool keep_requests = true;    // fill SimResult::requests and itl_gaps
  std::vector<SimSink*> sinks;  // told of every finished request and every step's gaps
};

// Runs the workload (arrivals already assigned unless closed loop) to the last request.
SimResult simulate(const std::vector<Request>& requests, const EngineConfig& engine,
                   StepModel& model, const SimOptions& options);
// The same, taking the requests from `source` as they arrive.
SimResult simulate(RequestSource& source, const EngineConfig& engine, StepModel& model,
                   const SimOptions& options);

// A disaggregated decode pool's run (serve/disaggregated.h): request i's prompt was computed
// elsewhere and its first token emitted at first_token_s[i]; it arrives (arrival_s: when its KV
// cache has arrived) with its prompt computed and one token generated, so it needs KV blocks for
// its prompt at admission and then only decodes (a preempted one recomputes here).
struct Handoff {
  std::vector<double> first_token_s;
};
SimResult simulate(const std::vector<Request>& requests, const EngineConfig& engine,
                   StepModel& model, const SimOptions& options, const Handoff& handoff);

}  // namespace ridgeline
