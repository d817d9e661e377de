// Host costs per op kind from a trace's CPU ops; see host_learn.h.
#include "validate/host_learn.h"

#include "model/host_cost.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ridgeline {

namespace {

struct Span {
  double start = 0, end = 0;
};

const nlohmann::json* events_of(const nlohmann::json& trace) {
  if (trace.is_object() && trace.contains("traceEvents") && trace["traceEvents"].is_array())
    return &trace["traceEvents"];
  return trace.is_array() ? &trace : nullptr;
}

std::string str(const nlohmann::json& e, const char* key) {
  auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get<std::string>() : "";
}

bool number(const nlohmann::json& e, const char* key, double& out) {
  auto it = e.find(key);
  if (it == e.end() || !it->is_number()) return false;
  out = it->get<double>();
  return true;
}

bool correlation(const nlohmann::json& e, long long& out) {
  auto a = e.find("args");
  if (a == e.end() || !a->is_object()) return false;
  auto c = a->find("correlation");
  if (c == a->end() || !c->is_number_integer()) return false;
  out = c->get<long long>();
  return true;
}

// What the trace's CPU side says: top-level CPU ops of the busiest thread, each kernel launch's
// time by correlation, each kernel's correlation by start time.
struct CpuSide {
  std::vector<Span> ops;  // top-level, in time order
  std::map<long long, double> launch_at;
  std::map<double, long long> kernel_correlation;
};

CpuSide read_cpu_side(const nlohmann::json& trace) {
  CpuSide c;
  const nlohmann::json* events = events_of(trace);
  if (!events) return c;
  std::map<std::string, std::vector<Span>> by_thread;
  for (const auto& e : *events) {
    if (!e.is_object() || str(e, "ph") != "X") continue;
    std::string cat = str(e, "cat");
    double ts = 0, dur = 0;
    long long corr = 0;
    if (!number(e, "ts", ts) || !number(e, "dur", dur)) continue;
    if (cat == "cpu_op") {
      by_thread[e.contains("tid") ? e["tid"].dump() : ""].push_back({ts, ts + dur});
    } else if ((cat == "cuda_runtime" || cat == "cuda_driver") &&
               str(e, "name").find("LaunchKernel") != std::string::npos && correlation(e, corr)) {
      c.launch_at[corr] = ts;
    } else if (cat == "kernel" && correlation(e, corr)) {
      c.kernel_correlation[ts] = corr;
    }
  }
  const std::vector<Span>* busiest = nullptr;
  for (const auto& [tid, spans] : by_thread)
    if (!busiest || spans.size() > busiest->size()) busiest = &spans;
  if (!busiest) return c;
  std::vector<Span> all = *busiest;
  std::sort(all.begin(), all.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  for (const Span& s : all)
    if (c.ops.empty() || s.start >= c.ops.back().end) c.ops.push_back(s);
  return c;
}

// The top-level op whose span holds time `t`, or -1.
long op_at(const std::vector<Span>& ops, double t) {
  auto it = std::upper_bound(ops.begin(), ops.end(), t,
                             [](double x, const Span& s) { return x < s.start; });
  if (it == ops.begin()) return -1;
  --it;
  return t <= it->end ? (long)(it - ops.begin()) : -1;
}

const char* kind_name(HostOpKind k) {
  switch (k) {
    case HostOpKind::Gemm:
      return "gemm";
    case HostOpKind::Attention:
      return "attention";
    case HostOpKind::Reduction:
      return "reduction";
    case HostOpKind::CacheUpdate:
      return "cache_update";
    case HostOpKind::Moe:
      return "moe";
    default:
      return "elementwise";
  }
}

double& cost_of(HostOpCosts& c, HostOpKind k) {
  switch (k) {
    case HostOpKind::Gemm:
      return c.gemm_us;
    case HostOpKind::Attention:
      return c.attention_us;
    case HostOpKind::Reduction:
      return c.reduction_us;
    case HostOpKind::CacheUpdate:
      return c.cache_update_us;
    case HostOpKind::Moe:
      return c.moe_us;
    default:
      return c.elementwise_us;
  }
}

}  // namespace

HostLearn learn_host_costs(const nlohmann::json& trace, const std::vector<TraceKernel>& kernels,
                           const std::vector<KernelGroup>& groups, const KernelMatch& match,
                           const std::vector<StepKernel>& step, const OpGraph& graph,
                           double host_step_us) {
  HostLearn h;
  CpuSide cpu = read_cpu_side(trace);
  h.cpu_ops = (int)cpu.ops.size();
  if (cpu.ops.empty() || cpu.launch_at.empty()) {
    h.note =
        "the trace has no CPU ops or kernel launches (profile with ProfilerActivity.CPU); "
        "host costs kept from the base runtime";
    return h;
  }
  // Each top-level op: its kind (the first matched kernel it launched) and its kernels; each
  // decoder layer: the host span of the ops that launched its kernels.
  std::map<long, std::pair<HostOpKind, int>> op_kind;
  std::map<int64_t, Span> layer_span;
  for (const auto& p : match.pairs) {
    auto corr = cpu.kernel_correlation.find(kernels[groups[p.group].kernels[0]].start_us);
    if (corr == cpu.kernel_correlation.end()) continue;
    auto launch = cpu.launch_at.find(corr->second);
    if (launch == cpu.launch_at.end()) continue;
    long op = op_at(cpu.ops, launch->second);
    if (op < 0) continue;
    HostOpKind k = host_op_kind(node(graph, step[p.step].node));
    if (int64_t l = step[p.step].layer; l >= 0) {
      auto [ls, first] = layer_span.try_emplace(l, cpu.ops[op]);
      ls->second.start = std::min(ls->second.start, cpu.ops[op].start);
      ls->second.end = std::max(ls->second.end, cpu.ops[op].end);
    }
    auto [it, fresh] = op_kind.try_emplace(op, k, 0);
    it->second.second += 1;
    ++h.traced_kernels;
  }
  if (op_kind.empty()) {
    h.note =
        "no matched kernel leads back to a CPU op (no launch correlations); host costs "
        "kept from the base runtime";
    return h;
  }
  std::map<HostOpKind, HostKindSample> samples;
  for (const auto& [op, kk] : op_kind) {
    HostKindSample& s = samples[kk.first];
    s.kind = kind_name(kk.first);
    s.ops += 1;
    s.kernels += kk.second;
    s.profiled_us += cpu.ops[op].end - cpu.ops[op].start;
  }
  h.profiled_span_us = cpu.ops.back().end - cpu.ops.front().start;
  h.scale = host_step_us > 0 ? host_step_us / h.profiled_span_us : 1;
  for (auto& [k, s] : samples) {
    s.profiled_us /= s.kernels;
    cost_of(h.costs, k) = s.profiled_us * h.scale;
    h.kinds.push_back(s);
  }
  // A kind the step launches but no traced op sampled: the mean over every sampled kernel.
  double all_us = 0, all_kernels = 0;
  for (const auto& s : h.kinds) all_us += s.profiled_us * s.kernels, all_kernels += s.kernels;
  std::string unsampled;
  double issued = 0;  // the step's kernels at the learned costs
  std::map<int64_t, double> layer_issued;
  for (const auto& sk : step) {
    HostOpKind k = host_op_kind(node(graph, sk.node));
    if (!samples.count(k)) {
      samples[k].kind = kind_name(k);
      cost_of(h.costs, k) = all_us / all_kernels * h.scale;
      unsampled += std::string(unsampled.empty() ? "" : ", ") + kind_name(k);
    }
    issued += cost_of(h.costs, k);
    if (sk.layer >= 0) layer_issued[sk.layer] += cost_of(h.costs, k);
  }
  // Per block: a layer's host span less its kernels' costs, the mean over the traced layers;
  // per forward: what remains of the step's span.
  double block = 0;
  for (const auto& [l, sp] : layer_span)
    block += std::max(0.0, (sp.end - sp.start) * h.scale - layer_issued[l]);
  h.costs.block_us = layer_span.empty() ? 0 : block / (double)layer_span.size();
  h.costs.forward_us = std::max(
      0.0, h.profiled_span_us * h.scale - issued - h.costs.block_us * (double)layer_issued.size());
  char buf[256];
  if (host_step_us > 0)
    std::snprintf(buf, sizeof buf,
                  "scaled by %.3f: --host-step-us %.1f over the profiled host span %.1f us",
                  h.scale, host_step_us, h.profiled_span_us);
  else
    std::snprintf(buf, sizeof buf,
                  "as profiled (host span %.1f us); the profiler inflates CPU spans: give "
                  "--host-step-us, the step's host time without the profiler, to scale them",
                  h.profiled_span_us);
  h.note = buf;
  if (!unsampled.empty())
    h.note += "; no CPU op sampled " + unsampled + ": the mean over all kinds";
  // A dense model's trace: MoE kernels launch as elementwise ones.
  if (!samples.count(HostOpKind::Moe)) {
    h.costs.moe_us = h.costs.elementwise_us;
    h.note += "; no MoE kernel in the step: moe takes the elementwise figure";
  }
  h.learned = true;
  return h;
}

}  // namespace ridgeline
