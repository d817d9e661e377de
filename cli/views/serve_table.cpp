// The table views of a serving run and of a capacity search.
#include "cli/views/serve_views.h"

#include "cli/views/serve_interval_views.h"
#include "cli/views/views.h"

#include <algorithm>
#include <cstdio>

namespace ridgeline {

namespace {

std::string row(const char* name, const Stat& s) {
  char b[160];
  std::snprintf(b, sizeof b, "  %-10s %10.2f %10.2f %10.2f %10.2f\n", name, s.mean, s.p50, s.p90,
                s.p99);
  return b;
}

}  // namespace

void print_serve_table(std::ostream& os, const ServeSubject& s, const ServeRun& run,
                       const ServingIntervals* intervals) {
  const ServeReport& r = run.report;
  char b[512];
  os << s.model << " on " << s.gpu << ", engine " << s.engine << " (" << s.precision << ")\n";
  os << "workload: " << s.workload << "; arrivals: " << s.arrivals << "; seed " << s.seed << "\n";
  char fraction[64] = "";
  if (run.engine.memory_rule == KvMemoryRule::SglangReserved)
    std::snprintf(fraction, sizeof fraction, "mem_fraction_static %.3f, ", run.kv.memory_fraction);
  std::snprintf(
      b, sizeof b, "KV cache: %lld blocks of %lld tokens (%s; %sweights %s, activation peak %s)\n",
      (long long)run.kv.blocks, (long long)run.engine.block_size_tokens,
      human_bytes(run.kv.kv_bytes).c_str(), fraction, human_bytes(run.kv.weights_bytes).c_str(),
      human_bytes(run.kv.activation_peak_bytes).c_str());
  os << b;
  if (run.engine.limits_from_workload)
    os << "engine limits (trtllm-bench's sizing for the mean lengths): max batch size "
       << run.engine.max_num_seqs << ", max num tokens " << run.engine.max_num_batched_tokens
       << "\n";
  if (run.disaggregated) {
    const DisaggStats& d = *run.disaggregated;
    std::snprintf(b, sizeof b,
                  "disaggregated: %lld prefill + %lld decode replicas of %lld GPU(s); KV transfer "
                  "%.1f MB a GPU on average, %.3f ms mean, %.3f ms max (from the prefill's end, "
                  "queued behind its replica's other sends), %lld of %lld across nodes\n",
                  (long long)d.prefill_replicas, (long long)d.decode_replicas,
                  (long long)d.gpus_per_replica, d.kv_MB_mean, d.transfer_ms_mean,
                  d.transfer_ms_max, (long long)d.cross_node_transfers, (long long)d.transfers);
    os << b;
  }
  std::snprintf(b, sizeof b,
                "requests %lld in %.2f s (%lld steps): %.3f req/s, %.1f input tok/s, %.1f output "
                "tok/s (%.1f per GPU)\n",
                (long long)r.requests, r.duration_s, (long long)r.steps, r.requests_per_s,
                r.input_tokens_per_s, r.output_tokens_per_s, r.output_tokens_per_s_per_gpu);
  os << b;
  if (r.warmup_requests > 0)
    os << "  (measured after " << r.warmup_requests << " warm-up requests, which are left out)\n";
  if (!r.percentiles_exact) os << "  (" << percentile_note(r) << ")\n";
  os << "  ms              mean        p50        p90        p99\n";
  os << row("TTFT", r.ttft_ms) << row("TPOT", r.tpot_ms) << row("ITL", r.itl_ms)
     << row("E2E", r.e2e_ms) << row("queue", r.queue_ms);
  if (intervals)
    os << serving_intervals_lines(*intervals, r);
  else if (std::string note = no_interval_note(s.precision); !note.empty())
    os << "80% intervals  " << note << "\n";
  std::snprintf(b, sizeof b, "preemptions %lld; KV use mean %.1f%%, max %.1f%%; rejected %zu\n",
                (long long)r.preemptions, 100 * r.kv_used_mean, 100 * r.kv_used_max,
                run.workload.rejected.size());
  os << b;
  for (const Rejection& x : run.workload.rejected)
    os << "  rejected " << x.where << ": " << x.reason << "\n";
  if (!r.slo.empty()) {
    std::snprintf(b, sizeof b, "SLO %s: %s; goodput %.3f req/s\n", describe(r.slo).c_str(),
                  r.slo_met ? "met" : "not met", r.goodput_requests_per_s);
    os << b;
    for (const std::string& f : r.slo_failures) os << "  " << f << "\n";
  }
  os << "TTFT: arrival to first token; TPOT: (e2e - TTFT) / (output - 1) per request; ITL: every "
        "gap between tokens, pooled\n";
}

int capacity_gpu_width(const std::vector<std::string>& labels) {
  size_t w = 13;
  for (const std::string& l : labels) w = std::max(w, l.size());
  return (int)w;
}

std::string capacity_table_head(const std::string& slo, double target, int gpu_width) {
  char b[512];
  std::snprintf(b, sizeof b, "SLO %s, target %g req/s\n", slo.c_str(), target);
  std::string head = b;
  std::snprintf(b, sizeof b, "  %-*s ", gpu_width, "gpu");
  return head + b +
         "engine   precision  max req/s/replica  bound       saturation  TTFT p99 ms  TPOT p99 "
         "ms  replicas  GPUs  cost/h\n";
}

std::string capacity_table_row(const CapacityRow& row, int gpu_width) {
  char b[1024];
  const CapacityResult& c = row.result;
  if (!c.met) {
    std::snprintf(b, sizeof b, "  %-*s %-8s %-10s not met: %s\n", gpu_width,
                  row.subject.gpu.c_str(), row.subject.engine.c_str(),
                  row.subject.precision.c_str(), c.reason.c_str());
    return b;
  }
  std::string cost = c.cost_per_hour ? std::to_string((long long)(*c.cost_per_hour + 0.5)) : "-";
  std::snprintf(
      b, sizeof b, "  %-*s %-8s %-10s %17.3f  %-10s %11.3f %12.1f %12.1f %9lld %5lld  %s\n",
      gpu_width, row.subject.gpu.c_str(), row.subject.engine.c_str(), row.subject.precision.c_str(),
      c.max_requests_per_s, c.bound.c_str(), c.saturation_requests_per_s, c.at_max.ttft_ms.p99,
      c.at_max.tpot_ms.p99, (long long)c.replicas, (long long)c.gpus, cost.c_str());
  return b;
}

void print_capacity_table(std::ostream& os, const std::vector<CapacityRow>& rows,
                          const std::string& slo, double target) {
  std::vector<std::string> labels;
  for (const CapacityRow& row : rows) labels.push_back(row.subject.gpu);
  int width = capacity_gpu_width(labels);
  os << capacity_table_head(slo, target, width);
  for (const CapacityRow& row : rows) os << capacity_table_row(row, width);
}

}  // namespace ridgeline
