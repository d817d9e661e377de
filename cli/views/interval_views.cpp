// Interval views; see interval_views.h.
#include "cli/views/interval_views.h"

#include "cli/views/views.h"

#include <iomanip>

namespace ridgeline {

namespace {

struct JsonFieldWriter {  // interval_fields into an ordered_json
  nlohmann::ordered_json& j;
  template <class T>
  void field(const char* key, const T& value) {
    j[key] = value;
  }
};

}  // namespace

nlohmann::ordered_json interval_json(const PredictionInterval& i) {
  nlohmann::ordered_json j;
  JsonFieldWriter w{j};
  interval_fields(i, w);
  return j;
}

std::string interval_range(const PredictionInterval& i) {
  double scale = i.p90_us >= 1e6 ? 1e6 : i.p90_us >= 1e3 ? 1e3 : 1;
  const char* unit = scale == 1e6 ? " s" : scale == 1e3 ? " ms" : " us";
  int decimals = scale > 1 ? 3 : i.p90_us < 10 ? 2 : 1;
  return fixed(i.p10_us / scale, decimals) + "-" + fixed(i.p90_us / scale, decimals) + unit;
}

std::string interval_line(const PredictionInterval& i) {
  return "80% interval " + interval_range(i) + " (" + i.category + ", " + i.calibration +
         " calibration, " + std::to_string(i.count) + " fit measurements)";
}

void print_interval_coverage(std::ostream& os, const IntervalTable& t,
                             const std::vector<CoverageRow>& rows, double min, double max) {
  os << "Held-out coverage of the 80% intervals of " << t.file << " (built from the "
     << t.provenance.value("split", "?") << " split, " << t.provenance.value("generated_utc", "?")
     << ")\n";
  os << std::left << std::setw(26) << "kind" << std::setw(14) << "level" << std::setw(36)
     << "category" << std::right << std::setw(6) << "n" << std::setw(8) << "below" << std::setw(8)
     << "inside" << std::setw(8) << "above" << std::setw(10) << "coverage"
     << "\n";
  for (const auto& r : rows) {
    os << std::left << std::setw(26) << r.kind << std::setw(14) << r.level << std::setw(36)
       << r.category << std::right << std::setw(6) << r.count << std::setw(8) << r.below
       << std::setw(8) << r.inside << std::setw(8) << r.above << std::setw(9)
       << fixed(100 * r.coverage(), 1) << "%\n";
  }
  const CoverageRow& all = rows.back();
  bool ok = all.coverage() >= min && all.coverage() <= max;
  os << "overall: " << fixed(100 * all.coverage(), 1) << "% of " << all.count
     << " held-out kernels and steps inside their 80% interval (accepted " << fixed(100 * min, 0)
     << "-" << fixed(100 * max, 0) << "%): " << (ok ? "ok" : "OUT OF RANGE") << "\n";
}

bool print_output_coverage(std::ostream& os, const IntervalTable& t,
                           const std::vector<CoverageRow>& held) {
  os << "Output-level 80% intervals, held-out coverage (nominal 80%)\n";
  bool low = false;
  for (const CoverageRow& r : held) {
    auto it = t.outputs.find(r.category);
    std::string basis = it == t.outputs.end() ? "no output quantiles: kernel basis"
                                              : std::to_string(it->second.q.count) + " fit rows";
    bool bad = coverage_too_low(r.count, r.inside);
    low = low || bad;
    os << "  " << std::left << std::setw(30) << r.category << std::right << std::setw(6)
       << fixed(100 * r.coverage(), 1) << "% of " << std::setw(3) << r.count << " held out ("
       << r.below << " below, " << r.above << " above; " << basis << "): "
       << (bad                  ? "TOO LOW for 80% (binomial 5% test)"
           : r.coverage() < 0.8 ? "below 80%, within binomial noise (5% test)"
                                : "ok")
       << "\n";
  }
  return low;
}

void print_cluster_coverage(std::ostream& os, const std::vector<CoverageRow>& rows) {
  os << "Cluster steps (predict --cluster): 80% intervals of iteration time on the published "
        "training runs\n";
  for (const auto& r : rows)
    os << "  " << std::left << std::setw(8) << r.level << std::right << std::setw(4) << r.count
       << " rows: " << r.below << " below, " << r.inside << " inside, " << r.above
       << " above; coverage " << fixed(100 * r.coverage(), 1) << "%\n";
}

}  // namespace ridgeline
