// The event loop (see simulator.h).
#include "serve/simulator.h"

#include "common/errors.h"
#include "serve/scheduler.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace ridgeline {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// The step's shape for the step model: decodes as one attention group at their mean cache
// length, each prefill chunk its own group (or, for a packed engine, all the batch's keys in
// one, padded as its graphs pad them); tokens padded to the engine's CUDA-graph sizes.
StepShape step_shape(const EngineState& s, const StepPlan& plan, const EngineConfig& e,
                     StepRecord& rec) {
  StepShape shape;
  int64_t decode_kv = 0, all_kv = 0;  // keys the decodes attend to; all requests'
  for (auto [idx, n] : plan.work) {
    const Sequence& q = s.seqs[idx];
    rec.tokens += n;
    all_kv += q.computed + n;
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
  if (e.packed_attention) {  // every request's keys in one masked attention
    int64_t kv = all_kv;
    if (e.kv_padding_tokens > 0)
      kv = (kv + e.kv_padding_tokens - 1) / e.kv_padding_tokens * e.kv_padding_tokens;
    shape.groups.clear();
    shape.packed_kv_tokens = std::max<int64_t>(kv, 1);
  }
  return shape;
}

// A batch in the pipeline: its work, its record (start and end known when it is launched) and
// the busy time it adds (the weight of its KV use in the time average).
struct Batch {
  StepPlan plan;
  StepRecord rec;
  double busy_s = 0;
};

// A request in the engine: its slot (the same index in state.seqs) is freed when it finishes.
struct Live {
  Request request;
  RequestRecord rec;
  int64_t index = 0;  // position in id order (SimResult::requests, warm-up)
  double last_token_s = 0;
};

struct Loop {
  RequestSource& source;
  const EngineConfig& engine;
  StepModel& model;
  const SimOptions& opt;
  EngineState state;
  std::unique_ptr<SchedulerPolicy> policy;
  SimResult out;
  std::deque<Live> live;  // by slot; a deque, so that Sequence::request stays put
  std::vector<int> free_slots;
  std::deque<std::pair<Request, int64_t>> pending;  // to arrive, in arrival order, with index
  std::vector<std::pair<double, int64_t>> gaps;     // this step's (gap, tokens)
  const Handoff* handoff;                           // null unless a decode pool's run
  const bool closed;
  std::deque<Batch> pipeline;      // batches in flight, oldest first
  std::vector<double> stage_free;  // when each pipeline stage is next free (s)
  double last_end_s = 0;           // the last launched batch's end (pp > 1)
  int64_t launched = 0;            // batches launched
  int64_t total = 0, drawn = 0, finished = 0;
  double busy_s = 0, kv_weighted = 0, first_arrival_s = kNever, last_finish_s = 0;

  Loop(RequestSource& r, const EngineConfig& e, StepModel& m, const SimOptions& o, const Handoff* h)
      : source(r),
        engine(e),
        model(m),
        opt(o),
        state{{},
              {},
              {},
              KvPool(o.kv_blocks, e.block_size_tokens, e.prefix_caching, kv_window(m.memory())),
              0},
        policy(make_policy(e)),
        handoff(h),
        closed(o.arrivals.kind == ArrivalSpec::Kind::ClosedLoop),
        stage_free((size_t)std::max<int64_t>(1, m.pipeline_stages()), 0.0) {
    total = r.size();
    if (o.keep_requests) out.requests.resize((size_t)total);
    if (closed) {
      while (drawn < total && drawn < o.arrivals.concurrency) issue(0);
    } else {
      look_ahead();
    }
  }

  // Draws the next request; a closed loop sends it at t.
  void issue(double t) {
    std::pair<Request, int64_t> p;
    require_invariant(source.next(p.first, p.second), "the source holds size() requests");
    ++drawn;
    if (closed) p.first.arrival_s = t;
    pending.push_back(p);
  }
  void look_ahead() {  // open loop: the next arrival is known
    if (!closed && pending.empty() && drawn < total) issue(0);
  }
  double next_arrival() const { return pending.empty() ? kNever : pending.front().first.arrival_s; }

  void admit_arrivals(double t) {
    while (!pending.empty() && pending.front().first.arrival_s <= t) {
      auto [r, index] = pending.front();
      pending.pop_front();
      int slot = (int)live.size();
      if (!free_slots.empty()) {
        slot = free_slots.back();
        free_slots.pop_back();
      } else {
        live.emplace_back();
        state.seqs.emplace_back();
      }
      Live& l = live[(size_t)slot];
      l = Live{r, {r.id, r.input_tokens, r.output_tokens, 0, r.arrival_s, 0, 0, 0, 0}, index, 0};
      Sequence& q = state.seqs[(size_t)slot] = Sequence{};
      q.request = &l.request;
      if (handoff) {  // the prompt's KV and the first token came from a prefill replica
        q.computed = r.input_tokens;
        q.generated = 1;
        l.rec.first_token_s = l.last_token_s = handoff->first_token_s[(size_t)index];
      }
      state.waiting.push_back(slot);
      look_ahead();
    }
  }

  void finish(int idx, double t) {
    Sequence& q = state.seqs[(size_t)idx];
    // The slot is reused: the prefix cache must hold no pointer to it (readmission took them).
    require_invariant(q.cached_blocks == 0, "a finished request has no cached blocks left");
    state.kv.release(q);
    state.running.erase(std::find(state.running.begin(), state.running.end(), idx));
    RequestRecord& r = live[(size_t)idx].rec;
    r.finish_s = t;
    r.preemptions = q.preemptions;
    first_arrival_s = std::min(first_arrival_s, r.arrival_s);
    last_finish_s = std::max(last_finish_s, r.finish_s);
    for (SimSink* s : opt.sinks) s->finished(r);
    if (opt.keep_requests) out.requests[(size_t)live[(size_t)idx].index] = r;
    free_slots.push_back(idx);
    ++finished;
    if (closed && drawn < total) issue(t);
  }

  void add_gap(double gap_s) {
    for (auto& [g, n] : gaps)
      if (g == gap_s) {
        ++n;
        return;
      }
    gaps.push_back({gap_s, 1});
  }

  void apply(const StepPlan& plan, double start, double end) {
    std::vector<int> done;
    gaps.clear();
    for (auto [idx, n] : plan.work) {
      Sequence& q = state.seqs[(size_t)idx];
      if (q.first_scheduled_s < 0) q.first_scheduled_s = start;
      q.computed += n;
      if (q.computed < q.tokens()) continue;
      Live& l = live[(size_t)idx];
      if (q.generated == 0) {
        l.rec.first_token_s = end;
        l.rec.first_scheduled_s = q.first_scheduled_s;
      } else {
        if (l.index >= opt.warmup_requests) add_gap(end - l.last_token_s);
        l.rec.max_itl_s = std::max(l.rec.max_itl_s, end - l.last_token_s);
      }
      l.last_token_s = end;
      ++q.generated;
      if (q.generated == q.request->output_tokens) done.push_back(idx);
    }
    for (auto [g, n] : gaps) {
      for (SimSink* s : opt.sinks) s->token_gaps(g, n);
      if (opt.keep_requests) out.itl_gaps.push_back({g, n});
    }
    for (int idx : done) finish(idx, end);
  }

  // Prices the batch and puts it in the pipeline at t: the host schedules it (the engine's
  // overhead a step), then it passes the stages in turn, each when the batch before it has left.
  // With one stage: end = t + host + step. Returns when the host can schedule the next batch.
  double launch(const StepPlan& plan, double t) {
    Batch b{plan, {}, 0};
    StepShape shape = step_shape(state, plan, engine, b.rec);
    double stage_us = model.step_us(shape);
    b.rec.start_s = t;
    b.rec.slot = launched++ % (int64_t)stage_free.size();
    if (stage_free.size() == 1) {
      b.busy_s = (stage_us + engine.host_overhead_us) * 1e-6;
      b.rec.end_s = stage_free[0] = t + b.busy_s;
    } else {
      // Every stage but the last runs its layers and sends on; the last adds the LM head.
      double inner_us = stage_us - model.pipeline_edge_us(shape);
      double enter = t + engine.host_overhead_us * 1e-6;
      for (size_t k = 0; k < stage_free.size(); ++k) {
        double us = k + 1 < stage_free.size() ? inner_us : stage_us;
        enter = stage_free[k] = std::max(enter, stage_free[k]) + us * 1e-6;
      }
      b.rec.end_s = enter;
      b.busy_s = b.rec.end_s - std::max(b.rec.start_s, last_end_s);
      last_end_s = b.rec.end_s;
    }
    for (auto [idx, n] : plan.work) state.seqs[(size_t)idx].in_flight = true;
    double end_s = b.rec.end_s;
    pipeline.push_back(std::move(b));
    return stage_free.size() == 1 ? end_s : t + engine.host_overhead_us * 1e-6;
  }

  // The oldest batch comes back (batches leave the last stage in launch order): its requests
  // advance and emit their tokens. Returns its end.
  double land() {
    Batch b = std::move(pipeline.front());
    pipeline.pop_front();
    for (auto [idx, n] : b.plan.work) state.seqs[(size_t)idx].in_flight = false;
    StepRecord& rec = b.rec;
    apply(b.plan, rec.start_s, rec.end_s);
    rec.running = (int64_t)state.running.size();
    rec.waiting = (int64_t)state.waiting.size();
    rec.kv_used = (double)state.kv.used_blocks() / (double)state.kv.total_blocks();
    busy_s += b.busy_s;
    kv_weighted += b.busy_s * rec.kv_used;
    out.kv_used_max = std::max(out.kv_used_max, rec.kv_used);
    ++out.step_count;
    if (opt.record_steps) out.steps.push_back(rec);
    if (opt.progress && out.step_count % 2000 == 0) opt.progress(finished, total, rec.end_s);
    return rec.end_s;
  }

  // The engine loop. While fewer batches than stages are in flight the host schedules another
  // from the requests not in flight (vLLM V1's batch queue); when the pipeline is full, or
  // nothing can be scheduled while batches are in flight, it waits for the oldest to come back.
  // With one stage this is one step at a time.
  void run() {
    double t = 0;
    while (finished < total) {
      admit_arrivals(t);
      if ((int64_t)pipeline.size() < (int64_t)stage_free.size()) {
        StepPlan plan;
        if (!state.running.empty() || !state.waiting.empty()) {
          plan = policy->schedule(state);
          if (plan.empty()) plan = policy->schedule(state);  // after a preemption emptied it
        }
        if (!plan.empty()) {
          t = launch(plan, t);
          if ((int64_t)pipeline.size() < (int64_t)stage_free.size()) continue;
        } else if (pipeline.empty()) {
          if (state.running.empty() && state.waiting.empty()) {
            require_invariant(next_arrival() < kNever, "a request left");
            t = next_arrival();
            continue;
          }
          if (!state.running.empty() || next_arrival() == kNever) stalled();
          t = std::max(t, next_arrival());
          continue;
        }
      }
      t = std::max(t, land());
    }
    out.preemptions = state.preemptions;
    out.kv_used_mean = busy_s > 0 ? kv_weighted / busy_s : 0;
    out.duration_s = total > 0 ? last_finish_s - first_arrival_s : 0;
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
  VectorSource source(requests, options.arrivals.kind != ArrivalSpec::Kind::ClosedLoop);
  return simulate(source, engine, model, options);
}

namespace {

SimResult run_loop(RequestSource& source, const EngineConfig& engine, StepModel& model,
                   const SimOptions& options, const Handoff* handoff) {
  require_invariant(options.kv_blocks > 0, "a KV pool");
  Loop loop(source, engine, model, options, handoff);
  loop.out.kv_blocks = options.kv_blocks;
  loop.out.block_size_tokens = engine.block_size_tokens;
  loop.run();
  return std::move(loop.out);
}

}  // namespace

SimResult simulate(RequestSource& source, const EngineConfig& engine, StepModel& model,
                   const SimOptions& options) {
  return run_loop(source, engine, model, options, nullptr);
}

SimResult simulate(const std::vector<Request>& requests, const EngineConfig& engine,
                   StepModel& model, const SimOptions& options, const Handoff& handoff) {
  require_invariant(handoff.first_token_s.size() == requests.size(), "a first token a request");
  for (const Request& r : requests) require_invariant(r.output_tokens >= 2, "tokens to decode");
  VectorSource source(requests, options.arrivals.kind != ArrivalSpec::Kind::ClosedLoop);
  return run_loop(source, engine, model, options, &handoff);
}

}  // namespace ridgeline
