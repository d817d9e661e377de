// Text and JSON views of a validation scorecard:
//
//   family        n   ridgeline MAPE  median  p90    bias  |  roofline MAPE  median  p90
//   gemm        112           9.8%    6.1%  21.0%  0.98  |          41.2%   35.0%  72.1%
#include "cli/views/scorecard_views.h"
#include "cli/views/views.h"

#include <algorithm>
#include <iomanip>

namespace ridgeline {

namespace {

std::string pct(double x) {
  return fixed(100 * x, 1) + "%";
}

}  // namespace

void print_scorecard(std::ostream& os, const Scorecard& sc, int worst) {
  os << "ridgeline validate: " << sc.gpu << " against " << sc.dataset << " (" << sc.split
     << " split, " << sc.cases.size() << " cases"
     << (sc.runtimes.empty() ? "" : "; runtime " + sc.runtimes) << ")\n\n";
  int name_w = 14;  // the family column: as wide as its longest name, and a space
  for (const auto& f : sc.families) name_w = std::max(name_w, (int)f.family.size() + 1);
  os << std::left << std::setw(name_w) << "family" << std::right << std::setw(5) << "n" << std::setw(16)
     << "ridgeline MAPE" << std::setw(8) << "median" << std::setw(8) << "p90" << std::setw(7)
     << "bias"
     << "  |" << std::setw(15) << "roofline MAPE" << std::setw(8) << "median" << std::setw(8)
     << "p90" << std::setw(7) << "bias"
     << "\n";
  for (const auto& f : sc.families) {
    os << std::left << std::setw(name_w) << f.family << std::right << std::setw(5) << f.model.count
       << std::setw(16) << pct(f.model.mape) << std::setw(8) << pct(f.model.median) << std::setw(8)
       << pct(f.model.p90) << std::setw(7) << fixed(f.model.bias, 2) << "  |" << std::setw(15)
       << pct(f.roofline.mape) << std::setw(8) << pct(f.roofline.median) << std::setw(8)
       << pct(f.roofline.p90) << std::setw(7) << fixed(f.roofline.bias, 2) << "\n";
  }
  if (worst <= 0 || sc.cases.empty()) return;
  std::vector<const CaseResult*> sorted;
  for (const auto& c : sc.cases) sorted.push_back(&c);
  std::sort(sorted.begin(), sorted.end(),
            [](auto* a, auto* b) { return std::fabs(a->error()) > std::fabs(b->error()); });
  os << "\nWorst cases (bias = predicted / measured)\n";
  for (int i = 0; i < worst && i < (int)sorted.size(); ++i) {
    const auto* c = sorted[i];
    os << "  " << std::left << std::setw(48) << c->id.substr(0, 47) << std::right << " measured "
       << std::setw(10) << human_us(c->measured_us) << "  predicted " << std::setw(10)
       << human_us(c->predicted_us) << "  " << std::setw(7) << pct(c->error()) << "  ("
       << c->bottleneck << ")\n";
  }
}

void print_scorecard_markdown(std::ostream& os, const Scorecard& sc) {
  os << "| op family | cases | ridgeline MAPE | median | p90 | plain roofline MAPE | median |\n"
     << "|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& f : sc.families) {
    bool total = f.family == "memory-bound" || f.family == "all";
    std::string name = total ? "**" + f.family + "**" : f.family;
    os << "| " << name << " | " << f.model.count << " | " << pct(f.model.mape) << " | "
       << pct(f.model.median) << " | " << pct(f.model.p90) << " | " << pct(f.roofline.mape) << " | "
       << pct(f.roofline.median) << " |\n";
  }
}

nlohmann::json scorecard_json(const Scorecard& sc) {
  auto stats = [](const ErrorStats& s) {
    return nlohmann::json{{"count", s.count}, {"mape", s.mape},   {"median", s.median},
                          {"p90", s.p90},     {"worst", s.worst}, {"bias", s.bias}};
  };
  nlohmann::json j{{"gpu", sc.gpu}, {"dataset", sc.dataset}, {"split", sc.split}};
  if (!sc.runtimes.empty()) j["runtimes"] = sc.runtimes;
  for (const auto& f : sc.families) {
    j["families"][f.family] = {{"ridgeline", stats(f.model)}, {"roofline", stats(f.roofline)}};
  }
  for (const auto& c : sc.cases) {
    j["cases"].push_back({{"id", c.id},
                          {"family", c.family},
                          {"split", c.split},
                          {"measured_us", c.measured_us},
                          {"predicted_us", c.predicted_us},
                          {"roofline_us", c.roofline_us},
                          {"bottleneck", c.bottleneck}});
  }
  return j;
}

void print_baseline_check(std::ostream& os, const std::string& path, const GpuSpec& gpu,
                          const std::vector<BaselineCheck>& checks) {
  int regressed = 0;
  os << "ridgeline validate --check " << path << " (" << gpu.name << ", profile " << gpu.profile
     << ", held-out MAPE)\n";
  for (const auto& c : checks) {
    os << "  " << (c.regressed() ? "WORSE " : "ok    ") << c.category << ": "
       << fixed(100 * c.now, 2) << "% (recorded " << fixed(100 * c.recorded, 2) << "%)\n";
    regressed += c.regressed();
  }
  if (regressed) {
    os << regressed
       << " categories rose above the recorded held-out error; improve the model, or commit\n"
       << "new numbers in " << path << " beside the change that earned them\n";
  }
}

}  // namespace ridgeline
