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
  double spread = 1;   // p90 / p10 of the samples, where the file gives both
  // The scorecard family when the record times one implementation of several
  // ("attention/flash2", "rmsnorm/aten"): records of validate/measure's hf_ops ("kind": "op");
  // empty: the op's family.
  std::string family;
};

struct Dataset {
  std::string file;
  nlohmann::json meta;               // device, driver, clocks, versions, method, date
  std::vector<Measurement> records;  // usable records
  std::vector<std::string> skipped;  // "id: why" for records left out (errors, multi-kernel ops)
};

Dataset load_dataset(const std::string& path);

// Several files as one data set: records and skipped entries in file order, names joined.
template <class D, class Load>
D load_merged(const std::vector<std::string>& paths, Load load_one) {
  D all = load_one(paths.at(0));
  for (size_t i = 1; i < paths.size(); ++i) {
    D more = load_one(paths[i]);
    all.file += " + " + more.file;
    all.records.insert(all.records.end(), more.records.begin(), more.records.end());
    all.skipped.insert(all.skipped.end(), more.skipped.begin(), more.skipped.end());
  }
  return all;
}
inline Dataset load_datasets(const std::vector<std::string>& paths) {
  return load_merged<Dataset>(paths, load_dataset);
}
Dataset parse_dataset(const nlohmann::json& doc, const std::string& label);

}  // namespace ridgeline
