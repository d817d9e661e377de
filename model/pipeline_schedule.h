// Pipeline schedules placed on a timeline, slot by slot: GPipe (all forwards, then all
// backwards), 1F1B (PipeDream-Flush: p - s - 1 warm-up forwards on stage s, then one forward and
// one backward in turn) and interleaved 1F1B (Megatron: v model chunks per stage, micro-batches in
// groups of p, 2 (p - s - 1) + (v - 1) p warm-up chunk forwards). A slot starts when its stage is
// free and its input is there: a forward after the same micro-batch's forward of the previous
// model chunk (on the previous stage, or on the last stage for the next chunk of stage 0), a
// backward after the next chunk's backward (the last chunk's after its own forward), plus the
// send/recv time when the two chunks are on different stages.
//
// With even stages (each chunk forward f, backward b) and no send time the iteration lasts
// (m + (p-1)/v) (f + b) per chunk-stage, so the bubble over the ideal m (f + b) is
//   GPipe, 1F1B: (p - 1) / m        interleaved: (p - 1) / (v m)
// (Narayanan et al. 2021, §2.2); ideal_bubble_fraction() states it and the tests pin the placed
// schedule against it.
#pragma once

#include "workloads/parallel_config.h"

#include <cstdint>
#include <vector>

namespace ridgeline {

// Forward, Backward, Send: placed by schedule_pipeline; the rest are added by predict_parallel
// after it (the gradients' data-parallel reduction, the optimizer step, the ZeRO gathers).
enum class SlotKind { Forward, Backward, Send, GradReduce, Optimizer, ParamGather };
const char* slot_kind_name(SlotKind k);  // "forward", "backward", "send", ...

struct PipelineSlot {
  int stage = 0;
  int chunk = 0;  // model chunk on that stage (0 .. v-1)
  int64_t microbatch = 0;
  SlotKind kind = SlotKind::Forward;
  double start_us = 0, end_us = 0;
};

struct PipelineTimeline {
  std::vector<PipelineSlot> slots;    // in the order they were placed
  std::vector<double> stage_end_us;   // when each stage's last backward (or forward) ends
  std::vector<double> stage_busy_us;  // each stage's forward + backward time
  double end_us = 0;                  // the last slot's end
  // When the last slot would end were the sends free (send_us 0): the same placement, timed
  // again alongside, so predict_parallel knows the sends' exposed share from one placement.
  double end_without_send_us = 0;
  // (end_us - the busiest stage's busy time) / that busy time: Megatron's bubble fraction.
  double bubble_fraction() const;
};

struct PipelineInput {
  int64_t stages = 1, chunks = 1, microbatches = 1;  // p, v, m
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  bool backward = true;  // false: inference (forwards only, one after another)
  // Per model chunk g = chunk * p + stage (stage fastest): one micro-batch's times.
  std::vector<double> forward_us, backward_us;
  double send_us = 0;  // an activation (or its gradient) from one stage to the next
  // Every slot placed and kept (a trace). false: slots are not kept, and a long pipeline is
  // placed for m = p + s and p + 2s micro-batches and its end times extrapolated: past the
  // warm-up they are affine in m, in steps s of one micro-batch (p for interleaved, its groups);
  // the tests pin this against the full placement. A search prices a 1536-micro-batch pipeline
  // for the cost of a few p.
  bool record_slots = true;
};

// Places every slot; throws InternalError if the schedule deadlocks (a bug).
PipelineTimeline schedule_pipeline(const PipelineInput& in);

// The bubble over the ideal time for even stages: (p-1)/m, or (p-1)/(v m) interleaved.
double ideal_bubble_fraction(PipelineSchedule s, int64_t p, int64_t v, int64_t m);

}  // namespace ridgeline
