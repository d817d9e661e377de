// Views of `ridgeline validate --collectives`: the scorecard (MAPE per GPU / collective / GPU
// count, for messages >= 1 MB and all sizes, held-out and fit split apart) as a table or JSON,
// and the lines of a collective baseline check.
#pragma once

#include "cli/views/view_set.h"
#include "validate/collective_dataset.h"

#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

const ViewSet<CollectiveScorecard>& collective_score_views();

struct CollectiveBaselineLine {
  std::string category, measure;  // measure: "holdout_mape_1MB" or "holdout_mape_all"
  double recorded = 0, now = 0;
  bool regressed() const { return now > recorded + 1e-9; }
};
void print_collective_baseline_check(std::ostream& os, const std::string& path,
                                     const std::vector<CollectiveBaselineLine>& lines);

}  // namespace ridgeline
