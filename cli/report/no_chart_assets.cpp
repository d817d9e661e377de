// Built without npm (charts.cmake): no chart libraries, and `ridgeline report` says so.
#include "cli/report/chart_assets.h"

namespace ridgeline {

bool charts_built() {
  return false;
}

const ChartAssets& chart_assets() {
  static const ChartAssets none{};
  return none;
}

}  // namespace ridgeline
