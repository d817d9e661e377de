// The published training runs (validate/data/published-training-runs.json) loaded once for the
// tests that look rows up by id: a scored case, or the reason a row is skipped.
#pragma once

#include "validate/training_runs.h"

#include <string>

namespace ridgeline::test {

inline const TrainingRunSet& training_runs() {
  static const TrainingRunSet s =
      load_training_runs(RIDGELINE_SOURCE_DIR "/validate/data/published-training-runs.json");
  return s;
}

inline const TrainingRunCase* find_training_case(const std::string& id) {
  for (const auto& c : training_runs().cases)
    if (c.id == id) return &c;
  return nullptr;
}

inline std::string training_skip_reason(const std::string& id) {
  for (const auto& s : training_runs().skipped)
    if (s.id == id) return s.reason;
  return "";
}

}  // namespace ridgeline::test
