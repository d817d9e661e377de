// The page `ridgeline report KIND` writes, from KIND's own --format json document: shared with
// `validate --plot`, which writes the `report validate` page of its scorecard (so the plot is
// the same Vega-Lite charts, not a second drawing of them).
#pragma once

#include "cli/views/report_html.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ridgeline {

// The run checked not empty ("report validate: the scorecard has no case; nothing to report"),
// titled after its model (or cluster), with the held-out accuracy of the categories involved.
// `roofs`: roofs_json() of the run's GPU, or null.
HtmlReport report_page(const std::string& kind, const nlohmann::json& run,
                       const nlohmann::json& roofs, const std::string& command);

}  // namespace ridgeline
