// Strategy search (`ridgeline search`): every parallel strategy of a model on N GPUs of a
// cluster, predicted and ranked by iteration time, as a library (the CLI only wires it).
//
// Enumeration (enumerate_strategies): TP over the divisors of N up to a node (or --max-tp), CP
// over the divisors of N / TP up to --max-cp (1 unless asked: it is for long sequences), PP over
// the divisors of N / (TP CP) up to --max-pp, DP = the rest; for each PP > 1 the 1F1B schedule and
// the interleaved one with every VP > 1 dividing layers / PP (up to --max-vp); EP over the
// divisors of DP (MoE models only); SP off and, with TP > 1, on; ZeRO 0, and 1-3 when DP > 1 (with
// one data-parallel rank ZeRO shards nothing: the same strategy as ZeRO 0); micro-batches 1, 2, 4
// ... up to --max-microbatch; recompute none, selective, full. Each candidate goes through
// check_parallel_config: those it refuses are counted by the flag it names (an expected result,
// not an error); the others are "valid".
//
// Ranking (search_strategies): each valid strategy's memory per GPU first (parallel_memory, a
// closed form): one that does not fit is a row with its reason and is not timed. The rest are
// predicted (predict_parallel) and sorted by iteration time (a tie rounding to the same microsecond
// goes to the one needing less memory per GPU, then to the enumeration order, so the order is
// deterministic). Each ranked row says why it loses to the one above it: the parts of the two
// predictions (compute, pipeline bubble, exposed communication per group, host) are compared and
// the largest difference named, with what in the strategies differs (e.g. "bubble +812 us (pp 32 vs
// 16)", "recompute: compute +1.9 ms (full vs none)").
#pragma once

#include "model/parallel_predict.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ridgeline {

struct SearchSpace {
  int64_t gpus = 1, global_batch = 1;
  int64_t max_tp = 0;  // 0: a node's GPUs
  int64_t max_pp = 0;  // 0: no limit
  int64_t max_vp = 0;  // 0: no limit
  int64_t max_cp = 1;
  int64_t max_ep = 0;  // 0: no limit
  int64_t max_microbatch = 8;
  std::vector<int> zero = {0, 1, 2, 3};
  std::vector<Recompute> recompute = {Recompute::None, Recompute::Selective, Recompute::Full};
  std::vector<PipelineSchedule> schedules = {PipelineSchedule::OneFOneB,
                                             PipelineSchedule::Interleaved};
  bool sp_off = true, sp_on = true;  // which SP settings to try when TP > 1
};

struct Enumeration {
  std::vector<ParallelConfig> valid;       // in enumeration order
  int64_t candidates = 0;                  // valid + refused
  std::map<std::string, int64_t> refused;  // by the flag check_parallel_config named
};

// The run as strategy `p` sets it: training's micro-batch is the graph's batch, and the
// strategy's recompute setting is the run's.
RunConfig strategy_run(const RunConfig& run, const ParallelConfig& p);

// Throws InputError for a space that cannot hold a strategy (gpus or global batch < 1, a limit
// < 0, an empty choice list).
Enumeration enumerate_strategies(const ModelConfig& model, const RunConfig& run,
                                 const SearchSpace& space, const ClusterLimits& cluster);

// The parts of an iteration two predictions are compared by.
// Memory: the two take the same time (rounding to the same microsecond), the slower-ranked one
// needs more memory.
enum class TimePart { None, Compute, Bubble, ExposedComm, Host, Memory };
// "", "compute", "bubble", "exposed comm", "host", "memory"
const char* time_part_name(TimePart p);

// One setting in which two strategies differ: {"pp", "32", "16"}.
struct SettingDiff {
  std::string key, slower, faster;
};

// Why one strategy loses to a faster one: the part whose time grew the most, by how much, and
// the settings that differ (those that move that part first).
struct LossReason {
  TimePart part = TimePart::None;
  CommGroup group = CommGroup::None;  // ExposedComm: which group
  double delta_us = 0;                // that part's time, slower minus faster
  double memory_bytes = 0;            // Memory: per GPU, this one minus the faster one
  std::vector<SettingDiff> differs;
};

struct StrategyRow {
  ParallelConfig parallel;
  ParallelMemory memory;
  bool timed = false;  // false: does not fit (memory.reason), not predicted
  ParallelPrediction prediction;
  // Ranked rows after the first: how much slower than the row above, and why.
  double behind_us = 0;
  LossReason loses_because;
};

struct SearchResult {
  std::string model, cluster, gpu;
  SearchSpace space;
  int64_t candidates = 0, valid = 0, not_fitting = 0;
  std::map<std::string, int64_t> refused;
  std::vector<StrategyRow> ranked;            // fitting strategies, fastest first (all of them)
  std::vector<StrategyRow> not_fitting_rows;  // in enumeration order
  bool complete = true;                       // false: stopped by SearchProgress::stop
};

// Called every `every` strategies priced: (done, total).
// `stop` (e.g. set on SIGINT) ends the search between strategies: SearchResult::complete false.
struct SearchProgress {
  int64_t every = 0;  // 0: never
  std::function<void(int64_t, int64_t)> report;
  const std::atomic<bool>* stop = nullptr;
};

// Prices a strategy: predict_parallel unless a test passes its own (called from `jobs` threads
// at once: it must be safe to call concurrently). The strategies are priced on `jobs` threads
// (common/parallel_map.h); the result is the same for every `jobs`.
using StrategyPredictor = std::function<ParallelPrediction(const ParallelConfig&)>;

SearchResult search_strategies(const ModelConfig& model, const RunConfig& run,
                               const SearchSpace& space, const ClusterSpec& cluster,
                               const GpuSpec& gpu, const SearchProgress& progress = {},
                               const StrategyPredictor& predictor = {}, int jobs = 1);

// Sorts fitting rows by iteration time, a tie (rounding to the same microsecond) going to the one
// that needs less memory per GPU, then to enumeration order; fills each row's behind_us and
// loses_because against the row above.
void rank_strategies(std::vector<StrategyRow>& rows);

// Why `slower` loses to `faster`: the largest difference of their parts (compute, bubble =
// bubble_fraction x the busiest stage's work, exposed communication per group, host).
LossReason why_slower(const ParallelPrediction& slower, const ParallelPrediction& faster);
// The time of `part` (and `group`) in a prediction, as why_slower compares it.
double part_us(const ParallelPrediction& p, TimePart part, CommGroup group);

// "tp=8,pp=16,vp=1,dp=8,cp=1,ep=1,sp=1,zero=1,mb=1,recompute=none,schedule=1f1b"
std::string strategy_text(const ParallelConfig& p);
// Reads a --strategy text: comma-separated key=value over tp, pp, vp, dp, cp, ep, sp, zero, mb
// (or microbatch), recompute, schedule; dp defaults to gpus / (tp pp cp), the rest to 1 / off /
// none / 1f1b (interleaved when vp > 1). Errors name `flag` and the bad item.
ParallelConfig parse_strategy(const std::string& text, int64_t gpus, int64_t global_batch,
                              const std::string& flag);

}  // namespace ridgeline
