// The pipeline scheduler; see pipeline_schedule.h. Each stage runs its slots in the schedule's
// order; a slot is placed once its input has ended, at max(stage free, input end + send), so the
// result does not depend on the order stages are visited in. Which slot waits for which does not
// depend on the times either, so one placement also times the pipeline with free sends (a
// second set of end times beside the first): end_without_send_us.
#include "model/pipeline_schedule.h"

#include "common/errors.h"

#include <algorithm>

namespace ridgeline {

namespace {

struct Step {
  SlotKind kind;
  int chunk;
  int64_t mb;
};

// Interleaved order (Megatron's get_model_chunk_id): micro-batches in groups of p per chunk.
Step interleaved_step(SlotKind kind, int64_t k64, int64_t p64, int64_t v64) {
  // 32-bit division: a 64-bit one costs as much as the rest of placing the slot.
  const uint32_t k = (uint32_t)k64, p = (uint32_t)p64, v = (uint32_t)v64;
  const uint32_t group = k / p, chunk = v == 1 ? 0 : group % v;
  const uint32_t in_group = k - group * p;
  const int c = (int)(kind == SlotKind::Backward ? v - 1 - chunk : chunk);
  return {kind, c, (int64_t)((v == 1 ? group : group / v) * p + in_group)};
}

std::vector<Step> stage_order(const PipelineInput& in, int64_t s) {
  const int64_t p = in.stages, v = in.chunks, m = in.microbatches;
  std::vector<Step> order;
  order.reserve(2 * in.microbatches * in.chunks);
  if (!in.backward || in.schedule == PipelineSchedule::GPipe) {
    for (int64_t k = 0; k < m * v; ++k)
      order.push_back(interleaved_step(SlotKind::Forward, k, p, v));
    if (in.backward)
      for (int64_t k = 0; k < m * v; ++k)
        order.push_back(interleaved_step(SlotKind::Backward, k, p, v));
    return order;
  }
  int64_t total = m * v;
  int64_t warmup =
      in.schedule == PipelineSchedule::Interleaved ? 2 * (p - s - 1) + (v - 1) * p : p - s - 1;
  warmup = std::min(warmup, total);
  for (int64_t k = 0; k < warmup; ++k)
    order.push_back(interleaved_step(SlotKind::Forward, k, p, v));
  for (int64_t i = 0; i < total - warmup; ++i) {
    order.push_back(interleaved_step(SlotKind::Forward, warmup + i, p, v));
    order.push_back(interleaved_step(SlotKind::Backward, i, p, v));
  }
  for (int64_t k = total - warmup; k < total; ++k)
    order.push_back(interleaved_step(SlotKind::Backward, k, p, v));
  return order;
}

}  // namespace

const char* slot_kind_name(SlotKind k) {
  switch (k) {
    case SlotKind::Forward:
      return "forward";
    case SlotKind::Backward:
      return "backward";
    case SlotKind::Send:
      return "send";
    case SlotKind::GradReduce:
      return "grad_reduce";
    case SlotKind::Optimizer:
      return "optimizer";
    case SlotKind::ParamGather:
      return "param_gather";
  }
  return "?";
}

double PipelineTimeline::bubble_fraction() const {
  double busiest = 0;
  for (double b : stage_busy_us) busiest = std::max(busiest, b);
  return busiest > 0 ? (end_us - busiest) / busiest : 0;
}

double ideal_bubble_fraction(PipelineSchedule s, int64_t p, int64_t v, int64_t m) {
  double bubble = (double)(p - 1) / (double)m;
  return s == PipelineSchedule::Interleaved ? bubble / (double)v : bubble;
}

namespace {

PipelineTimeline place(const PipelineInput& in) {
  const int64_t p = in.stages, v = in.chunks, m = in.microbatches, G = p * v;
  require_invariant(p >= 1 && v >= 1 && m >= 1, "schedule_pipeline: p, v, m >= 1");
  require_invariant(
      (int64_t)in.forward_us.size() == G && (!in.backward || (int64_t)in.backward_us.size() == G),
      "schedule_pipeline: one time per model chunk");
  std::vector<std::vector<Step>> orders;
  orders.reserve(p);
  for (int64_t s = 0; s < p; ++s) orders.push_back(stage_order(in, s));
  std::vector<double> f_end(G * m, -1), b_end(G * m, -1);
  std::vector<size_t> next(p, 0);
  std::vector<double> free_at(p, 0);
  // The same slots timed with free sends (only when sends cost something).
  const bool unsent = in.send_us > 0;
  std::vector<double> f_free(unsent ? G * m : 0), b_free(unsent ? G * m : 0);
  std::vector<double> free_free(unsent ? p : 0, 0);
  std::vector<int64_t> stage_of(G);  // g % p, without dividing per slot
  for (int64_t g = 0; g < G; ++g) stage_of[g] = g % p;
  PipelineTimeline t;
  t.stage_end_us.assign(p, 0);
  t.stage_busy_us.assign(p, 0);
  size_t left = 0;
  for (const auto& o : orders) left += o.size();
  // A stage runs until its next slot's input is missing; placing a slot wakes the stage that
  // consumes it (a worklist, so a long chain of dependencies costs one visit a slot).
  std::vector<int64_t> work;
  std::vector<char> queued(p, 1);
  for (int64_t s = p - 1; s >= 0; --s) work.push_back(s);
  while (!work.empty()) {
    int64_t s = work.back();
    work.pop_back();
    queued[s] = 0;
    while (next[s] < orders[s].size()) {
      const Step& st = orders[s][next[s]];
      int64_t g = (int64_t)st.chunk * p + s;
      bool fwd = st.kind == SlotKind::Forward;
      // The input: the previous chunk's forward, or the next chunk's backward (the last
      // chunk's backward follows its own forward, on the same stage).
      int64_t from = fwd ? g - 1 : (g == G - 1 ? -1 : g + 1);
      double ready = 0, ready_free = 0;
      bool crosses = false;
      int64_t input = -1;  // index of the input's end in f_end (forward) or b_end
      bool input_fwd = true;
      if (fwd && from >= 0) {
        input = from * m + st.mb;
        crosses = stage_of[from] != s;
      } else if (!fwd) {
        input = (from >= 0 ? from : g) * m + st.mb;
        input_fwd = from < 0;
        crosses = from >= 0 && stage_of[from] != s;
      }
      if (input >= 0) {
        ready = (input_fwd ? f_end : b_end)[input];
        if (unsent) ready_free = (input_fwd ? f_free : b_free)[input];
      }
      if (ready < 0) break;  // the input is not placed yet
      if (crosses && in.send_us > 0) {
        int sender = (int)stage_of[from];
        if (in.record_slots)
          t.slots.push_back(
              {sender, (int)(from / p), st.mb, SlotKind::Send, ready, ready + in.send_us});
        ready += in.send_us;
      }
      double dur = fwd ? in.forward_us[g] : in.backward_us[g];
      double start = std::max(free_at[s], ready);
      free_at[s] = start + dur;
      (fwd ? f_end : b_end)[g * m + st.mb] = free_at[s];
      if (unsent) {
        free_free[s] = std::max(free_free[s], ready_free) + dur;
        (fwd ? f_free : b_free)[g * m + st.mb] = free_free[s];
        t.end_without_send_us = std::max(t.end_without_send_us, free_free[s]);
      }
      if (in.record_slots) t.slots.push_back({(int)s, st.chunk, st.mb, st.kind, start, free_at[s]});
      t.stage_busy_us[s] += dur;
      t.stage_end_us[s] = free_at[s];
      t.end_us = std::max(t.end_us, free_at[s]);
      ++next[s];
      --left;
      // The slot just placed is the input one other stage may be waiting for.
      int64_t consumer = fwd ? (g == G - 1 ? s : stage_of[g + 1]) : (g > 0 ? stage_of[g - 1] : s);
      if (!queued[consumer]) queued[consumer] = true, work.push_back(consumer);
    }
  }
  require_invariant(left == 0, "schedule_pipeline: the schedule deadlocks");
  if (!unsent) t.end_without_send_us = t.end_us;
  return t;
}

}  // namespace

PipelineTimeline schedule_pipeline(const PipelineInput& in) {
  const int64_t p = in.stages, m = in.microbatches;
  // Steps of the periodic steady state: p micro-batches interleaved (its groups), else one.
  const int64_t step = in.schedule == PipelineSchedule::Interleaved && in.backward ? p : 1;
  const bool long_pipeline = m > p + 2 * step && p > 1;
  if (!long_pipeline) return place(in);
  PipelineInput a = in, b = in;
  a.microbatches = p + step;
  b.microbatches = p + 2 * step;
  a.record_slots = b.record_slots = false;
  PipelineTimeline ta = place(a), tb = place(b);
  double k = (double)(m - a.microbatches) / (double)step;  // steps past a's
  auto extrapolate = [k](double at_a, double at_b) { return at_a + k * (at_b - at_a); };
  if (in.record_slots) {  // every slot placed; the free-send end extrapolated as without slots
    PipelineTimeline t = place(in);
    if (in.send_us > 0)  // without sends the two ends are the placed one
      t.end_without_send_us = extrapolate(ta.end_without_send_us, tb.end_without_send_us);
    return t;
  }
  PipelineTimeline t;
  t.end_us = extrapolate(ta.end_us, tb.end_us);
  t.end_without_send_us = extrapolate(ta.end_without_send_us, tb.end_without_send_us);
  for (int64_t s = 0; s < p; ++s) {
    t.stage_end_us.push_back(extrapolate(ta.stage_end_us[s], tb.stage_end_us[s]));
    t.stage_busy_us.push_back(ta.stage_busy_us[s] * (double)m / (double)a.microbatches);
  }
  return t;
}

}  // namespace ridgeline
