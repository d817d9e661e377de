// A sweep's results as one value that every view reads: the points in order, each with what it
// asked (its inputs) and either its prediction's summary or the error that point got. Views
// print a table, JSON or CSV of the same numbers and compute nothing.
#pragma once

#include "model/prediction.h"

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

void print_sweep_table(std::ostream& os, const SweepResult& r);
void print_sweep_json(std::ostream& os, const SweepResult& r);
void print_sweep_csv(std::ostream& os, const SweepResult& r);

}  // namespace ridgeline
