// Metric definitions (see metrics.h).
#include "serve/metrics.h"

#include "common/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <sstream>

namespace ridgeline {

double percentile(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  return interpolated_percentile((int64_t)v.size(), p, [&](int64_t i) { return v[(size_t)i]; });
}

Stat summarise(std::vector<double> v) {
  Stat s;
  s.count = (int64_t)v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / (double)v.size();
  s.p50 = percentile(v, 50);
  s.p90 = percentile(v, 90);
  s.p99 = percentile(v, 99);
  return s;
}

namespace {

const std::vector<std::string> kMetrics = {"ttft", "tpot", "itl", "e2e", "queue"};
const std::vector<std::string> kStats = {"mean", "p50", "p90", "p99"};

double duration_ms(const std::string& flag, const std::string& term, const std::string& v) {
  double scale = 0;
  std::string num;
  if (v.ends_with("ms")) {
    scale = 1, num = v.substr(0, v.size() - 2);
  } else if (v.ends_with("s")) {
    scale = 1000, num = v.substr(0, v.size() - 1);
  } else {
    throw InputError(flag + " " + term + ": expected a duration with a unit (2s, 100ms)");
  }
  char* end = nullptr;
  double x = std::strtod(num.c_str(), &end);
  if (num.empty() || end != num.c_str() + num.size() || !(x > 0) || !std::isfinite(x))
    throw InputError(flag + " " + term + ": expected a positive duration (2s, 100ms)");
  return x * scale;
}

}  // namespace

std::vector<SloTerm> parse_slo(const std::string& flag, const std::string& text) {
  std::vector<SloTerm> out;
  std::stringstream in(text);
  std::string term;
  while (std::getline(in, term, ',')) {
    size_t eq = term.find('='), us = term.find('_');
    if (eq == std::string::npos || us == std::string::npos || us > eq)
      throw InputError(flag + " " + term + ": expected METRIC_STAT=DURATION, e.g. ttft_p99=2s");
    SloTerm t{term.substr(0, us), term.substr(us + 1, eq - us - 1), 0};
    if (std::find(kMetrics.begin(), kMetrics.end(), t.metric) == kMetrics.end())
      throw InputError(flag + " " + term + ": unknown metric \"" + t.metric +
                       "\" (known: ttft, tpot, itl, e2e, queue)");
    if (std::find(kStats.begin(), kStats.end(), t.stat) == kStats.end())
      throw InputError(flag + " " + term + ": unknown statistic \"" + t.stat +
                       "\" (known: mean, p50, p90, p99)");
    t.limit_ms = duration_ms(flag, term, term.substr(eq + 1));
    out.push_back(t);
  }
  if (out.empty()) throw InputError(flag + ": empty SLO (e.g. ttft_p99=2s,tpot_p99=100ms)");
  return out;
}

std::string describe(const std::vector<SloTerm>& slo) {
  std::string s;
  for (const SloTerm& t : slo) {
    char b[64];
    std::snprintf(b, sizeof b, "%s%s_%s<=%gms", s.empty() ? "" : ",", t.metric.c_str(),
                  t.stat.c_str(), t.limit_ms);
    s += b;
  }
  return s;
}

bool meets_slo(const RequestRecord& r, const std::vector<SloTerm>& slo) {
  double ttft = (r.first_token_s - r.arrival_s) * 1e3, e2e = (r.finish_s - r.arrival_s) * 1e3;
  double tpot = r.output_tokens > 1 ? (e2e - ttft) / (double)(r.output_tokens - 1) : 0;
  for (const SloTerm& t : slo) {
    double v = t.metric == "ttft"   ? ttft
               : t.metric == "tpot" ? tpot
               : t.metric == "e2e"  ? e2e
               : t.metric == "itl"  ? r.max_itl_s * 1e3
                                    : (r.first_scheduled_s - r.arrival_s) * 1e3;
    if (v > t.limit_ms) return false;
  }
  return true;
}

double slo_value(const ServeReport& r, const SloTerm& t) {
  const Stat& s = t.metric == "ttft"   ? r.ttft_ms
                  : t.metric == "tpot" ? r.tpot_ms
                  : t.metric == "itl"  ? r.itl_ms
                  : t.metric == "e2e"  ? r.e2e_ms
                                       : r.queue_ms;
  if (t.stat == "mean") return s.mean;
  if (t.stat == "p50") return s.p50;
  if (t.stat == "p90") return s.p90;
  return s.p99;
}

}  // namespace ridgeline
