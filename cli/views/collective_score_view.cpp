// See collective_score_view.h.
#include "cli/views/collective_score_view.h"

#include "cli/views/views.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>

namespace ridgeline {

namespace {

std::string pct(const MapeCell& c) {
  return c.n ? fixed(100 * c.mape, 1) + "%" : "-";
}

void print_table(std::ostream& os, const CollectiveScorecard& sc) {
  os << "collectives: " << sc.file << "\nMAPE of time; held-out rows were never fitted\n";
  os << std::left << std::setw(28) << "category" << std::right << std::setw(8) << "held n"
     << std::setw(11) << ">=1MB" << std::setw(9) << "all" << std::setw(9) << "fit n"
     << std::setw(11) << ">=1MB" << std::setw(9) << "all"
     << "\n";
  size_t slashes_before = 2;
  for (const auto& r : sc.rows) {
    size_t slashes = std::count(r.category.begin(), r.category.end(), '/');
    if (slashes != slashes_before) os << "\n";
    slashes_before = slashes;
    os << std::left << std::setw(28) << r.category << std::right << std::setw(8) << r.holdout_all.n
       << std::setw(11) << pct(r.holdout_1mb) << std::setw(9) << pct(r.holdout_all) << std::setw(9)
       << r.fit_all.n << std::setw(11) << pct(r.fit_1mb) << std::setw(9) << pct(r.fit_all) << "\n";
  }
}

nlohmann::ordered_json cell(const MapeCell& c) {
  return {{"mape", c.mape}, {"n", c.n}};
}

void print_json(std::ostream& os, const CollectiveScorecard& sc) {
  nlohmann::ordered_json j;
  j["file"] = sc.file;
  j["categories"] = nlohmann::ordered_json::array();
  for (const auto& r : sc.rows) {
    j["categories"].push_back({{"category", r.category},
                               {"holdout_1MB", cell(r.holdout_1mb)},
                               {"holdout_all", cell(r.holdout_all)},
                               {"fit_1MB", cell(r.fit_1mb)},
                               {"fit_all", cell(r.fit_all)}});
  }
  os << j.dump(2) << "\n";
}

}  // namespace

const ViewSet<CollectiveScorecard>& collective_score_views() {
  static const ViewSet<CollectiveScorecard> views = {{"table", print_table}, {"json", print_json}};
  return views;
}

void print_collective_baseline_check(std::ostream& os, const std::string& path,
                                     const std::vector<CollectiveBaselineLine>& lines) {
  int regressed = 0;
  for (const auto& l : lines) {
    os << (l.regressed() ? "WORSE " : "ok    ") << std::left << std::setw(18) << l.measure
       << std::setw(28) << l.category << std::right << " recorded " << std::setw(6)
       << fixed(100 * l.recorded, 2) << "%  now " << std::setw(6) << fixed(100 * l.now, 2) << "%\n";
    regressed += l.regressed();
  }
  os << path << ": " << lines.size() - regressed << " of " << lines.size()
     << " collective categories at or below their recorded held-out MAPE\n";
}

}  // namespace ridgeline
