// Host cost per node in eager launch; see host_cost.h.
#include "model/host_cost.h"

namespace ridgeline {

HostOpKind host_op_kind(const GraphNode& n) {
  if (n.role.kind == RoleKind::CacheWrite) return HostOpKind::CacheUpdate;
  if (n.role.kind == RoleKind::MoeRouting || n.role.kind == RoleKind::MoeDispatch ||
      n.role.kind == RoleKind::MoeCombine)
    return HostOpKind::Moe;
  if (std::holds_alternative<GemmOp>(n.op.shape)) return HostOpKind::Gemm;
  if (std::holds_alternative<AttentionOp>(n.op.shape)) return HostOpKind::Attention;
  if (std::holds_alternative<ReduceOp>(n.op.shape) || std::holds_alternative<RowOp>(n.op.shape))
    return HostOpKind::Reduction;
  return HostOpKind::Elementwise;
}

namespace {

double table_us(const HostOpCosts& t, HostOpKind k) {
  switch (k) {
    case HostOpKind::Gemm:
      return t.gemm_us;
    case HostOpKind::Attention:
      return t.attention_us;
    case HostOpKind::Reduction:
      return t.reduction_us;
    case HostOpKind::CacheUpdate:
      return t.cache_update_us;
    case HostOpKind::Moe:
      return t.moe_us;
    default:
      return t.elementwise_us;
  }
}

}  // namespace

HostIssue host_issue(const GraphSection& s, const RunConfig& run, const GpuSpec& gpu) {
  HostIssue h;
  if (run.launch != LaunchMode::Eager) return h;
  const OpDag& dag = s.dag();
  size_t n = boost::num_vertices(dag);
  if (run.runtime.host == HostCost::GpuFigure) {
    h.launch_us.assign(n, gpu.launch.python_eager_us.value);
    return h;
  }
  const HostOpCosts& t = run.runtime.host_us;
  h.launch_us.resize(n);
  for (OpVertex v = 0; v < n; ++v) h.launch_us[v] = table_us(t, host_op_kind(dag[v]));
  if (s.kind == SectionKind::DecoderBlock) h.lead_us = t.block_us;
  if (s.kind == SectionKind::Embedding) h.lead_us = t.forward_us;
  return h;
}

SectionTimeline schedule_run_section(const GraphSection& s, int index,
                                     const std::vector<double>& duration_us, const RunConfig& run,
                                     const GpuSpec& gpu) {
  if (run.launch == LaunchMode::Eager && run.runtime.host == HostCost::PerOpKind) {
    HostIssue h = host_issue(s, run, gpu);
    return schedule_section(s, index, duration_us, h.lead_us, h.launch_us);
  }
  const double host_issue_us =
      run.launch == LaunchMode::Eager ? gpu.launch.python_eager_us.value : 0;
  SectionTimeline st = schedule_section(s, index, duration_us, host_issue_us);
  if (run.launch == LaunchMode::Graph && index == 0)
    graph_replay_lead(st, run.runtime.graph_replay_us);
  return st;
}

}  // namespace ridgeline
