// Kernel classes and the weighted alignment of a trace to a step; see kernel_match.h.
#include "validate/kernel_match.h"

#include <algorithm>

namespace ridgeline {

namespace {

bool has(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

std::string family_of(const std::string& c) {
  return c.substr(0, c.find('/'));
}

// Names ATen, Triton and the serving libraries give their elementwise kernels.
bool elementwise_name(const std::string& n) {
  return has(n, "at::native") || has(n, "elementwise") || has(n, "triton") || has(n, "Cat") ||
         has(n, "copy") || has(n, "index") || has(n, "fill") || has(n, "silu") ||
         has(n, "rotary") || has(n, "cache");
}

}  // namespace

std::string trace_kernel_class(const std::string& n) {
  std::string f = kernel_family(n);
  if (f == "norm") {
    bool aten = has(n, "at::native") && !has(n, "triton");
    return aten ? "norm/aten" : "norm/single_pass";
  }
  if (f != "elementwise") return f;
  if (has(n, "rms_norm") || has(n, "layer_norm")) return "norm/single_pass";
  if (!elementwise_name(n)) return "other";
  if (has(n, "CatArray") || has(n, "cat_")) return "elementwise/cat";
  if (has(n, "copy")) return "elementwise/copy";
  return "elementwise/math";
}

std::string node_kernel_class(const GraphNode& n) {
  if (auto* r = std::get_if<RowOp>(&n.op.shape)) {
    bool softmax = r->kind == RowOpKind::Softmax || r->kind == RowOpKind::SoftmaxBackward;
    if (softmax) return "softmax";
    return r->impl == RowImpl::PyTorch ? "norm/aten" : "norm/single_pass";
  }
  if (auto* e = std::get_if<ElementwiseOp>(&n.op.shape)) {
    if (e->kind == ElementwiseKind::Cat) return "elementwise/cat";
    if (e->kind == ElementwiseKind::Copy) return "elementwise/copy";
    return "elementwise/math";
  }
  return op_family_for_trace(op_family(n.op));
}

double class_similarity(const std::string& a, const std::string& b) {
  if (a == "aux" || a == "other" || b == "aux" || b == "other") return 0;
  if (a == b) return 1;
  return family_of(a) == family_of(b) ? 0.5 : 0;
}

std::vector<KernelGroup> group_trace_kernels(const std::vector<TraceKernel>& kernels) {
  std::vector<KernelGroup> groups;
  std::vector<size_t> pending;  // helpers waiting for the next main kernel
  for (size_t i = 0; i < kernels.size(); ++i) {
    const TraceKernel& k = kernels[i];
    bool helper = k.family == "aux";
    bool joins_next = has(k.name, "emset") || has(k.name, "compute_dot_do_o");
    if (helper && (joins_next || groups.empty())) {
      pending.push_back(i);
    } else if (helper) {
      groups.back().kernels.push_back(i);
    } else {
      KernelGroup g{trace_kernel_class(k.name), {i}};
      g.kernels.insert(g.kernels.end(), pending.begin(), pending.end());
      pending.clear();
      groups.push_back(std::move(g));
    }
  }
  if (!pending.empty()) groups.push_back({"aux", pending});  // helpers with nothing after them
  return groups;
}

std::vector<StepKernel> step_kernels(const OpGraph& graph) {
  std::vector<StepKernel> out;
  for (size_t s = 0; s < graph.sections.size(); ++s) {
    const GraphSection& sec = graph.sections[s];
    const OpDag& dag = sec.dag();
    for (int64_t r = 0; r < sec.repeat; ++r) {
      int64_t layer = sec.first_layer >= 0 ? sec.first_layer + r : -1;
      for (OpVertex v = 0; v < boost::num_vertices(dag); ++v) {
        if (dag[v].stream != Stream::Compute) continue;
        out.push_back({node_kernel_class(dag[v]), NodeId{(int)s, v}, layer});
      }
    }
  }
  return out;
}

KernelMatch match_kernels(const std::vector<KernelGroup>& groups,
                          const std::vector<StepKernel>& step) {
  size_t n = groups.size(), m = step.size();
  // best[i][j]: the largest weight aligning groups[i..] with step[j..].
  std::vector<std::vector<double>> best(n + 1, std::vector<double>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      double b = std::max(best[i + 1][j], best[i][j + 1]);
      double w = class_similarity(groups[i].kernel_class, step[j].kernel_class);
      if (w > 0) b = std::max(b, w + best[i + 1][j + 1]);
      best[i][j] = b;
    }
  }
  KernelMatch k;
  size_t i = 0, j = 0;
  while (i < n && j < m) {
    double w = class_similarity(groups[i].kernel_class, step[j].kernel_class);
    if (w > 0 && best[i][j] == w + best[i + 1][j + 1]) {
      k.pairs.push_back({i, j, w});
      k.weight += w;
      ++i, ++j;
    } else if (best[i + 1][j] >= best[i][j + 1]) {
      k.unmatched_groups.push_back(i++);
    } else {
      k.unmatched_steps.push_back(j++);
    }
  }
  for (; i < n; ++i) k.unmatched_groups.push_back(i);
  for (; j < m; ++j) k.unmatched_steps.push_back(j);
  k.score = n + m > 0 ? 2 * k.weight / (double)(n + m) : 0;
  return k;
}

}  // namespace ridgeline
