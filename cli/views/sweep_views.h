// A sweep's results as one value that every view reads: the points in order, each with what it
// asked (its inputs) and either its prediction's summary or the error that point got. Views
// print a table, JSON or CSV of the same numbers and compute nothing. The sweep streams (a
// 10^6-point sweep holds no rows): each view is a head, read from SweepResult without its points,
// and one row a point, which cli/row_output.h lays out (the print_* functions are the same
// pieces over a finished result).
#pragma once

#include "model/prediction.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

struct SweepPoint {
  RunConfig run;
  std::string weights;  // as the flag named it (bf16, fp8, int4, ...)
  bool ok = false;
  std::string error;  // when !ok: the message, naming the flag at fault
  double total_us = 0, tokens_per_s = 0;
  MemoryFootprint memory;
};

struct SweepResult {
  std::string model, model_source, gpu, gpu_file, profile;
  std::vector<std::string> what_ifs;
  RunConfig base;  // the flags every point shares
  std::vector<SweepPoint> points;
  size_t failed() const;
};

// The pieces, a head (r.points unused) and one row a point.
std::string sweep_table_head(const SweepResult& r);
std::string sweep_table_row(const SweepPoint& p);
std::string sweep_csv_head(const SweepResult& r);
std::string sweep_csv_row(const SweepPoint& p);
nlohmann::ordered_json sweep_json_head(const SweepResult& r);  // the rows go under "points"
nlohmann::ordered_json sweep_json_point(const SweepResult& r, const SweepPoint& p);

void print_sweep_table(std::ostream& os, const SweepResult& r);
void print_sweep_json(std::ostream& os, const SweepResult& r);
void print_sweep_csv(std::ostream& os, const SweepResult& r);

}  // namespace ridgeline
