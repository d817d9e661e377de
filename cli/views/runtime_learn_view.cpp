// The learn report and the runtime listing; see runtime_learn_view.h.
#include "cli/views/runtime_learn_view.h"

#include <cstdio>
#include <map>

namespace ridgeline {

namespace {

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string pad(std::string s, size_t n) {
  if (s.size() < n) s.resize(n, ' ');
  return s;
}

void print_choices(std::ostream& os, const LearnResult& r) {
  os << "choices (score of each value, the others held):\n";
  for (const auto& c : r.choices) {
    os << "  " << pad(c.pointer.substr(1), 27) << pad(c.chosen, 24);
    if (c.fixed) {
      os << "set by --kv-cache-impl\n";
      continue;
    }
    if (c.only_valid) {
      os << "the only value the other choices allow\n";
      continue;
    }
    if (!c.observable) {
      os << "not seen in this trace: kept from the base\n";
      continue;
    }
    os << (c.chosen == c.base ? "(as the base)" : "(base: " + c.base + ")");
    for (const auto& [v, s] : c.scores) os << "  " << v << " " << fmt("%.3f", s);
    os << "\n";
  }
}

// Mean kernels a decoder layer: predicted, and trace kernels matched to them.
void print_per_layer(std::ostream& os, const LearnResult& r) {
  std::map<int64_t, std::pair<int, int>> layers;  // predicted, matched trace kernels
  for (const auto& s : r.step)
    if (s.layer >= 0) layers[s.layer].first++;
  for (const auto& p : r.match.pairs) {
    int64_t l = r.step[p.step].layer;
    if (l >= 0) layers[l].second += (int)r.groups[p.group].kernels.size();
  }
  if (layers.empty()) return;
  double pred = 0, matched = 0;
  for (const auto& [l, c] : layers) pred += c.first, matched += c.second;
  double n = (double)layers.size();
  os << "per decoder layer (mean of " << layers.size() << "): " << fmt("%.1f", pred / n)
     << " predicted kernels, " << fmt("%.1f", matched / n) << " trace kernels matched to them\n";
}

void print_host(std::ostream& os, const HostLearn& h) {
  if (!h.learned) {
    os << "host costs: not learned: " << h.note << "\n";
    return;
  }
  os << "host costs a kernel, " << h.note << ":\n ";
  for (const auto& k : h.kinds)
    os << " " << k.kind << " " << fmt("%.2f", k.profiled_us * h.scale) << " us (" << k.kernels
       << ")";
  os << "; per block " << fmt("%.1f", h.costs.block_us) << " us, per forward "
     << fmt("%.1f", h.costs.forward_us) << " us\n";
}

}  // namespace

void print_learn_report(std::ostream& os, const LearnReport& rep) {
  const LearnResult& r = *rep.result;
  os << "ridgeline runtime learn: " << rep.trace << " (sha256 " << rep.sha256.substr(0, 12)
     << "...), " << rep.workload << ", base " << rep.base << "\n";
  os << rep.shapes << "\n";
  double share = (double)r.matched_kernels / (double)std::max<size_t>(1, r.trace_kernels);
  os << "kernels: trace " << r.trace_kernels << " (" << r.groups.size()
     << " after joining helpers), step " << r.step.size() << "; matched " << r.matched_kernels
     << " of " << r.trace_kernels << " (" << fmt("%.1f%%", 100 * share) << "), score "
     << fmt("%.3f", r.match.score) << " (base " << fmt("%.3f", r.base_score) << "; " << r.candidates
     << " candidates, " << r.refused << " refused)\n";
  print_per_layer(os, r);
  print_choices(os, r);
  print_host(os, *rep.host);
  if (rep.unmatched.empty()) {
    os << "unmatched trace kernels: none\n";
  } else {
    os << "unmatched trace kernels (" << rep.unmatched.size() << " names):\n";
    for (const auto& [name, n] : rep.unmatched)
      os << "  " << n << " x " << (name.size() > 110 ? name.substr(0, 110) + "..." : name) << "\n";
  }
  os << "predicted kernels the trace lacks: " << r.match.unmatched_steps.size() << "\n";
  os << "wrote " << rep.out << "\n";
}

void print_runtime_show(std::ostream& os, const RuntimeProfile& rt, const nlohmann::json& doc) {
  os << "runtime " << rt.name << " (" << rt.file << ")\n" << rt.description << "\n";
  for (const auto& d : runtime_choice_dims()) {
    nlohmann::json::json_pointer at(d.pointer);
    if (doc.contains(at))
      os << "  " << pad(d.pointer.substr(1), 27) << doc.at(at).get<std::string>() << "\n";
  }
  if (rt.host == HostCost::GpuFigure) {
    os << "  host: the GPU description's launch/python_eager_us for every kernel\n";
  } else {
    const HostOpCosts& c = rt.host_us;
    os << "  host us: gemm " << c.gemm_us << ", attention " << c.attention_us << ", elementwise "
       << c.elementwise_us << ", reduction " << c.reduction_us << ", cache_update "
       << c.cache_update_us << ", moe " << c.moe_us << ", per block " << c.block_us
       << ", per forward " << c.forward_us << "\n";
  }
  if (!rt.learned) return;
  const LearnedFrom& l = *rt.learned;
  os << "learned from " << l.trace << " (sha256 " << l.sha256 << "), match score "
     << fmt("%.3f", l.match_score) << ", " << l.unmatched_kernels.size()
     << " kernel names matched nothing\n";
  for (const auto& n : l.notes) os << "  note: " << n << "\n";
}

}  // namespace ridgeline
