// See validate_collectives.h. A collective baseline:
//   {"about": "...", "collective_dataset": "validate/data/published-collectives.json",
//    "holdout_mape_1MB": {"H100/all_reduce/8": 0.031, ..., "all": 0.092},
//    "holdout_mape_all": {...}}
#include "cli/validate_collectives.h"

#include "cli/views/collective_score_view.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/cluster_spec.h"

#include <iostream>
#include <map>

namespace ridgeline {

namespace {

CollectiveScorecard score_file(const std::string& file, const std::vector<std::string>& clusters) {
  std::map<std::string, ClusterSpec> by_name;
  for (const auto& c : clusters) {
    ClusterSpec spec = load_cluster(c);
    by_name.insert_or_assign(spec.name, spec);
  }
  return score_collectives(load_collective_dataset(file), by_name);
}

}  // namespace

int run_collective_validate(const std::string& file, const std::vector<std::string>& clusters,
                            const std::string& format) {
  CollectiveScorecard sc = score_file(file, clusters);
  collective_score_views().pick(format, "--format")(std::cout, sc);
  return 0;
}

bool is_collective_baseline(const std::string& path) {
  nlohmann::json doc = read_json_file(path);
  return doc.is_object() && doc.contains("collective_dataset");
}

int run_collective_check(const std::string& path) {
  nlohmann::json doc = read_json_file(path);
  JsonReader r(doc, path);
  r.string("about");
  std::string data = r.string("collective_dataset");
  CollectiveScorecard sc = score_file(data, {});
  std::vector<CollectiveBaselineLine> lines;
  for (const char* measure : {"holdout_mape_1MB", "holdout_mape_all"}) {
    JsonReader& recorded = r.child(measure);
    for (const auto& category : recorded.keys()) {
      double was = recorded.non_negative(category);
      const CollectiveScoreRow* row = nullptr;
      for (const auto& s : sc.rows)
        if (s.category == category) row = &s;
      if (!row) recorded.fail(category, "no such category in " + data);
      bool big = std::string(measure) == "holdout_mape_1MB";
      lines.push_back(
          {category, measure, was, big ? row->holdout_1mb.mape : row->holdout_all.mape});
    }
  }
  r.finish();
  print_collective_baseline_check(std::cout, path, lines);
  for (const auto& l : lines)
    if (l.regressed()) return 1;
  return 0;
}

}  // namespace ridgeline
