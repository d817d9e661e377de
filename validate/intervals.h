// Prediction intervals: how far a prediction may be off, from how far predictions of its category
// were off on measured data. An interval table (validate/intervals.json, written by `ridgeline
// calibrate intervals` from the FIT split only) holds, per calibration level, GPU (or
// architecture) and category, the 10th, 50th and 90th percentiles of measured / predicted (whole
// steps: at split-conformal ranks, conformal_quantiles).
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
// has too few measured steps (kMinConformalSteps) combines its kernels' intervals
// (combine_kernels): kernels of a category move together (their errors share a cause: one
// efficiency parameter), categories move independently, so deviations from the median add
// linearly within a category and in quadrature across categories.
//
// Outputs made of many predictions (a step on a cluster, a serving run's throughput, TTFT and
// TPOT) also get output-level quantiles (`outputs`): split-conformal ranks of measured / predicted
// of the whole output over the FIT rows of published measurements (training runs, serving runs),
// one entry per output kind with its data, split, row count and method. Where an output kind has
// one (at least min_count rows), its interval is [t * p10, t * p90] of that entry, replacing the
// kernel-combined range, which holds the kernels' error only (output_intervals.h).
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

// Split-conformal quantiles of n fit ratios: p10 the floor(0.1 (n + 1))-th smallest, p90 the
// ceil(0.9 (n + 1))-th (clamped to the first and last), p50 the median. For exchangeable rows a
// new row falls below p10 with probability at most 10%, above p90 at most 10% (at least 80%
// inside); with n < 9 the ranks clamp and the guarantee is lost (min_count keeps such entries out).
RatioQuantiles conformal_quantiles(std::vector<double> ratios);

// Output kinds with output-level quantiles.
inline constexpr const char* kClusterStep = "cluster_step";
inline constexpr const char* kServingTokensPerS = "serving_output_tokens_per_s";
inline constexpr const char* kServingTtft = "serving_ttft";
inline constexpr const char* kServingTpot = "serving_tpot";

// One output kind's quantiles and where they came from.
struct OutputQuantiles {
  RatioQuantiles q;               // of measured / predicted (count: fit rows)
  std::vector<std::string> data;  // the measurement files
  std::string split = "fit";      // always fit
  std::string method;             // how the quantiles were taken (for people)
};

struct IntervalTable {
  std::string file;
  nlohmann::json provenance;  // command, split, date, baselines and data files
  int min_count = 1;          // fewer fit measurements than this: the entry is not used
  IntervalEntries kernels, steps;
  std::map<std::string, OutputQuantiles> outputs;  // by output kind (kClusterStep, ...)
};

// An output kind's quantiles; nullopt where the table has none or fewer rows than min_count.
std::optional<OutputQuantiles> output_quantiles(const IntervalTable& t, const std::string& kind);

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
// kernel_interval for many ops on one GPU (the op batch path): the lookup and its basis text are
// made once per category, not once per op. Not thread-safe: one memo a thread.
class KernelIntervalMemo {
 public:
  KernelIntervalMemo(const IntervalTable& t, const GpuSpec& gpu) : table_(t), gpu_(gpu) {}
  KernelIntervalMemo(const KernelIntervalMemo&) = delete;  // seen_ points into by_category_
  KernelIntervalMemo& operator=(const KernelIntervalMemo&) = delete;
  std::optional<PredictionInterval> interval(const Op& op, double time_us);
  // The same interval without copying its texts: the memo's own, valid until the next call for
  // the same category (null where there is none). Seen categories are found without building
  // their name (by op family, grouped GEMM and attention implementation).
  const PredictionInterval* interval_ref(const Op& op, double time_us);

 private:
  struct Entry {
    bool found = false;
    RatioQuantiles q;
    PredictionInterval shown;  // category, level, basis and count; bounds of the last call
  };
  Entry& entry(const Op& op);
  struct Seen {
    const char* family;  // op_family's static name
    int variant;         // 1: grouped GEMM, 2 + impl: a named attention kernel, else 0
    Entry* entry;
  };
  const IntervalTable& table_;
  const GpuSpec& gpu_;
  std::map<std::string, Entry, std::less<>> by_category_;
  std::vector<Seen> seen_;
};
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

// Fewest fit steps whose split-conformal ranks are both inside the sample: ceil(0.9 (n + 1)) <= n
// and floor(0.1 (n + 1)) >= 1 from n = 9. A step entry with fewer is never used (its p10 and p90
// would be the smallest and largest ratio: (n-1)/(n+1) inside, under 80%).
inline constexpr int kMinConformalSteps = 9;

// A step's entry: its category at each level (own, then wider); an entry needs min_count and
// kMinConformalSteps fit steps. None: combine the kernels.
std::optional<IntervalHit> find_step_quantiles(const IntervalTable& t, const GpuSpec& gpu,
                                               const std::string& category);

}  // namespace ridgeline
