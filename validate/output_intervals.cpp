// Intervals of cluster steps and serving runs; the method is in output_intervals.h.
#include "validate/output_intervals.h"

#include "common/errors.h"
#include "model/node_cost.h"
#include "model/prediction.h"
#include "workloads/graph_builder.h"
#include "workloads/sharding.h"

#include <algorithm>
#include <map>

namespace ridgeline {

namespace {

// Compute-stream kernel time of the per-rank graph by category, each section x its repeat.
std::map<std::string, double> kernel_mix(const OpGraph& graph, const GpuSpec& gpu,
                                         const ClusterSpec& cluster) {
  std::map<std::string, double> mix;
  GemmMemo memo;
  for (const GraphSection& s : graph.sections) {
    std::vector<OpCost> costs = cost_section(s, gpu, memo, &cluster);
    for (size_t v = 0; v < costs.size(); ++v) {
      const GraphNode& n = s.dag()[(OpVertex)v];
      if (n.stream != Stream::Compute) continue;
      mix[kernel_category(n.op)] += (double)s.repeat * costs[v].time_us;
    }
  }
  return mix;
}

std::string levels_text(const std::vector<std::string>& levels) {
  std::string out;
  for (const auto& l : levels)
    if (out.find(l) == std::string::npos) out += (out.empty() ? "" : "+") + l;
  return out;
}

std::string files_text(const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files) out += (out.empty() ? "" : ", ") + f;
  return out;
}

}  // namespace

PredictionInterval output_interval(const OutputQuantiles& o, const std::string& kind,
                                   double predicted) {
  return {predicted * o.q.p10,
          predicted * o.q.p90,
          kind,
          "whole-output",
          "split-conformal 80% of measured / predicted over " + std::to_string(o.q.count) +
              " fit rows of " + files_text(o.data),
          o.q.count};
}

PredictionInterval cluster_interval(const IntervalTable& t, const GpuSpec& gpu,
                                    const ClusterSpec& cluster, const ModelConfig& model,
                                    const RunConfig& run, const ParallelConfig& parallel,
                                    const ParallelPrediction& p) {
  if (auto o = output_quantiles(t, kClusterStep)) {
    PredictionInterval out = output_interval(*o, "cluster step", p.total_us);
    out.basis += " (iteration time of published training runs)";
    return out;
  }
  return kernel_cluster_interval(t, gpu, cluster, model, run, parallel, p);
}

PredictionInterval kernel_cluster_interval(const IntervalTable& t, const GpuSpec& gpu,
                                           const ClusterSpec& cluster, const ModelConfig& model,
                                           const RunConfig& run, const ParallelConfig& parallel,
                                           const ParallelPrediction& p) {
  auto per_node = (int64_t)cluster.gpus_per_node.value;
  ClusterLimits limits{cluster.name, per_node, per_node * (int64_t)cluster.max_nodes.value};
  OpGraph graph = build_rank_graph(model, run, parallel, limits);
  std::map<std::string, double> mix = kernel_mix(graph, gpu, cluster);
  double mix_us = 0;
  for (const auto& [cat, us] : mix) mix_us += us;
  const double compute_us = p.time_by_stream_us[(int)Stream::Compute];
  std::vector<IntervalPart> parts;
  std::vector<std::string> levels;
  for (const auto& [cat, us] : mix) {
    auto hit = find_quantiles(t, t.kernels, gpu, cat, true);
    if (!hit)
      throw InputError(t.file + ": /kernels: no interval for " + cat + " or all at any level");
    parts.push_back({mix_us > 0 ? compute_us * us / mix_us : 0, hit->q});
    levels.push_back(hit->level);
  }
  double exposed_us = 0;
  for (double e : p.exposed_comm_us) exposed_us += e;
  int collectives = 0;
  if (exposed_us > 0) {
    GpuSpec any;  // collectives: the none level (every measured cluster pooled)
    auto hit = find_quantiles(t, t.kernels, any, "collective", false);
    if (!hit) throw InputError(t.file + ": /kernels/none/any/collective: no interval");
    parts.push_back({exposed_us, hit->q});
    levels.push_back(hit->level);
    collectives = 1;
  }
  PredictionInterval out = combine_kernels(parts, p.total_us);
  out.category = "cluster step combined";
  out.calibration = levels_text(levels);
  out.basis = std::to_string(mix.size()) +
              " kernel categories (busiest stage's compute time, split as the per-rank graph's "
              "kernels)" +
              (collectives ? " and the exposed collectives" : "") +
              " combined (correlated within, independent across)";
  return out;
}

