// Prediction intervals of the outputs made of many predictions: a step on a cluster, a sweep
// point, a serving run and a capacity row (validate/intervals.h gives kernels, collectives and
// one-GPU steps theirs). Nothing here is fitted again: every range comes from the same interval
// table (validate/intervals.json, FIT split only), combined or propagated as follows.
//
// A step on a cluster (predict --cluster): as a one-GPU step without measured steps of its
// category combines its kernels (combine_kernels), with the collectives as one more category.
// The parts are the busiest stage's compute-stream time, split over kernel categories in the
// proportions of the per-rank graph's kernels (each section x its repeat), and the exposed
// communication (only the part nothing hides adds to the iteration) as category "collective";
// the interval is of total_us (the pipeline bubble moves with the work that makes it).
// Categories move independently of each other, a category's kernels together.
//
// Both fall back to the kernel basis below only where the table has no output-level quantiles
// (intervals.h): cluster_step for a cluster step; serving_ttft, serving_tpot and
// serving_output_tokens_per_s (all three) for a serving run, whose ratios are then those
// quantiles (TTFT; TPOT and ITL; tokens/s, its inverse for E2E and queueing as a time ratio).
// The kernel basis holds the kernels' error only, which measured coverage showed too narrow.
//
// A serving run: the step model's interval as ratios (p10 / predicted, p90 / predicted) of a
// representative prefill step (one request of the workload's mean input) and decode step (the
// run's mean batch over the mean cache length), each a one-GPU step_interval. Propagation
// (propagate_time, propagate_rate) assumes every step of a run is off by the same ratio r (steps
// share their kernels, and kernels of a category move together): latencies scale by r (TTFT by
// the prefill ratio, TPOT and ITL by the decode ratio, E2E and queueing by the envelope of both),
// throughput by 1 / r (the envelope). The queue's own response to slower steps is not modelled:
// under load the true spread of TTFT and E2E is wider, and an open-loop run below saturation keeps
// its arrival rate whatever the step time (its throughput range is then an upper bound).
#pragma once

#include "hardware/cluster_spec.h"
#include "model/parallel_predict.h"
#include "validate/intervals.h"

#include <string>

namespace ridgeline {

// A whole output's interval from its output-level quantiles: [predicted * p10, predicted * p90],
// calibration "whole-output"; `kind` becomes the category.
PredictionInterval output_interval(const OutputQuantiles& o, const std::string& kind,
                                   double predicted);

// The interval of a step on a cluster predicted as `p`: the table's cluster_step quantiles
// (output_interval) where it has them, else kernel_cluster_interval.
PredictionInterval cluster_interval(const IntervalTable& t, const GpuSpec& gpu,
                                    const ClusterSpec& cluster, const ModelConfig& model,
                                    const RunConfig& run, const ParallelConfig& parallel,
                                    const ParallelPrediction& p);
// Its kernels and exposed collectives combined (see the header).
PredictionInterval kernel_cluster_interval(const IntervalTable& t, const GpuSpec& gpu,
                                           const ClusterSpec& cluster, const ModelConfig& model,
                                           const RunConfig& run, const ParallelConfig& parallel,
                                           const ParallelPrediction& p);

// An interval as ratios of the predicted value: [low, high] = [p10 / t, p90 / t].
struct RatioRange {
  double low = 1, high = 1;
};
RatioRange ratio_range(const PredictionInterval& i, double predicted_us);
// The envelope: the lower of the lows, the higher of the highs.
RatioRange envelope(const RatioRange& a, const RatioRange& b);

// A value's 80% range.
struct ValueRange {
  double p10 = 0, p90 = 0;
};
// A time scaled by every step's ratio: [v * low, v * high].
ValueRange propagate_time(double value, const RatioRange& r);
// A rate (throughput) when every step takes r times as long: [v / high, v / low].
ValueRange propagate_rate(double value, const RatioRange& r);

// The step model's ratios for a serving run (see the header).
struct ServingIntervals {
  PredictionInterval prefill, decode;  // of the representative steps
  double prefill_us = 0, decode_us = 0;
  RatioRange prefill_ratio, decode_ratio, any_ratio;  // of the steps; any: the envelope
  // The outputs' time ratios: TTFT's, TPOT's and ITL's, the rest's (throughput as 1 / ratio, E2E,
  // queueing): the output-level quantiles, else prefill_ratio, decode_ratio and any_ratio.
  RatioRange ttft_ratio, tpot_ratio, rest_ratio;
  std::string basis;  // for people
};
// `run`: the serving run config (precision, runtime, launch); the steps: one prefill of
// `prompt_tokens`, one decode of `decode_batch` sequences over `kv_len` cached tokens.
ServingIntervals serving_intervals(const IntervalTable& t, const GpuSpec& gpu,
                                   const ModelConfig& model, const RunConfig& run,
                                   int64_t prompt_tokens, int64_t decode_batch, int64_t kv_len);

}  // namespace ridgeline
