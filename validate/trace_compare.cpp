// Trace comparison; see trace_compare.h.
#include "validate/trace_compare.h"

#include "common/errors.h"
#include "workloads/op.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ridgeline {

namespace {

bool has(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

// Helper kernels that belong to the op after them (memsets) rather than the one before.
bool joins_next(const std::string& name) {
  return has(name, "Memset") || has(name, "memset") || has(name, "compute_dot_do_o");
}

}  // namespace

std::string kernel_family(const std::string& n) {
  if (has(n, "splitKreduce") || has(n, "lean_reduction") || has(n, "fmha_reduce") ||
      has(n, "convert_dq") || has(n, "compute_dot_do_o") || has(n, "Memset") || has(n, "memset")) {
    return "aux";
  }
  if (has(n, "sdpa") || has(n, "flash") || has(n, "fmha") || has(n, "attention"))
    return "attention";
  if (has(n, "nvjet") || has(n, "gemm") || has(n, "cutlass") || has(n, "xmma") || has(n, "cublas"))
    return "gemm";
  if (has(n, "layer_norm") || has(n, "rms_norm") || has(n, "GammaBeta") || has(n, "norm_kernel"))
    return "norm";
  if (has(n, "softmax") || has(n, "SoftMax")) return "softmax";
  if (has(n, "reduce_kernel")) return "reduce";
  return "elementwise";
}

std::string op_family_for_trace(const std::string& f) {
  if (f == "attention_backward") return "attention";
  if (f.find("norm") != std::string::npos) return "norm";
  if (f.find("softmax") != std::string::npos) return "softmax";
  return f;
}

namespace {

// An event's string field ("" when absent); a field of another type is an error naming it.
std::string text_field(const nlohmann::json& e, const char* key, const std::string& at) {
  auto it = e.find(key);
  if (it == e.end()) return "";
  if (!it->is_string()) throw InputError(at + "/" + key + ": expected a string");
  return it->get<std::string>();
}

// A GPU event's time field in us: required, a finite number.
double number_field(const nlohmann::json& e, const char* key, const std::string& at) {
  auto it = e.find(key);
  if (it == e.end()) throw InputError(at + "/" + key + ": missing (a GPU event needs ts and dur)");
  if (!it->is_number() || !std::isfinite(it->get<double>()))
    throw InputError(at + "/" + key + ": expected a number of microseconds");
  return it->get<double>();
}

}  // namespace

std::vector<TraceKernel> read_trace_kernels(const nlohmann::json& trace, const std::string& label) {
  const nlohmann::json* events = &trace;
  if (trace.is_object()) {
    if (!trace.contains("traceEvents"))
      throw InputError(label + ": /traceEvents: missing; not a Chrome trace");
    events = &trace["traceEvents"];
  }
  if (!events->is_array()) throw InputError(label + ": /traceEvents: expected an array of events");
  std::vector<TraceKernel> out;
  for (size_t i = 0; i < events->size(); ++i) {
    const nlohmann::json& e = (*events)[i];
    const std::string at = label + ": /traceEvents/" + std::to_string(i);
    if (!e.is_object() || text_field(e, "ph", at) != "X") continue;
    std::string cat = text_field(e, "cat", at);
    if (cat != "kernel" && cat != "gpu_memset") continue;
    TraceKernel k;
    k.name = text_field(e, "name", at);
    k.start_us = number_field(e, "ts", at);
    k.duration_us = number_field(e, "dur", at);
    k.family = cat == "gpu_memset" ? "aux" : kernel_family(k.name);
    out.push_back(std::move(k));
  }
  if (out.empty())
    throw InputError(label + ": no GPU kernels in the trace (profile with ProfilerActivity.CUDA)");
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.start_us < b.start_us; });
  return out;
}

namespace {

struct Group {  // a main kernel and the helper kernels that serve it
  std::string family;
  double us = 0;
  std::vector<std::string> names;
};

std::vector<Group> group_kernels(const std::vector<TraceKernel>& kernels) {
  std::vector<Group> groups;
  std::vector<const TraceKernel*> pending;  // helpers waiting for the next main kernel
  for (const auto& k : kernels) {
    if (k.family == "aux" && (joins_next(k.name) || groups.empty())) {
      pending.push_back(&k);
      continue;
    }
    if (k.family == "aux") {
      groups.back().us += k.duration_us;
      groups.back().names.push_back(k.name);
      continue;
    }
    Group g{k.family, k.duration_us, {k.name}};
    for (auto* h : pending) {
      g.us += h->duration_us;
      g.names.push_back(h->name);
    }
    pending.clear();
    groups.push_back(std::move(g));
  }
  return groups;
}

std::vector<MatchedOp> expand(const Prediction& p, const GpuSpec& gpu) {
  std::vector<MatchedOp> ops;
  for_each_kernel(p, [&](const SectionPrediction& s, const TimelineEvent& e,
                         const KernelPrediction& k) {
    MatchedOp m;
    m.name = k.name;
    m.section = s.name;
    m.layer = e.layer;
    m.family = op_family_for_trace(k.family);
    m.predicted_us = std::max(0.0, k.device_us - k.cost.detail.kernels * gpu.launch.graph_us.value);
    m.roofline_us = k.cost.roofline_us;
    m.bottleneck = bottleneck_name(k.cost.bottleneck);
    m.hbm_bytes = k.cost.bytes.hbm;
    m.flops = k.cost.flops();
    ops.push_back(std::move(m));
  });
  return ops;
}

}  // namespace

TraceComparison compare_trace(const std::vector<TraceKernel>& kernels, const Prediction& p,
                              const GpuSpec& gpu) {
  std::vector<Group> groups = group_kernels(kernels);
  std::vector<MatchedOp> ops = expand(p, gpu);
  // Longest common subsequence by family: score[i][j] over ops[i..] and groups[j..].
  size_t n = ops.size(), m = groups.size();
  std::vector<std::vector<int>> score(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      int best = std::max(score[i + 1][j], score[i][j + 1]);
      if (ops[i].family == groups[j].family) best = std::max(best, 1 + score[i + 1][j + 1]);
      score[i][j] = best;
    }
  }
  TraceComparison c;
  c.trace_kernels = (int)kernels.size();
  size_t i = 0, j = 0;
  while (i < n && j < m) {
    if (ops[i].family == groups[j].family && score[i][j] == 1 + score[i + 1][j + 1]) {
      MatchedOp mo = ops[i];
      mo.measured_us = groups[j].us;
      mo.kernels = groups[j].names;
      c.measured_total_us += mo.measured_us;
      c.predicted_total_us += mo.predicted_us;
      c.matched.push_back(std::move(mo));
      ++i, ++j;
    } else if (score[i + 1][j] >= score[i][j + 1]) {
      c.unmatched_ops.push_back(ops[i++].name);
    } else {
      for (const auto& name : groups[j].names)
        c.unmatched_kernels.push_back({name, 0, 0, groups[j].family});
      ++j;
    }
  }
  for (; i < n; ++i) c.unmatched_ops.push_back(ops[i].name);
  for (; j < m; ++j) {
    for (const auto& name : groups[j].names)
      c.unmatched_kernels.push_back({name, 0, 0, groups[j].family});
  }
  return c;
}

}  // namespace ridgeline
