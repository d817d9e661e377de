// A prediction interval: plain data a prediction (a kernel's or a whole step's) carries beside its
// time. validate/intervals.h computes it from the measured error of the prediction's category;
// the model itself never fills it, and views only print it.
#pragma once

#include <string>

namespace ridgeline {

// The range a predicted time is expected to fall in: p10-p90 of measured / predicted of its
// category on held-out-style data (validate/intervals.h fills it; the model leaves it empty), and
// what it rests on. An 80% interval: about one measurement in ten falls below, one above.
struct PredictionInterval {
  double p10_us = 0, p90_us = 0;
  std::string category;     // "gemm", "pytorch-eager/decode-graph", "kernels combined"
  std::string calibration;  // "own", "architecture" or "none": the level the quantiles came from
  std::string basis;        // for people: where the quantiles came from
  int count = 0;            // fit measurements behind them
};

}  // namespace ridgeline
