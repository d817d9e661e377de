// The whole-workload prediction: every kernel of a step on one GPU (its cost), the schedule of the
// step on its streams (a Timeline: when each node runs), per-section (per-layer) times, a
// breakdown of time by bottleneck, throughput and the memory the step needs. Views print it; the
// model never formats it. It refers to the graph's nodes by NodeId and holds copies of what the
// views need (names, op families), so it does not need the graph once made.
#pragma once

#include "hardware/cluster_spec.h"
#include "hardware/gpu_spec.h"
#include "model/interval.h"
#include "model/op_cost.h"
#include "model/timeline.h"
#include "workloads/model_config.h"
#include "workloads/op_graph.h"
#include "workloads/run_config.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

struct KernelPrediction {
  std::string name;         // the node's display name
  NodeId node;              // the node in the graph the prediction was made from
  const char* family = "";  // op_family() of its op (a static string): "gemm", "rmsnorm", ...
  Stream stream = Stream::Compute;
  OpCost cost;
  double device_us = 0;  // the kernel's device time (cost.time_us)
};

// One section's summary; its schedule is Prediction::timeline.sections at the same index.
struct SectionPrediction {
  std::string name;
  int64_t repeat = 1;
  int64_t first_layer = -1;
  double repeat_us = 0;                   // one repeat, launch stalls included
  double device_us = 0;                   // one repeat, until the GPU's last kernel ends
  double cpu_us = 0;                      // one repeat, CPU launch cost (eager mode)
  std::vector<KernelPrediction> kernels;  // one repeat, by vertex (NodeId::vertex)
};

struct MemoryFootprint {
  double weights_bytes = 0, kv_cache_bytes = 0, activation_bytes = 0, gradient_bytes = 0,
         optimizer_bytes = 0;
  double reserved_bytes = 0;  // CUDA context and library workspaces
  double capacity_bytes = 0;
  double total() const {
    return weights_bytes + kv_cache_bytes + activation_bytes + gradient_bytes + optimizer_bytes +
           reserved_bytes;
  }
  bool fits() const { return total() <= capacity_bytes; }
  int64_t max_batch = 0;  // the largest batch that fits, all else equal (0: not even 1)
};

// Time by what bounds it: compute, HBM, L2, shared memory, latency (kernel floor), the GPU
// waiting for the CPU to launch (eager mode), and collectives (comm; only where the graph has
// collective nodes, so single-GPU outputs never show it). Each kernel's time counts under its
// bound, so the classes sum to total_us while a section's GPU work runs on one stream; nodes
// that overlap on several streams (compute and comm) count twice.
constexpr int kTimeClasses = 7;
constexpr int kLaunchClass = 5;
constexpr int kCommClass = 6;
const char* time_class_name(int i);  // "compute", "hbm", "l2", "smem", "latency", "launch", "comm"
int time_class_of(Bottleneck b);     // a kernel's class: its bottleneck's (comm for Comm)
// Whether views show class i: every class but comm always; comm when it holds time.
bool time_class_shown(const std::array<double, kTimeClasses>& by_class, int i);

struct Prediction {
  std::string gpu, gpu_file, gpu_profile, model, description;
  std::string model_source;           // the preset or config file the model came from
  std::vector<std::string> what_ifs;  // the GPU what-ifs applied (GpuSpec::what_ifs)
  RunConfig run;
  std::vector<SectionPrediction> sections;
  Timeline timeline;  // when each node runs; every view reads times from it
  double total_us = 0;
  std::array<double, kTimeClasses> time_by_class_us{};
  double flops = 0, hbm_bytes = 0;
  int64_t kernels = 0;  // launched per step
  double tokens_per_s = 0;
  MemoryFootprint memory;
  std::optional<PredictionInterval> interval;  // of total_us, where asked for (predict)

  const KernelPrediction& kernel(NodeId id) const {
    return sections[id.section].kernels[id.vertex];
  }
};

// Calls f(section, event, kernel) for every kernel of the step: the timeline's events on the
// GPU's streams (host launches left out), repeat by repeat in launch order, with step times.
template <class F>
void for_each_kernel(const Prediction& p, F&& f) {
  p.timeline.for_each_event([&](const TimelineEvent& e) {
    if (e.stream != Stream::Host) f(p.sections[e.node.section], e, p.kernel(e.node));
  });
}

// Predicts one step: costs every node (node_cost.h), schedules each section on its streams
// (timeline.h), then sums up. The prediction does not point into `graph`.
Prediction predict_workload(const OpGraph& graph, const ModelConfig& model, const RunConfig& run,
                            const GpuSpec& gpu);
// The same with collective nodes priced on `cluster` (null: the graph must have none).
Prediction predict_workload(const OpGraph& graph, const ModelConfig& model, const RunConfig& run,
                            const GpuSpec& gpu, const ClusterSpec* cluster);

MemoryFootprint memory_footprint(const OpGraph& graph, const ModelConfig& model,
                                 const RunConfig& run, const GpuSpec& gpu);

}  // namespace ridgeline
