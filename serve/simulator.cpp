// The event loop (see simulator.h).
#include "serve/simulator.h"

#include "common/errors.h"
#include "serve/scheduler.h"

#include <algorithm>
#include <limits>

namespace ridgeline {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// The step's shape for the step model: decodes as one attention group at their mean cache
// length, each prefill chunk its own group; tokens padded to the engine's CUDA-graph sizes.
StepShape step_shape(const EngineState& s, const StepPlan& plan, const EngineConfig& e,
                     StepRecord& rec) {
  StepShape shape;
  int64_t decode_kv = 0;
  for (auto [idx, n] : plan.work) {
    const Sequence& q = s.seqs[idx];
    rec.tokens += n;
    if (n == 1 && q.decoding()) {
      ++rec.decodes;
      decode_kv += q.computed + 1;
    } else {
      ++rec.prefills;
      rec.prefill_tokens += n;
      shape.groups.push_back({1, n, q.computed + n});
    }
  }
  if (rec.decodes > 0)
    shape.groups.push_back({rec.decodes, 1, (decode_kv + rec.decodes - 1) / rec.decodes});
  shape.tokens = e.padded_batch(rec.tokens);
  shape.sequences = std::min(shape.tokens, e.padded_batch((int64_t)plan.work.size()));
  rec.padded_tokens = shape.tokens;
  return shape;
}

struct Loop {
  const std::vector<Request>& requests;
  const EngineConfig& engine;
  StepModel& model;
  const SimOptions& opt;
  EngineState state;
  std::unique_ptr<SchedulerPolicy> policy;
  SimResult out;
  std::vector<double> arrival;  // per request; kNever until a closed loop sends it
  std::vector<double> last_token;
  size_t next = 0;            // next request to arrive, in arrival order
  std::vector<size_t> order;  // requests by arrival
  size_t issued = 0;          // closed loop: requests sent
  int64_t finished = 0;
  double busy_s = 0, kv_weighted = 0;

  Loop(const std::vector<Request>& r, const EngineConfig& e, StepModel& m, const SimOptions& o)
      : requests(r),
        engine(e),
        model(m),
        opt(o),
        state{{}, {}, {}, KvPool(o.kv_blocks, e.block_size_tokens, e.prefix_caching), 0},
        policy(make_policy(e)) {
    size_t n = r.size();
    state.seqs.resize(n);
    out.requests.resize(n);
    arrival.assign(n, kNever);
    last_token.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      state.seqs[i].request = &r[i];
      out.requests[i] = {r[i].id, r[i].input_tokens, r[i].output_tokens, 0, 0, 0, 0, 0, 0};
      order.push_back(i);
    }
    if (o.arrivals.kind == ArrivalSpec::Kind::ClosedLoop) {
      for (; issued < n && (int64_t)issued < o.arrivals.concurrency; ++issued) arrival[issued] = 0;
    } else {
      for (size_t i = 0; i < n; ++i) arrival[i] = r[i].arrival_s;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return arrival[a] < arrival[b]; });
    }
  }

  void admit_arrivals(double t) {
    while (next < order.size() && arrival[order[next]] <= t) {
      state.waiting.push_back((int)order[next]);
      out.requests[order[next]].arrival_s = arrival[order[next]];
      ++next;
    }
  }

  void finish(int idx, double t) {
    Sequence& q = state.seqs[idx];
    state.kv.release(q);
    state.running.erase(std::find(state.running.begin(), state.running.end(), idx));
    RequestRecord& r = out.requests[idx];
    r.finish_s = t;
    r.preemptions = q.preemptions;
    ++finished;
    if (opt.arrivals.kind == ArrivalSpec::Kind::ClosedLoop && issued < requests.size())
      arrival[issued++] = t;
  }

  void apply(const StepPlan& plan, double start, double end) {
    std::vector<int> done;
    for (auto [idx, n] : plan.work) {
      Sequence& q = state.seqs[idx];
      if (q.first_scheduled_s < 0) q.first_scheduled_s = start;
      q.computed += n;
      if (q.computed < q.tokens()) continue;
      RequestRecord& r = out.requests[idx];
      if (q.generated == 0) {
        r.first_token_s = end;
        r.first_scheduled_s = q.first_scheduled_s;
      } else {
        if (idx >= opt.warmup_requests) out.itl_s.push_back(end - last_token[idx]);
        r.max_itl_s = std::max(r.max_itl_s, end - last_token[idx]);
      }
      last_token[idx] = end;
      ++q.generated;
      if (q.generated == q.request->output_tokens) done.push_back(idx);
    }
    for (int idx : done) finish(idx, end);
  }

  void run() {
    double t = 0;
    int64_t n = (int64_t)requests.size();
    while (finished < n) {
      admit_arrivals(t);
      if (state.running.empty() && state.waiting.empty()) {
        require_invariant(next < order.size() && arrival[order[next]] < kNever, "a request left");
        t = arrival[order[next]];
        continue;
      }
      StepPlan plan = policy->schedule(state);
      if (plan.empty()) plan = policy->schedule(state);  // after a preemption emptied the step
      if (plan.empty()) {
        if (!state.running.empty() || next >= order.size() || arrival[order[next]] == kNever)
          stalled();
        t = std::max(t, arrival[order[next]]);
        continue;
      }
      StepRecord rec;
      StepShape shape = step_shape(state, plan, engine, rec);
      double dt = (model.step_us(shape) + engine.host_overhead_us) * 1e-6;
      rec.start_s = t;
      rec.end_s = t + dt;
      apply(plan, t, rec.end_s);
      rec.running = (int64_t)state.running.size();
      rec.waiting = (int64_t)state.waiting.size();
      rec.kv_used = (double)state.kv.used_blocks() / (double)state.kv.total_blocks();
      busy_s += dt;
      kv_weighted += dt * rec.kv_used;
      out.kv_used_max = std::max(out.kv_used_max, rec.kv_used);
      ++out.step_count;
      if (opt.record_steps) out.steps.push_back(rec);
      if (opt.progress && out.step_count % 2000 == 0) opt.progress(finished, n, rec.end_s);
      t = rec.end_s;
    }
    out.preemptions = state.preemptions;
    out.kv_used_mean = busy_s > 0 ? kv_weighted / busy_s : 0;
    double first = kNever, last = 0;
    for (const RequestRecord& r : out.requests) {
      first = std::min(first, r.arrival_s);
      last = std::max(last, r.finish_s);
    }
    out.duration_s = n > 0 ? last - first : 0;
  }

  [[noreturn]] void stalled() const {
    const Request& r =
        *state.seqs[state.waiting.empty() ? state.running.front() : state.waiting.front()].request;
    throw InputError("--engine " + engine.name + ": request " + std::to_string(r.id) + " (" +
                     std::to_string(r.input_tokens) + " + " + std::to_string(r.output_tokens) +
                     " tokens) can never be scheduled with " +
                     std::to_string(state.kv.total_blocks()) + " KV blocks of " +
                     std::to_string(engine.block_size_tokens) + " tokens");
  }
};

}  // namespace

SimResult simulate(const std::vector<Request>& requests, const EngineConfig& engine,
                   StepModel& model, const SimOptions& options) {
  require_invariant(options.kv_blocks > 0, "a KV pool");
  Loop loop(requests, engine, model, options);
  loop.out.kv_blocks = options.kv_blocks;
  loop.out.block_size_tokens = engine.block_size_tokens;
  loop.run();
  return std::move(loop.out);
}

}  // namespace ridgeline
