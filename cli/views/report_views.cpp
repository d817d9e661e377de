// The view sets of `op`, `gpus show` and `validate --data`; see report_views.h. Each entry only
// routes to the view that prints the report (views.h, scorecard_views.h).
#include "cli/views/report_views.h"

#include "cli/views/scorecard_views.h"
#include "cli/views/views.h"

#include <ostream>

namespace ridgeline {

const ViewSet<OpReport>& op_views() {
  static const ViewSet<OpReport> views = {
      {"table", [](std::ostream& os, const OpReport& r) { print_op_table(os, r.gpu, r.results); }},
      {"json", [](std::ostream& os, const OpReport& r) { print_op_json(os, r.gpu, r.results); }},
      {"jsonl", [](std::ostream& os, const OpReport& r) { print_op_jsonl(os, r.results); }},
      {"csv", [](std::ostream& os, const OpReport& r) { print_op_csv(os, r.results); }},
  };
  return views;
}

const ViewSet<GpuSpec>& gpu_show_views() {
  static const ViewSet<GpuSpec> views = {
      {"table", [](std::ostream& os, const GpuSpec& g) { print_gpu_show(os, g); }},
      {"json", [](std::ostream& os, const GpuSpec& g) { os << gpu_json(g).dump(2) << "\n"; }},
  };
  return views;
}

namespace {

void scorecard_table(std::ostream& os, const ScorecardReport& r) {
  print_scorecard(os, r.scorecard, r.worst);
  if (!r.skipped.empty())
    os << "\n" << r.skipped.size() << " records left out (see --format json)\n";
  if (!r.plot.empty()) os << "\nwrote " << r.plot << "\n";
}

void scorecard_json_view(std::ostream& os, const ScorecardReport& r) {
  nlohmann::json j = scorecard_json(r.scorecard);
  j["skipped"] = r.skipped;
  os << j.dump(2) << "\n";
}

}  // namespace

const ViewSet<ScorecardReport>& scorecard_views() {
  static const ViewSet<ScorecardReport> views = {
      {"table", scorecard_table},
      {"json", scorecard_json_view},
      {"markdown", [](std::ostream& os,
                      const ScorecardReport& r) { print_scorecard_markdown(os, r.scorecard); }},
  };
  return views;
}

}  // namespace ridgeline
