// Views: each prints finished results and computes nothing of the model (llvm-mca's View idea).
// Text, JSON and CSV of one result come from the same numbers (op_result_json).
#pragma once

#include "cli/op_runner.h"
#include "hardware/gpu_spec.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <vector>

namespace ridgeline {

nlohmann::ordered_json op_result_json(const OpResult& r);
void print_op_jsonl(std::ostream& os, const std::vector<OpResult>& results);
void print_op_json(std::ostream& os, const GpuSpec& gpu, const std::vector<OpResult>& results);
void print_op_csv(std::ostream& os, const std::vector<OpResult>& results);
void print_op_table(std::ostream& os, const GpuSpec& gpu, const std::vector<OpResult>& results);

// Whether a GPU preset is calibrated: by its own profile, by the profile of another GPU of its
// architecture (profile_gpu names which), or not at all (kind "none").
struct GpuCalibration {
  std::string kind;  // "own", "architecture" or "none"
  std::string profile_gpu;
  std::string profile_file;
};
void print_gpu_list(std::ostream& os, const std::vector<GpuSpec>& gpus,
                    const std::vector<GpuCalibration>& calibrations);
nlohmann::ordered_json gpu_list_json(const std::vector<GpuSpec>& gpus,
                                     const std::vector<GpuCalibration>& calibrations);
void print_gpu_show(std::ostream& os, const GpuSpec& gpu);
nlohmann::json gpu_json(const GpuSpec& gpu);

// "1.23 ms", "45.6 us"; "12.3 GB", "456 KB": short human figures for tables.
std::string human_us(double us);
std::string human_bytes(double bytes);
std::string fixed(double x, int decimals);
// The shortest text that reads back as exactly x (for CSV and other machine outputs).
std::string exact(double x);

}  // namespace ridgeline
