// Serving and capacity intervals as JSON and table lines; see serve_interval_views.h.
#include "cli/views/serve_interval_views.h"

#include "cli/views/views.h"

#include <cmath>

namespace ridgeline {

namespace {

using ojson = nlohmann::ordered_json;

ojson range_json(const ValueRange& v) {
  return {{"p10", v.p10}, {"p90", v.p90}};
}

ojson stat_range_json(const Stat& s, const RatioRange& r) {
  return {{"mean", range_json(propagate_time(s.mean, r))},
          {"p50", range_json(propagate_time(s.p50, r))},
          {"p90", range_json(propagate_time(s.p90, r))},
          {"p99", range_json(propagate_time(s.p99, r))}};
}

ojson ratio_json(const RatioRange& r, const PredictionInterval& i) {
  return {
      {"p10", r.low}, {"p90", r.high}, {"category", i.category}, {"calibration", i.calibration}};
}

std::string ms_range(const ValueRange& v) {
  return fixed(v.p10, 2) + "-" + fixed(v.p90, 2) + " ms";
}

}  // namespace

ojson serving_intervals_json(const ServingIntervals& s, const ServeReport& r) {
  ojson j;
  j["coverage"] = 0.8;
  j["basis"] = s.basis;
  j["step_ratio"] = {{"prefill", ratio_json(s.prefill_ratio, s.prefill)},
                     {"decode", ratio_json(s.decode_ratio, s.decode)}};
  const RatioRange& any = s.rest_ratio;
  j["throughput"] = {
      {"requests_per_s", range_json(propagate_rate(r.requests_per_s, any))},
      {"input_tokens_per_s", range_json(propagate_rate(r.input_tokens_per_s, any))},
      {"output_tokens_per_s", range_json(propagate_rate(r.output_tokens_per_s, any))},
      {"output_tokens_per_s_per_gpu",
       range_json(propagate_rate(r.output_tokens_per_s_per_gpu, any))}};
  j["ttft_ms"] = stat_range_json(r.ttft_ms, s.ttft_ratio);
  j["tpot_ms"] = stat_range_json(r.tpot_ms, s.tpot_ratio);
  j["itl_ms"] = stat_range_json(r.itl_ms, s.tpot_ratio);
  j["e2e_ms"] = stat_range_json(r.e2e_ms, any);
  j["queue_ms"] = stat_range_json(r.queue_ms, any);
  return j;
}

ojson capacity_intervals_json(const ServingIntervals& s, const CapacityResult& c,
                              double target_requests_per_s) {
  ojson j;
  j["coverage"] = 0.8;
  ValueRange rate = propagate_rate(c.max_requests_per_s, s.rest_ratio);
  j["max_requests_per_s_per_replica"] = range_json(rate);
  if (c.met && rate.p10 > 0) {
    // fewer replicas when the steps are faster (p10 of the time, p90 of the rate)
    auto replicas = [&](double per_replica) {
      return (int64_t)std::ceil(target_requests_per_s / per_replica - 1e-9);
    };
    j["replicas"] = {{"p10", replicas(rate.p90)}, {"p90", replicas(rate.p10)}};
  }
  j["at_max_rate"] = serving_intervals_json(s, c.at_max);
  return j;
}

std::string serving_intervals_lines(const ServingIntervals& s, const ServeReport& r) {
  ValueRange tok = propagate_rate(r.output_tokens_per_s, s.rest_ratio);
  return "80% intervals  TTFT p99 " + ms_range(propagate_time(r.ttft_ms.p99, s.ttft_ratio)) +
         ", TPOT p99 " + ms_range(propagate_time(r.tpot_ms.p99, s.tpot_ratio)) +
         ", output tokens/s " + fixed(tok.p10, 0) + "-" + fixed(tok.p90, 0) + "\n  (" + s.basis +
         ")\n";
}

std::string no_interval_note(const std::string& precision) {
  if (precision != "nvfp4") return "";
  return "none for nvfp4: serve's intervals come from the BF16/FP8 serving rows and held far "
         "under 80% of the published NVFP4 rows (README, serving accuracy)";
}

}  // namespace ridgeline
