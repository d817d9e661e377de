// predict_workload(), in three steps:
//  1. cost every node (node_cost.h: the kernel model with the warm-L2 rule and a GEMM memo);
//  2. schedule one repeat of each section on its streams (timeline.h). Graph launch: kernels
//     run back to back, each kernel's time already holding its launch gap. Eager launch: the
//     host issues one kernel per launch.python_eager_us (or per the runtime's host table per op
//     kind, host_cost.h), and over a repeat the GPU needs
//     max(its own work, the host's issue time); the difference is time the GPU waits ("launch").
//     A runtime whose graph launch has host work first (graph_replay_us) adds it before the
//     first section's kernels, the GPU idle ("launch" too);
//  3. summarise: per-section times from the schedule, totals, time by bound, throughput, memory.
// Identical repeats (decoder blocks) are costed and scheduled once and multiplied.
#include "model/host_cost.h"
#include "model/node_cost.h"
#include "model/prediction.h"

#include "workloads/op_math.h"

namespace ridgeline {

const char* time_class_name(int i) {
  static const char* names[kTimeClasses] = {"compute", "hbm",    "l2",  "smem",
                                            "latency", "launch", "comm"};
  return i >= 0 && i < kTimeClasses ? names[i] : "?";
}

int time_class_of(Bottleneck b) {
  return b == Bottleneck::Comm ? kCommClass : (int)b;
}

bool time_class_shown(const std::array<double, kTimeClasses>& by_class, int i) {
  return i != kCommClass || by_class[i] > 0;
}

namespace {

SectionPrediction summarise_section(const GraphSection& s, int index,
                                    const std::vector<OpCost>& costs, const SectionTimeline& st) {
  SectionPrediction p{s.name,         s.repeat, s.first_layer, st.repeat_us, st.device_end_us,
                      st.host_end_us, {}};
  p.kernels.reserve(costs.size());
  for (OpVertex v = 0; v < costs.size(); ++v) {
    const GraphNode& n = s.dag()[v];
    p.kernels.push_back(
        {n.name, {index, v}, op_family(n.op), n.stream, costs[v], costs[v].time_us});
  }
  return p;
}

void add_totals(Prediction& pr) {
  for (const auto& s : pr.sections) {
    double r = (double)s.repeat;
    pr.total_us += r * s.repeat_us;
    pr.time_by_class_us[kLaunchClass] += r * (s.repeat_us - s.device_us);
    for (const auto& k : s.kernels) {
      pr.time_by_class_us[time_class_of(k.cost.bottleneck)] += r * k.device_us;
      pr.flops += r * k.cost.flops();
      pr.hbm_bytes += r * k.cost.bytes.hbm;
      pr.kernels += s.repeat * k.cost.detail.kernels;
    }
  }
}

}  // namespace

Prediction predict_workload(const OpGraph& graph, const ModelConfig& model, const RunConfig& run,
                            const GpuSpec& gpu) {
  return predict_workload(graph, model, run, gpu, nullptr);
}

Prediction predict_workload(const OpGraph& graph, const ModelConfig& model, const RunConfig& run,
                            const GpuSpec& gpu, const ClusterSpec* cluster) {
  Prediction pr;
  pr.gpu = gpu.name;
  pr.gpu_file = gpu.file;
  pr.gpu_profile = gpu.profile;
  pr.model = model.name;
  pr.model_source = model.source;
  pr.what_ifs = what_if_labels(gpu);
  pr.description = graph.description;
  pr.run = run;
  GemmMemo memo;
  for (size_t i = 0; i < graph.sections.size(); ++i) {
    const GraphSection& s = graph.sections[i];
    std::vector<OpCost> costs = cost_section(s, gpu, memo, cluster);
    std::vector<double> duration_us(costs.size());
    for (size_t v = 0; v < costs.size(); ++v) duration_us[v] = costs[v].time_us;
    pr.timeline.sections.push_back(schedule_run_section(s, (int)i, duration_us, run, gpu));
    pr.sections.push_back(summarise_section(s, (int)i, costs, pr.timeline.sections.back()));
  }
  add_totals(pr);
  pr.tokens_per_s = (double)step_tokens(run) / (pr.total_us * 1e-6);
  pr.memory = memory_footprint(graph, model, run, gpu);
  return pr;
}

}  // namespace ridgeline
