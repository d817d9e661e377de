// Internal to predict_parallel (parallel_predict.h): one repeat of each section of a per-rank
// graph (workloads/sharding.h), costed by the kernel and collective models and scheduled on its
// streams (timeline.h), then summed per stream and per communication group:
//  - exposed communication: the part of each collective during which no compute kernel runs;
//  - the overlap slowdown: while a collective runs beside compute, its CTAs (collective_cost's
//    channels, one CTA each) take u = channels / SMs of the GPU, so compute overlapped with c us
//    of it is late by u * c (compute x 1/(1-u) while they share; Calculon's processor_usage).
// parts_of() then names the sections a stage's model chunks are made of.
#pragma once

#include "hardware/gpu_spec.h"
#include "model/parallel_predict.h"
#include "model/timeline.h"
#include "workloads/op_graph.h"

#include <vector>

namespace ridgeline {

struct SectionTime {
  SectionKind kind = SectionKind::DecoderBlock;
  int64_t repeat = 1;
  double time_us = 0;      // one repeat: the schedule's span + the overlap slowdown
  double compute_us = 0;   // one repeat: compute-stream kernel time
  double host_us = 0;      // one repeat: host launch time (eager)
  double slowdown_us = 0;  // of time_us: compute late because collectives shared the SMs
  double flops = 0;        // one repeat, executed
  GroupTimes comm_us{}, exposed_us{};  // one repeat, per group
  double max_sm_share = 0;             // the largest u of its collectives
  SectionTimeline timeline;            // one repeat's events (the trace)
};

// Every section of `graph`, in order, scheduled as `run` launches it (host_cost.h's
// schedule_run_section: eager launch per the runtime's host table or the GPU's figure; a CUDA
// graph's replay lead before the first section).
std::vector<SectionTime> time_sections(const OpGraph& graph, const GpuSpec& gpu,
                                       const ClusterSpec& cluster, const RunConfig& run);

// The sections of the rank graph a stage's chunks are made of (absent ones stay null). Decoder
// blocks: one section a layer kind (layer_groups: one for a uniform model; DeepSeek's dense first
// layers and MoE layers, Gemma's sliding and global layers: the whole model's, each chunk counting
// its own), in layer order, each with its backward section (built in reverse order) in training.
struct Parts {
  const SectionTime *embedding = nullptr, *head = nullptr, *loss = nullptr;
  const SectionTime *head_back = nullptr, *embedding_back = nullptr;
  std::vector<const SectionTime*> blocks, block_backs;  // block_backs[i] is blocks[i]'s
  double layers() const {
    double n = 0;
    for (const SectionTime* b : blocks) n += (double)b->repeat;
    return n;
  }
};
Parts parts_of(const std::vector<SectionTime>& sections);

// Time of `compute_us` of kernels with `comm_us` of a collective beside them, the collective
// taking a share u of the SMs: max(compute + u * min(compute, comm), comm).
double overlapped_us(double compute_us, double comm_us, double u);

}  // namespace ridgeline
