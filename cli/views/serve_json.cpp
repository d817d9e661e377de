// JSON and CSV views of a serving run and of a capacity search. Key names carry their units.
#include "cli/views/serve_views.h"

#include "cli/views/serve_interval_views.h"
#include "serve/metrics_stream.h"

#include <nlohmann/json.hpp>

namespace ridgeline {

namespace {

using ojson = nlohmann::ordered_json;

ojson stat_json(const Stat& s) {
  return {{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}};
}

ojson subject_json(const ServeSubject& s) {
  return {{"gpu", s.gpu},
          {"model", s.model},
          {"engine", s.engine},
          {"engine_file", s.engine_file},
          {"precision", s.precision},
          {"arrivals", s.arrivals},
          {"workload", s.workload},
          {"seed", s.seed}};
}

ojson report_json(const ServeReport& r) {
  ojson j;
  j["request_count"] = r.requests;
  if (r.warmup_requests > 0) j["warmup_requests"] = r.warmup_requests;
  j["duration_s"] = r.duration_s;
  j["throughput"] = {{"requests_per_s", r.requests_per_s},
                     {"input_tokens_per_s", r.input_tokens_per_s},
                     {"output_tokens_per_s", r.output_tokens_per_s},
                     {"output_tokens_per_s_per_gpu", r.output_tokens_per_s_per_gpu}};
  j["ttft_ms"] = stat_json(r.ttft_ms);
  j["tpot_ms"] = stat_json(r.tpot_ms);
  j["itl_ms"] = stat_json(r.itl_ms);
  j["e2e_ms"] = stat_json(r.e2e_ms);
  j["queue_ms"] = stat_json(r.queue_ms);
  if (!r.percentiles_exact)
    j["percentiles"] = {{"method", "histogram"},
                        {"relative_error", kRelativeError},
                        {"exact_up_to_requests", kExactRequests},
                        {"note", percentile_note(r)}};
  j["preemptions"] = r.preemptions;
  j["steps"] = r.steps;
  j["kv_usage"] = {{"blocks", r.kv_blocks},
                   {"block_size_tokens", r.block_size_tokens},
                   {"mean_fraction", r.kv_used_mean},
                   {"max_fraction", r.kv_used_max}};
  if (!r.slo.empty()) {
    j["slo"] = {{"terms", describe(r.slo)},
                {"met", r.slo_met},
                {"failures", r.slo_failures},
                {"goodput_requests_per_s", r.goodput_requests_per_s}};
  }
  return j;
}

}  // namespace

void for_each_request(const ServeRun& run, const std::function<void(const RequestRecord&)>& f) {
  if (run.request_log) {
    run.request_log->for_each(f);
    return;
  }
  for (const RequestRecord& q : run.sim.requests) f(q);
}

std::string percentile_note(const ServeReport& r) {
  if (r.percentiles_exact) return "";
  char b[160];
  std::snprintf(b, sizeof b,
                "percentiles from a histogram, within %g%% of exact: %lld requests, more than the "
                "%lld kept exactly",
                100 * kRelativeError, (long long)r.requests, (long long)kExactRequests);
  return b;
}

void print_serve_json(std::ostream& os, const ServeSubject& s, const ServeRun& run,
                      const ServingIntervals* intervals) {
  ojson j = subject_json(s);
  const ServeReport& r = run.report;
  ojson rep = report_json(r);
  for (auto& [k, v] : rep.items()) j[k] = v;
  j["kv_cache"] = {{"blocks", run.kv.blocks},
                   {"bytes", run.kv.kv_bytes},
                   {"weights_bytes", run.kv.weights_bytes},
                   {"activation_peak_bytes", run.kv.activation_peak_bytes},
                   {"capacity_bytes", run.kv.capacity_bytes},
                   {"memory_fraction", run.kv.memory_fraction}};
  if (run.engine.limits_from_workload)
    j["engine_limits"] = {{"from", "trtllm_bench"},
                          {"max_batch_size", run.engine.max_num_seqs},
                          {"max_num_tokens", run.engine.max_num_batched_tokens}};
  if (run.disaggregated) {
    const DisaggStats& d = *run.disaggregated;
    j["disaggregated"] = {{"prefill_replicas", d.prefill_replicas},
                          {"decode_replicas", d.decode_replicas},
                          {"gpus_per_replica", d.gpus_per_replica},
                          {"gpus", d.gpus_per_replica * (d.prefill_replicas + d.decode_replicas)},
                          {"kv_transfers", d.transfers},
                          {"cross_node_transfers", d.cross_node_transfers},
                          {"kv_MB_per_gpu_mean", d.kv_MB_mean},
                          {"transfer_ms_mean", d.transfer_ms_mean},
                          {"transfer_ms_max", d.transfer_ms_max}};
  }
  ojson rejected = ojson::array();
  for (const Rejection& x : run.workload.rejected)
    rejected.push_back({{"where", x.where}, {"reason", x.reason}});
  j["rejected"] = {{"count", run.workload.rejected.size()}, {"requests", rejected}};
  if (intervals)
    j["intervals"] = serving_intervals_json(*intervals, r);
  else if (std::string note = no_interval_note(s.precision); !note.empty())
    j["intervals_note"] = note;
  // The request list is streamed (one object at a time, indented as dump(2) would), so that a
  // long run's JSON never holds it whole: the document without it, then "requests" last.
  std::string head = j.dump(2);
  os << head.substr(0, head.size() - 2) << ",\n  \"requests\": [";
  bool first = true;
  for_each_request(run, [&](const RequestRecord& q) {
    double ttft = (q.first_token_s - q.arrival_s) * 1e3, e2e = (q.finish_s - q.arrival_s) * 1e3;
    ojson one = {{"id", q.id},
                 {"arrival_s", q.arrival_s},
                 {"input_tokens", q.input_tokens},
                 {"output_tokens", q.output_tokens},
                 {"queue_ms", (q.first_scheduled_s - q.arrival_s) * 1e3},
                 {"ttft_ms", ttft},
                 {"e2e_ms", e2e}};
    one["tpot_ms"] =
        q.output_tokens > 1 ? ojson((e2e - ttft) / (double)(q.output_tokens - 1)) : ojson(nullptr);
    one["preemptions"] = q.preemptions;
    std::string text = one.dump(2), indented = first ? "\n    " : ",\n    ";
    for (char c : text) indented += c == '\n' ? std::string("\n    ") : std::string(1, c);
    os << indented;
    first = false;
  });
  os << (first ? "]\n}\n" : "\n  ]\n}\n");
}

void print_serve_csv(std::ostream& os, const ServeRun& run) {
  os << "id,arrival_s,input_tokens,output_tokens,queue_ms,ttft_ms,tpot_ms,e2e_ms,preemptions\n";
  char b[256];
  for_each_request(run, [&](const RequestRecord& q) {
    double ttft = (q.first_token_s - q.arrival_s) * 1e3, e2e = (q.finish_s - q.arrival_s) * 1e3;
    std::string tpot = "";
    if (q.output_tokens > 1) {
      std::snprintf(b, sizeof b, "%.6g", (e2e - ttft) / (double)(q.output_tokens - 1));
      tpot = b;
    }
    std::snprintf(b, sizeof b, "%lld,%.6f,%lld,%lld,%.6g,%.6g,%s,%.6g,%lld\n", (long long)q.id,
                  q.arrival_s, (long long)q.input_tokens, (long long)q.output_tokens,
                  (q.first_scheduled_s - q.arrival_s) * 1e3, ttft, tpot.c_str(), e2e,
                  (long long)q.preemptions);
    os << b;
  });
}

nlohmann::ordered_json capacity_json_head(const std::string& slo, double target) {
  return {{"slo", slo}, {"target_requests_per_s", target}};
}

nlohmann::ordered_json capacity_json_row(const CapacityRow& row) {
  const CapacityResult& c = row.result;
  ojson j = subject_json(row.subject);
  j["met"] = c.met;
  if (!c.met) j["reason"] = c.reason;
  j["saturation_requests_per_s"] = c.saturation_requests_per_s;
  j["max_requests_per_s_per_replica"] = c.max_requests_per_s;
  j["bound"] = c.bound;
  j["replicas"] = c.replicas;
  j["gpus"] = c.gpus;
  j["cost_per_hour"] = c.cost_per_hour ? ojson(*c.cost_per_hour) : ojson(nullptr);
  j["evaluations"] = c.evaluations;
  j["at_max_rate"] = report_json(c.at_max);
  return j;
}

void print_capacity_json(std::ostream& os, const std::vector<CapacityRow>& rows,
                         const std::string& slo, double target) {
  ojson out = capacity_json_head(slo, target);
  ojson list = ojson::array();
  for (const CapacityRow& row : rows) list.push_back(capacity_json_row(row));
  out["configurations"] = list;
  os << out.dump(2) << "\n";
}

}  // namespace ridgeline
