// Views of the published-training-runs scorecard (validate/training_scorecard.h): a table with
// the held-out and fit MAPE of iteration time per category side by side, the skipped rows by
// reason and the worst held-out rows; JSON with the same numbers and every scored row; and the
// `validate --check` lines of a training-runs baseline.
#pragma once

#include "cli/views/view_set.h"
#include "validate/baseline.h"
#include "validate/training_scorecard.h"

#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

struct TrainingReport {
  const TrainingScorecard& scorecard;
  int worst = 10;  // held-out rows listed (table)
};
// "table", "json", "markdown" (the README's table).
const ViewSet<TrainingReport>& training_views();
void print_training_check(std::ostream& os, const std::string& path,
                          const std::vector<BaselineCheck>& checks);

}  // namespace ridgeline
