// Views of the training-runs scorecard; see training_views.h.
//
//   category                 held-out  n   MAPE  median  bias  |  fit  n   MAPE  median  bias
//   all                               22  12.3%    9.1%  0.95  |      63  11.0%   8.7%  0.97
#include "cli/views/training_views.h"

#include "cli/views/views.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>

namespace ridgeline {

namespace {

std::string pct(double x) {
  return fixed(100 * x, 1) + "%";
}

void stats_cells(std::ostream& os, const ErrorStats& s) {
  os << std::right << std::setw(5) << s.count;
  if (s.count == 0) {
    os << std::setw(8) << "-" << std::setw(8) << "-" << std::setw(6) << "-";
    return;
  }
  os << std::setw(8) << pct(s.mape) << std::setw(8) << pct(s.median) << std::setw(6)
     << fixed(s.bias, 2);
}

nlohmann::ordered_json stats_json(const ErrorStats& s) {
  return {{"count", s.count}, {"mape", s.mape},   {"median", s.median},
          {"p90", s.p90},     {"worst", s.worst}, {"bias", s.bias}};
}

void print_table(std::ostream& os, const TrainingReport& rep) {
  const TrainingScorecard& sc = rep.scorecard;
  const int worst = rep.worst;
  int64_t skipped = 0;
  for (const auto& [why, n] : sc.skipped) skipped += n;
  os << "ridgeline validate: iteration time of published training runs, " << sc.dataset << "\n"
     << sc.rows << " rows: " << sc.cases.size() << " scored, " << skipped << " skipped"
     << " (held out: FNV-1a 64 of the row id % 3 == 0)\n\n";
  os << std::left << std::setw(34) << "category" << std::right << std::setw(27) << "held-out"
     << "  |" << std::setw(27) << "fit"
     << "\n";
  os << std::left << std::setw(34) << "" << std::right << std::setw(5) << "n" << std::setw(8)
     << "MAPE" << std::setw(8) << "median" << std::setw(6) << "bias"
     << "  |" << std::setw(5) << "n" << std::setw(8) << "MAPE" << std::setw(8) << "median"
     << std::setw(6) << "bias"
     << "\n";
  for (const auto& c : sc.categories) {
    os << std::left << std::setw(34) << c.name;
    stats_cells(os, c.holdout);
    os << "  |";
    stats_cells(os, c.fit);
    os << "\n";
  }
  os << "\nskipped rows by reason\n";
  for (const auto& [why, n] : sc.skipped)
    os << std::right << std::setw(6) << n << "  " << why << "\n";
  if (!sc.predicted_not_fitting.empty())
    os << "\n"
       << sc.predicted_not_fitting.size()
       << " scored rows are predicted not to fit in memory (they ran: the memory model's error)\n";
  std::vector<const CaseResult*> held;
  for (const auto& c : sc.cases)
    if (c.split == "holdout") held.push_back(&c);
  std::sort(held.begin(), held.end(),
            [](auto* a, auto* b) { return std::fabs(a->error()) > std::fabs(b->error()); });
  if (worst <= 0 || held.empty()) return;
  os << "\nWorst held-out rows\n";
  for (int i = 0; i < worst && i < (int)held.size(); ++i) {
    const CaseResult* c = held[i];
    os << "  " << std::left << std::setw(28) << c->id << std::setw(9) << c->family << std::setw(10)
       << c->bottleneck << std::right << " measured " << std::setw(10) << human_us(c->measured_us)
       << "  predicted " << std::setw(10) << human_us(c->predicted_us) << "  " << std::setw(7)
       << pct(c->error()) << "\n";
  }
}

void print_json(std::ostream& os, const TrainingReport& rep) {
  const TrainingScorecard& sc = rep.scorecard;
  nlohmann::ordered_json j;
  j["dataset"] = sc.dataset;
  j["rows"] = sc.rows;
  j["split_rule"] = "held out when FNV-1a 64 of the row id % 3 == 0";
  j["categories"] = nlohmann::ordered_json::object();
  for (const auto& c : sc.categories)
    j["categories"][c.name] = {{"holdout", stats_json(c.holdout)}, {"fit", stats_json(c.fit)}};
  j["skipped"] = sc.skipped;
  j["predicted_not_fitting"] = sc.predicted_not_fitting;
  j["cases"] = nlohmann::ordered_json::array();
  for (const auto& c : sc.cases)
    j["cases"].push_back({{"id", c.id},
                          {"family", c.family},
                          {"gpu", c.bottleneck},
                          {"split", c.split},
                          {"measured_us", c.measured_us},
                          {"predicted_us", c.predicted_us},
                          {"error", c.error()}});
  os << j.dump(2) << "\n";
}

void print_markdown(std::ostream& os, const TrainingReport& rep) {
  const TrainingScorecard& sc = rep.scorecard;
  os << "| category | held-out rows | held-out MAPE | fit rows | fit MAPE |\n"
     << "|---|---:|---:|---:|---:|\n";
  for (const auto& c : sc.categories) {
    auto cell = [](const ErrorStats& s) { return s.count ? pct(s.mape) : std::string("-"); };
    os << "| " << c.name << " | " << c.holdout.count << " | " << cell(c.holdout) << " | "
       << c.fit.count << " | " << cell(c.fit) << " |\n";
  }
}

}  // namespace

const ViewSet<TrainingReport>& training_views() {
  static const ViewSet<TrainingReport> v = {
      {"table", print_table}, {"json", print_json}, {"markdown", print_markdown}};
  return v;
}

void print_training_check(std::ostream& os, const std::string& path,
                          const std::vector<BaselineCheck>& checks) {
  int regressed = 0;
  os << "ridgeline validate --check " << path << " (published training runs, held-out MAPE)\n";
  for (const auto& c : checks) {
    os << "  " << (c.regressed() ? "WORSE " : "ok    ") << c.category << ": "
       << fixed(100 * c.now, 2) << "% (recorded " << fixed(100 * c.recorded, 2) << "%)\n";
    regressed += c.regressed();
  }
  if (regressed)
    os << regressed
       << " categories rose above the recorded held-out error; improve the model, or commit\n"
       << "new numbers in " << path << " beside the change that earned them\n";
}

}  // namespace ridgeline
