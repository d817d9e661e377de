// Streaming metrics (see metrics_stream.h). The exact mode reproduces summarise() bit for bit:
// the values sorted ascending, the mean summed in that order (a pair's value added count times),
// percentiles interpolated between the same order statistics.
#include "serve/metrics_stream.h"

#include "common/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ridgeline {

namespace {

const double kGamma = (1 + kRelativeError) / (1 - kRelativeError);
const double kLogGamma = std::log(kGamma);

}  // namespace

void ValueFold::add(double v, int64_t count) {
  require_invariant(std::isfinite(v) && count > 0, "a finite metric value");
  count_ += count;
  if (exact_) {
    pairs_.push_back({v, count});
    if (pairs_.size() > 2 * std::max<size_t>(sorted_, 4096)) compact();
    return;
  }
  sum_ += v * (double)count;
  if (v <= 0) {
    zeros_ += count;
    return;
  }
  // Bucket k holds (gamma^(k-1), gamma^k]; its middle 2 gamma^k / (gamma + 1) is within
  // kRelativeError of every value in it.
  buckets_[(int32_t)std::ceil(std::log(v) / kLogGamma)] += count;
}

void ValueFold::compact() {
  std::sort(pairs_.begin(), pairs_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t out = 0;
  for (size_t i = 0; i < pairs_.size(); ++i) {
    if (out > 0 && pairs_[out - 1].first == pairs_[i].first)
      pairs_[out - 1].second += pairs_[i].second;
    else
      pairs_[out++] = pairs_[i];
  }
  pairs_.resize(out);
  pairs_.shrink_to_fit();
  sorted_ = out;
}

double ValueFold::value_at(int64_t rank) const {
  if (exact_) {
    for (const auto& [v, n] : pairs_) {
      if (rank < n) return v;
      rank -= n;
    }
    return pairs_.back().first;
  }
  if (rank < zeros_) return 0;
  rank -= zeros_;
  for (const auto& [k, n] : buckets_) {
    if (rank < n) return 2 * std::pow(kGamma, k) / (kGamma + 1);
    rank -= n;
  }
  return 2 * std::pow(kGamma, buckets_.rbegin()->first) / (kGamma + 1);
}

Stat ValueFold::summary() {
  Stat s;
  s.count = count_;
  if (count_ == 0) return s;
  if (exact_) {
    compact();
    double sum = 0;
    for (const auto& [v, n] : pairs_)
      for (int64_t i = 0; i < n; ++i) sum += v;
    s.mean = sum / (double)count_;
  } else {
    s.mean = sum_ / (double)count_;
  }
  auto at = [&](int64_t rank) { return value_at(rank); };
  s.p50 = interpolated_percentile(count_, 50, at);
  s.p90 = interpolated_percentile(count_, 90, at);
  s.p99 = interpolated_percentile(count_, 99, at);
  return s;
}

MetricsFold::MetricsFold(const std::vector<SloTerm>& slo, int64_t warmup_requests,
                         int64_t measured_requests)
    : slo_(slo),
      warmup_(warmup_requests),
      exact_(measured_requests <= kExactRequests),
      ttft_(exact_),
      tpot_(exact_),
      itl_(exact_),
      e2e_(exact_),
      queue_(exact_) {}

void MetricsFold::finished(const RequestRecord& q) {
  if (q.id < warmup_) return;
  first_arrival_s_ = requests_ > 0 ? std::min(first_arrival_s_, q.arrival_s) : q.arrival_s;
  last_finish_s_ = requests_ > 0 ? std::max(last_finish_s_, q.finish_s) : q.finish_s;
  ++requests_;
  input_tokens_ += q.input_tokens;
  output_tokens_ += q.output_tokens;
  double ttft = (q.first_token_s - q.arrival_s) * 1e3, e2e = (q.finish_s - q.arrival_s) * 1e3;
  ttft_.add(ttft);
  e2e_.add(e2e);
  queue_.add((q.first_scheduled_s - q.arrival_s) * 1e3);
  if (q.output_tokens > 1) tpot_.add((e2e - ttft) / (double)(q.output_tokens - 1));
  if (!slo_.empty() && meets_slo(q, slo_)) ++good_;
}

void MetricsFold::token_gaps(double gap_s, int64_t tokens) {
  itl_.add(gap_s * 1e3, tokens);
}

ServeReport MetricsFold::report(const SimResult& sim, int64_t gpus) {
  ServeReport r;
  r.warmup_requests = warmup_;
  r.requests = requests_;
  r.input_tokens = input_tokens_;
  r.output_tokens = output_tokens_;
  r.gpus = gpus;
  r.duration_s = warmup_ > 0 ? last_finish_s_ - first_arrival_s_ : sim.duration_s;
  double d = r.duration_s > 0 ? r.duration_s : 1;
  r.requests_per_s = (double)r.requests / d;
  r.input_tokens_per_s = (double)r.input_tokens / d;
  r.output_tokens_per_s = (double)r.output_tokens / d;
  r.output_tokens_per_s_per_gpu = r.output_tokens_per_s / (double)gpus;
  r.ttft_ms = ttft_.summary();
  r.tpot_ms = tpot_.summary();
  r.e2e_ms = e2e_.summary();
  r.queue_ms = queue_.summary();
  r.itl_ms = itl_.summary();
  r.percentiles_exact = exact_;
  r.preemptions = sim.preemptions;
  r.steps = sim.step_count;
  r.kv_blocks = sim.kv_blocks;
  r.block_size_tokens = sim.block_size_tokens;
  r.kv_used_mean = sim.kv_used_mean;
  r.kv_used_max = sim.kv_used_max;
  r.slo = slo_;
  if (!slo_.empty()) {
    r.goodput_requests_per_s = (double)good_ / d;
    for (const SloTerm& t : slo_) {
      double v = slo_value(r, t);
      if (v > t.limit_ms) {
        char b[128];
        std::snprintf(b, sizeof b, "%s_%s %.4g ms > %.4g ms", t.metric.c_str(), t.stat.c_str(), v,
                      t.limit_ms);
        r.slo_failures.push_back(b);
      }
    }
    r.slo_met = r.slo_failures.empty();
  }
  return r;
}

ServeReport make_report(const SimResult& sim, int64_t gpus, const std::vector<SloTerm>& slo,
                        int64_t warmup) {
  int64_t measured = 0;
  for (const RequestRecord& q : sim.requests) measured += q.id >= warmup ? 1 : 0;
  MetricsFold fold(slo, warmup, measured);
  for (const RequestRecord& q : sim.requests) fold.finished(q);
  for (auto [gap_s, n] : sim.itl_gaps) fold.token_gaps(gap_s, n);
  return fold.report(sim, gpus);
}

}  // namespace ridgeline
