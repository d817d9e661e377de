// Prediction intervals: how far a prediction may be off, from how far predictions of its category
// were off on measured data. An interval table (validate/intervals.json, written by `ridgeline
// calibrate intervals` from the FIT split only) holds, per calibration level, GPU (or
// architecture) and category, the 10th, 50th and 90th percentiles of measured / predicted.
// A prediction t of that category gets the 80% interval [t * p10, t * p90].
//
// Levels, narrowest first (GpuSpec::calibration says which a GPU is at):
//   own           the GPU predicted with its own profile, quantiles from its own measurements;
//   architecture  a GPU predicted with another GPU's profile of its architecture: quantiles of
//                 each measured GPU predicted with the other's profile (keyed by architecture);
//   none          no profile (datasheet and architecture defaults): quantiles of every measured
//                 GPU predicted with no profile (keyed "any").
// The widening for a GPU without its own calibration is thus measured, not assumed: it is what
// taking the calibration away did to the error on GPUs that have one. A lookup takes the GPU's own
// level and category first, then the same category at each wider level, then the category "all"
// at each level; the interval names what it used.
//
// Categories: kernels by op family (gemm, grouped_gemm, attention, rmsnorm, ..., collective);
// whole steps by "<runtime>/<phase>-<launch>" with "-moe" for MoE models. A step whose category
// has no measured steps combines its kernels' intervals (combine_kernels): kernels of a category
// move together (their errors share a cause: one efficiency parameter), categories move
// independently, so deviations from the median add linearly within a category and in quadrature
// across categories.
#pragma once

#include "hardware/gpu_spec.h"
#include "model/interval.h"
#include "model/prediction.h"
#include "workloads/op.h"
#include "workloads/op_graph.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

struct RatioQuantiles {
  int count = 0;
  double p10 = 1, p50 = 1, p90 = 1;  // of measured / predicted
};

// The quantiles of a set of measured / predicted ratios (linear interpolation between ranks).
RatioQuantiles ratio_quantiles(std::vector<double> ratios);

// Entries by level ("own", "architecture", "none"), then key (GPU, architecture or "any"), then
// category.
using IntervalEntries =
    std::map<std::string, std::map<std::string, std::map<std::string, RatioQuantiles>>>;

struct IntervalTable {
  std::string file;
  nlohmann::json provenance;  // command, split, date, baselines and data files
  int min_count = 1;          // fewer fit measurements than this: the entry is not used
  IntervalEntries kernels, steps;
};

IntervalTable parse_interval_table(const nlohmann::json& doc, const std::string& label);
IntervalTable load_interval_table(const std::string& path);
nlohmann::ordered_json interval_table_json(const IntervalTable& t);
// The table built into the binary (validate/intervals.json).
const IntervalTable& builtin_interval_table();

// The category of a kernel: its op family, "grouped_gemm" for a grouped (MoE expert) GEMM.
std::string kernel_category(const Op& op);
// The category of a step: "pytorch-eager/decode-graph", "pytorch-eager/prefill-graph-moe".
std::string step_category(const std::string& runtime, const std::string& phase_launch, bool moe);

// The interval of a kernel predicted at `time_us` on `gpu`; nullopt where the table has no entry
// at any level for its category or "all".
std::optional<PredictionInterval> kernel_interval(const IntervalTable& t, const GpuSpec& gpu,
                                                  const Op& op, double time_us);
// The interval of a collective predicted at `time_us`: the collective model has no per-GPU
// profile, so its entry is the none level's (every measured cluster pooled).
std::optional<PredictionInterval> collective_interval(const IntervalTable& t, double time_us);
// The interval of a whole step on one GPU: measured steps of its category where the table has
// them, else its kernels combined.
// `graph` is the one `p` was predicted from (the kernels' ops); `moe`: the model has experts.
std::optional<PredictionInterval> step_interval(const IntervalTable& t, const GpuSpec& gpu,
                                                const OpGraph& graph, const Prediction& p,
                                                bool moe);
// The kernels of a step combined (see the header): each part is (kernel time of the category,
// its quantiles); the interval is of total_us.
struct IntervalPart {
  double time_us = 0;
  RatioQuantiles q;
};
PredictionInterval combine_kernels(const std::vector<IntervalPart>& parts, double total_us);
PredictionInterval combined_step_interval(const IntervalTable& t, const GpuSpec& gpu,
                                          const OpGraph& graph, const Prediction& p);

// The quantiles a lookup uses, and where it found them: level, key and category.
struct IntervalHit {
  RatioQuantiles q;
  std::string level, key, category;
};
// `or_all`: fall back to the category "all" (kernels) when no level has the category (steps: no).
std::optional<IntervalHit> find_quantiles(const IntervalTable& t, const IntervalEntries& e,
                                          const GpuSpec& gpu, const std::string& category,
                                          bool or_all);

}  // namespace ridgeline
