// The discrete-event serving loop. Events are arrivals and step ends: at each step boundary the
// requests that arrived join the waiting queue, the engine's policy forms the batch, the step
// model prices it (device time + the engine's host overhead a step), and when it ends every
// request whose computed tokens caught up emits a token (streamed at the step's end). Closed
// loop: a finished request sends the next one at its finish time. The result holds every
// request's timestamps and every step; metrics.h summarises them.
#pragma once

#include "serve/arrivals.h"
#include "serve/engine.h"
#include "serve/request.h"
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
};

struct SimResult {
  std::vector<RequestRecord> requests;  // by request id
  std::vector<double> itl_s;            // every gap between two tokens of a request, pooled
  std::vector<StepRecord> steps;        // empty unless asked for
  int64_t step_count = 0, preemptions = 0, kv_blocks = 0, block_size_tokens = 0;
  double kv_used_mean = 0, kv_used_max = 0;  // time-weighted over busy time
  double duration_s = 0;                     // first arrival to last finish
};

struct SimOptions {
  ArrivalSpec arrivals;
  int64_t kv_blocks = 0;
  bool record_steps = false;
  int64_t warmup_requests = 0;  // the first N requests (by id) leave no ITL sample
  std::function<void(int64_t finished, int64_t total, double t_s)> progress;  // may be empty
};

// Runs the workload (arrivals already assigned unless closed loop) to the last request.
SimResult simulate(const std::vector<Request>& requests, const EngineConfig& engine,
                   StepModel& model, const SimOptions& options);

}  // namespace ridgeline
