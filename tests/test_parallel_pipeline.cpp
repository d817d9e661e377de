// Pipeline schedules placed slot by slot (model/pipeline_schedule.h) against the closed forms:
// the bubble over the ideal time is (p-1)/m for GPipe and 1F1B and (p-1)/(v m) interleaved when
// stages are even and sends are free, on both sides of m = p.
#include "model/pipeline_schedule.h"
#include "test_helpers.h"

using namespace ridgeline;

namespace {

PipelineTimeline even(PipelineSchedule s, int64_t p, int64_t v, int64_t m, double send = 0) {
  PipelineInput in;
  in.stages = p, in.chunks = v, in.microbatches = m, in.schedule = s;
  in.forward_us.assign(p * v, 1.0 / v);   // one stage's forward: 1 us over its v chunks
  in.backward_us.assign(p * v, 2.0 / v);  // backward: 2 us
  in.send_us = send;
  return schedule_pipeline(in);
}

}  // namespace

TEST_CASE("pipeline: 1F1B and GPipe bubbles are (p-1)/m", "[parallel][pipeline]") {
  for (auto s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
    for (int64_t p : {1, 2, 4, 8}) {
      for (int64_t m : {p > 1 ? p - 1 : 1, p, p + 1, 4 * p}) {
        PipelineTimeline t = even(s, p, 1, m);
        INFO(schedule_name(s) << " p=" << p << " m=" << m);
        CHECK(t.bubble_fraction() == Approx(ideal_bubble_fraction(s, p, 1, m)));
        CHECK(t.end_us == Approx((m + p - 1) * 3.0));
      }
    }
  }
}

TEST_CASE("pipeline: interleaved bubbles are (p-1)/(v m)", "[parallel][pipeline]") {
  for (int64_t p : {2, 4}) {
    for (int64_t v : {2, 3}) {
      for (int64_t m : {p, 2 * p, 4 * p}) {
        PipelineTimeline t = even(PipelineSchedule::Interleaved, p, v, m);
        INFO("p=" << p << " v=" << v << " m=" << m);
        CHECK(t.bubble_fraction() ==
              Approx(ideal_bubble_fraction(PipelineSchedule::Interleaved, p, v, m)));
        CHECK(t.bubble_fraction() < ideal_bubble_fraction(PipelineSchedule::OneFOneB, p, 1, m));
      }
    }
  }
}

TEST_CASE("pipeline: every slot placed once, stages never overlap themselves",
          "[parallel][pipeline]") {
  PipelineTimeline t = even(PipelineSchedule::Interleaved, 4, 2, 8, 0.1);
  size_t compute = 0;
  std::vector<double> last_end(4, 0);
  for (const PipelineSlot& s : t.slots) {
    if (s.kind == SlotKind::Send) continue;
    ++compute;
    CHECK(s.start_us >= last_end[s.stage] - 1e-12);
    last_end[s.stage] = s.end_us;
  }
  CHECK(compute == 4 * 2 * 8 * 2);
}

TEST_CASE("pipeline: sends between stages lengthen the iteration", "[parallel][pipeline]") {
  double free = even(PipelineSchedule::OneFOneB, 4, 1, 8).end_us;
  double sent = even(PipelineSchedule::OneFOneB, 4, 1, 8, 0.5).end_us;
  // The first forward and the last backward cross 3 stage boundaries each at least.
  CHECK(sent >= free + 2 * 3 * 0.5 - 1e-9);
  CHECK(even(PipelineSchedule::OneFOneB, 1, 1, 8, 0.5).end_us == Approx(8 * 3.0));  // no neighbour
}

TEST_CASE("pipeline: an uneven last stage is the bottleneck", "[parallel][pipeline]") {
  PipelineInput in;
  in.stages = 2, in.microbatches = 8;
  in.forward_us = {1, 1.5};
  in.backward_us = {2, 3};
  PipelineTimeline t = schedule_pipeline(in);
  // Stage 1 is busy 8 x 4.5 = 36 us; stage 0's first forward (1 us) and last backward (2 us)
  // come before and after it.
  CHECK(t.end_us == Approx(1 + 36 + 2));
}

TEST_CASE("pipeline: inference runs forwards through the stages", "[parallel][pipeline]") {
  PipelineInput in;
  in.stages = 4, in.microbatches = 1, in.backward = false;
  in.forward_us = {1, 1, 1, 1};
  in.send_us = 0.25;
  PipelineTimeline t = schedule_pipeline(in);
  CHECK(t.end_us == Approx(4 + 3 * 0.25));
}

TEST_CASE("pipeline: extrapolated end times match the full placement", "[parallel][pipeline]") {
  for (auto s :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved}) {
    int64_t p = 4, v = s == PipelineSchedule::Interleaved ? 2 : 1;
    for (int64_t m : {12, 16, 40}) {
      PipelineInput in;
      in.stages = p, in.chunks = v, in.microbatches = m, in.schedule = s;
      for (int64_t g = 0; g < p * v; ++g) {  // uneven: heavier first and last chunks
        in.forward_us.push_back(g == 0 ? 1.7 : g == p * v - 1 ? 2.3 : 1.0 + 0.01 * g);
        in.backward_us.push_back(2 * in.forward_us.back() + 0.1);
      }
      in.send_us = 0.15;
      PipelineTimeline full = schedule_pipeline(in);
      in.record_slots = false;
      PipelineTimeline fast = schedule_pipeline(in);
      INFO(schedule_name(s) << " m=" << m);
      CHECK(fast.slots.empty());
      CHECK(fast.end_us == Approx(full.end_us).epsilon(1e-9));
      CHECK(fast.bubble_fraction() == Approx(full.bubble_fraction()).epsilon(1e-9));
      for (int64_t st = 0; st < p; ++st)
        CHECK(fast.stage_end_us[st] == Approx(full.stage_end_us[st]).epsilon(1e-9));
    }
  }
}

TEST_CASE("pipeline: one placement also times the pipeline with free sends",
          "[parallel][pipeline]") {
  // Uneven stages so that the sends move the critical path, not only shift it.
  for (auto s :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved}) {
    for (int64_t m : {4, 8, 64}) {  // interleaved takes whole groups of p
      for (bool slots : {true, false}) {
        PipelineInput in;
        const int64_t p = 4, v = s == PipelineSchedule::Interleaved ? 2 : 1;
        in.stages = p, in.chunks = v, in.microbatches = m, in.schedule = s;
        for (int64_t g = 0; g < p * v; ++g) {
          in.forward_us.push_back(1.0 + 0.25 * (double)(g % 3));
          in.backward_us.push_back(2.0 + 0.5 * (double)(g % 2));
        }
        in.send_us = 0.3;
        in.record_slots = slots;
        PipelineTimeline t = schedule_pipeline(in);
        PipelineInput free = in;
        free.send_us = 0;
        free.record_slots = false;  // as predict_parallel placed it on its own before
        INFO(schedule_name(s) << " m=" << m << " slots=" << slots);
        CHECK(t.end_without_send_us == schedule_pipeline(free).end_us);  // the same bits
        CHECK(t.end_without_send_us < t.end_us);
        in.send_us = 0;  // no sends: the two ends agree
        PipelineTimeline none = schedule_pipeline(in);
        CHECK(none.end_without_send_us == none.end_us);
      }
    }
  }
}
