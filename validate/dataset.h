// Measured data sets: one JSON file per GPU and date (validate/data/), written by
// validate/measure/measure_ops.py on a real GPU. Each record is an op in the `ridgeline op`
// contract plus its measured time and a fixed split ("fit" or "holdout"), chosen by a hash of
// the id when the data was taken. Fitting may look only at "fit"; reports quote "holdout".
#pragma once

#include "workloads/op.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ridgeline {

struct Measurement {
  Op op;
  std::string split;   // "fit" or "holdout"
  double measured_us;  // median device time per kernel
  std::string impl;    // which implementation was timed, when there were two
};

struct Dataset {
  std::string file;
  nlohmann::json meta;               // device, driver, clocks, versions, method, date
  std::vector<Measurement> records;  // usable records
  std::vector<std::string> skipped;  // "id: why" for records left out (errors, multi-kernel ops)
};

Dataset load_dataset(const std::string& path);
Dataset parse_dataset(const nlohmann::json& doc, const std::string& label);

}  // namespace ridgeline
