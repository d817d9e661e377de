// The HTML view of `ridgeline report`: one self-contained page (the chart libraries, the page
// script and the run's data inlined; nothing is fetched) that draws a run's charts with
// Vega-Lite. The page's script (cli/report/report.js) turns the data into chart specs; this
// view only writes the page, and computes nothing.
#pragma once

#include "hardware/gpu_spec.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>

namespace ridgeline {

struct HtmlReport {
  std::string kind;         // predict, sweep, validate, search, serve
  std::string title;        // the page's heading
  std::string command;      // the command line it came from
  nlohmann::json run;       // the command's own --format json document
  nlohmann::json roofs;     // roofs_json() of the run's GPU (null: none)
  nlohmann::json accuracy;  // accuracy_rows(): the held-out error of the categories involved
};

// The GPU's roofs for the roofline chart: HBM and L2 bandwidth, dense peak per math unit.
nlohmann::json roofs_json(const GpuSpec& gpu);
void print_report_html(std::ostream& os, const HtmlReport& r);

}  // namespace ridgeline
