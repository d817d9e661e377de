// The host's (Python + PyTorch dispatch) time to issue each node of a section in eager launch,
// for the scheduler's host stream (timeline.h). A runtime either takes the GPU description's one
// figure for every kernel (launch.python_eager_us) or has a table per op kind (runtime_profile.h
// HostOpCosts): a weight GEMM (aten::linear), attention (SDPA), a reduction or row op, a cache
// update (torch.cat / index_copy_), an MoE routing, dispatch or combine kernel (each the visible
// launch of several Python-side index ops: top-k, sort, histc, gathers, index_put), any other
// elementwise kernel; plus the interpreter's time per
// decoder block and per forward that launches nothing (module calls, views, reshapes).
#pragma once

#include "hardware/gpu_spec.h"
#include "model/timeline.h"
#include "workloads/op_graph.h"
#include "workloads/run_config.h"

#include <vector>

namespace ridgeline {

enum class HostOpKind { Gemm, Attention, Elementwise, Reduction, CacheUpdate, Moe };

HostOpKind host_op_kind(const GraphNode& n);

// What the host does for one repeat of a section: its fixed time first, then one launch a node.
struct HostIssue {
  double lead_us = 0;             // before the first launch (per block / per forward)
  std::vector<double> launch_us;  // by vertex; empty: no host events (CUDA graph replay)
};

HostIssue host_issue(const GraphSection& s, const RunConfig& run, const GpuSpec& gpu);

// One repeat of section `index` of a step scheduled as `run` launches it: eager, one host launch
// a node (the runtime's table per op kind with its per-block and per-forward time, or the GPU's
// one figure); a CUDA graph, no host events but the runtime's graph_replay_us before the step's
// first section. The one schedule of predict_workload and of a cluster's per-rank sections.
SectionTimeline schedule_run_section(const GraphSection& s, int index,
                                     const std::vector<double>& duration_us, const RunConfig& run,
                                     const GpuSpec& gpu);

}  // namespace ridgeline
