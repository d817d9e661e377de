// Views of a validation scorecard (validate/scorecard.h).
#pragma once

#include "hardware/gpu_spec.h"
#include "validate/baseline.h"
#include "validate/scorecard.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

void print_scorecard(std::ostream& os, const Scorecard& sc, int worst);
nlohmann::json scorecard_json(const Scorecard& sc);
// The README's accuracy table (scripts/accuracy_table.sh).
void print_scorecard_markdown(std::ostream& os, const Scorecard& sc);
// `validate --check`: one line per category against the baseline at `path`, then what to do
// when any regressed.
void print_baseline_check(std::ostream& os, const std::string& path, const GpuSpec& gpu,
                          const std::vector<BaselineCheck>& checks);

}  // namespace ridgeline