RatioRange ratio_range(const PredictionInterval& i, double predicted_us) {
  if (!(predicted_us > 0)) return {};
  return {i.p10_us / predicted_us, i.p90_us / predicted_us};
}

RatioRange envelope(const RatioRange& a, const RatioRange& b) {
  return {std::min(a.low, b.low), std::max(a.high, b.high)};
}

ValueRange propagate_time(double value, const RatioRange& r) {
  return {value * r.low, value * r.high};
}

ValueRange propagate_rate(double value, const RatioRange& r) {
  if (!(r.low > 0) || !(r.high > 0))
    throw InternalError("propagate_rate: a ratio range must be positive");
  return {value / r.high, value / r.low};
}

ServingIntervals serving_intervals(const IntervalTable& t, const GpuSpec& gpu,
                                   const ModelConfig& model, const RunConfig& run,
                                   int64_t prompt_tokens, int64_t decode_batch, int64_t kv_len) {
  const bool moe = model.moe.experts > 0;
  const RunConfig defaults;
  auto step = [&](Phase phase, int64_t batch, int64_t seq, int64_t kv, double& us) {
    RunConfig r = run;
    r.phase = phase, r.batch = std::max<int64_t>(1, batch);
    r.seq = phase == Phase::Prefill ? std::max<int64_t>(1, seq) : defaults.seq;
    r.kv_len = phase == Phase::Decode ? std::max<int64_t>(1, kv) : defaults.kv_len;
    OpGraph g = build_graph(model, r);
    Prediction p = predict_workload(g, model, r, gpu);
    us = p.total_us;
    auto i = step_interval(t, gpu, g, p, moe);
    if (!i) throw InternalError("serving_intervals: no step interval");
    return *i;
  };
  ServingIntervals s;
  s.prefill = step(Phase::Prefill, 1, prompt_tokens, 1, s.prefill_us);
  s.decode = step(Phase::Decode, decode_batch, 1, kv_len, s.decode_us);
  s.prefill_ratio = ratio_range(s.prefill, s.prefill_us);
  s.decode_ratio = ratio_range(s.decode, s.decode_us);
  s.any_ratio = envelope(s.prefill_ratio, s.decode_ratio);
  s.ttft_ratio = s.prefill_ratio, s.tpot_ratio = s.decode_ratio, s.rest_ratio = s.any_ratio;
  auto ttft = output_quantiles(t, kServingTtft), tpot = output_quantiles(t, kServingTpot),
       rate = output_quantiles(t, kServingTokensPerS);
  if (ttft && tpot && rate) {
    // measured / predicted of the metric itself; a rate's ratio r is a time ratio of 1 / r
    s.ttft_ratio = {ttft->q.p10, ttft->q.p90};
    s.tpot_ratio = {tpot->q.p10, tpot->q.p90};
    s.rest_ratio = {1 / rate->q.p90, 1 / rate->q.p10};
    s.basis = "split-conformal 80% of measured / predicted over the fit rows of " +
              files_text(rate->data) + ": TTFT (" + std::to_string(ttft->q.count) +
              " rows), TPOT and ITL (" + std::to_string(tpot->q.count) +
              " rows), output tokens/s (" + std::to_string(rate->q.count) +
              " rows; its inverse for the other throughputs, E2E and queueing)";
    return s;
  }
  s.basis = "every step off by its step model's ratio: prefill step (batch 1, " +
            std::to_string(prompt_tokens) + " tokens; " + s.prefill.category +
            ") for TTFT, decode step (batch " + std::to_string(decode_batch) + ", kv " +
            std::to_string(kv_len) + "; " + s.decode.category +
            ") for TPOT and ITL, their envelope for E2E, queueing and throughput (1 / ratio); "
            "the queue's response to slower steps is not modelled";
  return s;
}

}  // namespace ridgeline
