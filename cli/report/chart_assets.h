// The JavaScript and CSS that `ridgeline report` inlines into its page: the chart libraries
// (vendored from npm at build time, charts.cmake) and the page's own script and style.
// Built without npm, charts_built() is false and the strings are empty.
#pragma once

#include <string_view>

namespace ridgeline {

struct ChartAssets {
  std::string_view vega, vega_lite, vega_embed;  // minified libraries
  std::string_view page_js, page_css;            // cli/report/report.js, report.css
};

bool charts_built();
const ChartAssets& chart_assets();

}  // namespace ridgeline
