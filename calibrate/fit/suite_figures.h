// Hardware figures measured by the CUDA microbenchmark suite (ridgeline-gpu-bench, calibrate/):
// the raw points of a measurements file turned into numbers the GPU description holds, each
// with "measured" provenance naming the device, date, benchmark and file. A calibrated profile
// stores them under "measured"; they apply to that GPU, and those that are properties of the
// architecture rather than of the card's size (latencies, launch costs, bytes per clock per SM)
// also to another GPU of the same architecture that has no profile of its own. What the suite
// measures but the model takes from a fit instead (HBM efficiency) or from the datasheet (FP32
// and tensor peaks) is reported as a cross-check beside the fitted or stated value.
//
//   SuiteFigures f = suite_figures(doc, gpu, "validate/data/h200-sxm-gpubench-2026-11-29.json");
//   memory/hbm/latency_ns    336.3   (was 348, published)   memory/latency/hbm
//   memory/l2/bandwidth_GBps 9346    (was 9800, published)  median of 9 working-set reads
#pragma once

#include "hardware/gpu_spec.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ridgeline {

struct MeasuredFigure {
  std::string path;  // field of the GPU description, e.g. "memory/hbm/latency_ns"
  double value = 0;
  double previous = 0;    // the description's value before (datasheet, published, ...)
  std::string benchmark;  // the suite point(s) it comes from
  std::string source;     // full provenance: "measured: <device>, <date>: ..."
  // A property of the architecture (latencies, launch machinery, bytes per clock per SM) that
  // another GPU of it shares, rather than of this card's size (bandwidth in GB/s).
  bool carries_over = false;
};

// A measured quantity set beside the model's value for it, which it does not replace.
struct CrossCheck {
  std::string what;      // "HBM copy bandwidth / datasheet"
  double measured = 0;   // in the unit below
  double model = 0;      // the model's or datasheet's figure for the same thing
  std::string unit;      // "fraction", "us", "TFLOP/s", ...
  std::string model_is;  // what `model` is: "fitted model/memory/hbm_efficiency", ...
};

struct SuiteFigures {
  std::vector<MeasuredFigure> figures;
  std::vector<std::string> warnings;  // broken-looking points: no profile without --force
};

bool is_suite_document(const nlohmann::json& doc);

// `doc` is a ridgeline-gpu-bench measurements file, `label` its path (named in provenance);
// each figure records the value it replaces in `gpu`.
SuiteFigures suite_figures(const nlohmann::json& doc, const GpuSpec& gpu, const std::string& label);

// The suite's points set beside `gpu`'s values for the same quantities (fitted values, after a
// fit). `doc` must be a suite file (suite_figures checks that).
std::vector<CrossCheck> suite_checks(const nlohmann::json& doc, const GpuSpec& gpu);

// Writes each figure's value and provenance into the spec.
void apply_figures(GpuSpec& gpu, const std::vector<MeasuredFigure>& figures);

}  // namespace ridgeline
