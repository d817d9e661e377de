// Views of a validation scorecard (validate/scorecard.h).
#pragma once

#include "validate/scorecard.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace ridgeline {

void print_scorecard(std::ostream& os, const Scorecard& sc, int worst);
nlohmann::json scorecard_json(const Scorecard& sc);
// The README's accuracy table (scripts/accuracy_table.sh).
void print_scorecard_markdown(std::ostream& os, const Scorecard& sc);
// Predicted against measured (log-log) and error against measured time, as one SVG (--plot).
void print_scorecard_svg(std::ostream& os, const Scorecard& sc);

}  // namespace ridgeline
