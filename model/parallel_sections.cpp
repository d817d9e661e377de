// Sections of a per-rank graph timed on their streams; see parallel_sections.h. Within a stream
// events never overlap, so a collective's overlap with compute is the sum of its intersections
// with the compute events (two sorted lists walked once).
#include "model/parallel_sections.h"

#include "common/errors.h"
#include "hardware/cluster_spec.h"
#include "model/collective_cost.h"
#include "model/host_cost.h"
#include "model/node_cost.h"

#include <algorithm>

namespace ridgeline {

double overlapped_us(double compute_us, double comm_us, double u) {
  return std::max(compute_us + u * std::min(compute_us, comm_us), comm_us);
}

namespace {

// The time in [start, end) that the compute events (sorted by start) cover.
double covered_us(const std::vector<const TimelineEvent*>& compute, double start, double end) {
  double sum = 0;
  auto first = std::lower_bound(compute.begin(), compute.end(), start,
                                [](const TimelineEvent* e, double t) { return e->end_us <= t; });
  for (auto it = first; it != compute.end() && (*it)->start_us < end; ++it)
    sum += std::max(0.0, std::min(end, (*it)->end_us) - std::max(start, (*it)->start_us));
  return sum;
}

SectionTime time_section(const GraphSection& s, int index, const GpuSpec& gpu,
                         const ClusterSpec& cluster, GemmMemo& memo, const RunConfig& run) {
  std::vector<OpCost> costs = cost_section(s, gpu, memo, &cluster);
  std::vector<double> duration(costs.size());
  for (size_t v = 0; v < costs.size(); ++v) duration[v] = costs[v].time_us;
  SectionTime t;
  t.kind = s.kind;
  t.repeat = s.repeat;
  t.timeline = schedule_run_section(s, index, duration, run, gpu);
  std::vector<const TimelineEvent*> compute;
  for (const TimelineEvent& e : t.timeline.events) {
    if (e.stream == Stream::Compute) compute.push_back(&e);
    if (e.stream == Stream::Host) t.host_us += e.end_us - e.start_us;
  }
  const double sms = gpu.compute.sm_count.value;
  for (const TimelineEvent& e : t.timeline.events) {
    const GraphNode& n = s.dag()[e.node.vertex];
    const double d = e.end_us - e.start_us;
    if (e.stream == Stream::Compute) {
      t.compute_us += d;
      t.flops += costs[e.node.vertex].flops();
    }
    if (e.stream != Stream::Comm) continue;
    int g = (int)n.role.group;
    double hidden = covered_us(compute, e.start_us, e.end_us);
    t.comm_us[g] += d;
    t.exposed_us[g] += d - hidden;
    const auto* c = std::get_if<CollectiveOp>(&n.op.shape);
    double u = c ? std::min(1.0, collective_cost(*c, cluster).channels / sms) : 0;
    t.max_sm_share = std::max(t.max_sm_share, u);
    t.slowdown_us += u * hidden;
  }
  t.time_us = t.timeline.repeat_us + t.slowdown_us;
  return t;
}

}  // namespace

std::vector<SectionTime> time_sections(const OpGraph& graph, const GpuSpec& gpu,
                                       const ClusterSpec& cluster, const RunConfig& run) {
  GemmMemo memo;
  std::vector<SectionTime> out;
  out.reserve(graph.sections.size());
  for (size_t i = 0; i < graph.sections.size(); ++i)
    out.push_back(time_section(graph.sections[i], (int)i, gpu, cluster, memo, run));
  return out;
}

Parts parts_of(const std::vector<SectionTime>& sections) {
  Parts p;
  for (const SectionTime& s : sections) {
    const SectionTime** slot = nullptr;
    switch (s.kind) {
      case SectionKind::Embedding:
        slot = &p.embedding;
        break;
      case SectionKind::DecoderBlock:
        p.blocks.push_back(&s);
        break;
      case SectionKind::Head:
        slot = &p.head;
        break;
      case SectionKind::Loss:
        slot = &p.loss;
        break;
      case SectionKind::HeadBackward:
        slot = &p.head_back;
        break;
      case SectionKind::BlockBackward:
        p.block_backs.insert(p.block_backs.begin(), &s);
        break;
      case SectionKind::EmbeddingBackward:
        slot = &p.embedding_back;
        break;
      case SectionKind::Optimizer:
        break;
    }
    if (slot) *slot = &s;
  }
  require_invariant(p.block_backs.empty() || p.block_backs.size() == p.blocks.size(),
                    "a backward section for each decoder block section");
  for (size_t i = 0; i < p.block_backs.size(); ++i)
    require_invariant(p.block_backs[i]->repeat == p.blocks[i]->repeat,
                      "a block's backward repeats as its forward");
  return p;
}

}  // namespace ridgeline
