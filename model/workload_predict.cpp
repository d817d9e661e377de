// predict_workload(): each section's kernels run in launch order on one stream.
//  - A memory-bound kernel that consumes what the kernel just before it wrote finds that in L2
//    (warm_l2), if it fits; so does the first kernel of a section, which reads the residual
//    stream the previous section just wrote.
//  - Graph launch: kernels run back to back; each kernel's time already holds its launch gap.
//  - Eager launch: the CPU issues one kernel per launch.python_eager_us; over a section the
//    GPU needs max(its own work, the CPU's issue time), and the difference is time the GPU waits
//    ("launch").
// Identical repeats (decoder blocks) are predicted once and multiplied.
#include "model/prediction.h"

#include "workloads/op_math.h"

#include <algorithm>

namespace ridgeline {

const char* time_class_name(int i) {
  static const char* names[kTimeClasses] = {"compute", "hbm", "l2", "smem", "latency", "launch"};
  return i >= 0 && i < kTimeClasses ? names[i] : "?";
}

namespace {

bool memory_bound(const Op& op) {
  return !std::holds_alternative<GemmOp>(op.shape) &&
         !std::holds_alternative<AttentionOp>(op.shape);
}

// GEMMs of one shape cost the same wherever they stand (a GEMM never runs warm): a transformer
// block has several (gate and up, q and o), so each shape is costed once per prediction.
struct GemmMemo {
  std::vector<std::pair<GemmOp, OpCost>> known;
  OpCost cost(const Op& op, const GpuSpec& gpu) {
    const auto* g = std::get_if<GemmOp>(&op.shape);
    if (!g) return predict_op(op, gpu);
    for (const auto& [shape, c] : known) {
      if (shape == *g) return c;
    }
    known.emplace_back(*g, predict_op(op, gpu));
    return known.back().second;
  }
};

SectionPrediction predict_section(const GraphSection& s, const GpuSpec& gpu, const RunConfig& run,
                                  GemmMemo& memo) {
  SectionPrediction p{s.name, s.repeat, s.first_layer, 0, 0, 0, {}};
  std::vector<OpVertex> order = launch_order(s);
  for (size_t i = 0; i < order.size(); ++i) {
    const GraphNode& n = s.dag()[order[i]];
    Op op = n.op;
    bool after_producer = i == 0 || boost::edge(order[i - 1], order[i], s.dag()).second;
    op.warm_l2 = memory_bound(op) && after_producer;
    KernelPrediction k{n.name, &n.op, memo.cost(op, gpu), p.device_us, 0};
    k.device_us = k.cost.time_us;
    p.device_us += k.device_us;
    p.kernels.push_back(std::move(k));
  }
  p.cpu_us =
      run.launch == LaunchMode::Eager ? gpu.launch.python_eager_us.value * (double)order.size() : 0;
  p.repeat_us = std::max(p.device_us, p.cpu_us);
  return p;
}

void add_totals(Prediction& pr) {
  for (const auto& s : pr.sections) {
    double r = (double)s.repeat;
    pr.total_us += r * s.repeat_us;
    pr.time_by_class_us[5] += r * (s.repeat_us - s.device_us);
    for (const auto& k : s.kernels) {
      pr.time_by_class_us[(int)k.cost.bottleneck] += r * k.device_us;
      pr.flops += r * k.cost.flops();
      pr.hbm_bytes += r * k.cost.bytes.hbm;
      pr.kernels += s.repeat * k.cost.detail.kernels;
    }
  }
}

}  // namespace

Prediction predict_workload(const OpGraph& graph, const ModelConfig& model, const RunConfig& run,
                            const GpuSpec& gpu) {
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
  for (const auto& s : graph.sections) pr.sections.push_back(predict_section(s, gpu, run, memo));
  add_totals(pr);
  pr.tokens_per_s = (double)step_tokens(run) / (pr.total_us * 1e-6);
  pr.memory = memory_footprint(graph, model, run, gpu);
  return pr;
}

}  // namespace ridgeline
