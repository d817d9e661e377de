// Scorecard computation; see scorecard.h.
#include "validate/scorecard.h"

#include "model/generate_predict.h"
#include "model/op_cost.h"
#include "model/prediction.h"
#include "workloads/graph_builder.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ridgeline {

ErrorStats error_stats(const std::vector<double>& signed_errors) {
  ErrorStats s;
  s.count = (int)signed_errors.size();
  if (signed_errors.empty()) return s;
  std::vector<double> abs_err;
  double log_sum = 0;
  for (double e : signed_errors) {
    abs_err.push_back(std::fabs(e));
    log_sum += std::log(1 + e);
  }
  std::sort(abs_err.begin(), abs_err.end());
  double sum = 0;
  for (double a : abs_err) sum += a;
  s.mape = sum / abs_err.size();
  auto pct = [&](double q) {
    double pos = q * (abs_err.size() - 1);
    size_t lo = (size_t)std::floor(pos), hi = (size_t)std::ceil(pos);
    return abs_err[lo] + (abs_err[hi] - abs_err[lo]) * (pos - lo);
  };
  s.median = pct(0.5);
  s.p90 = pct(0.9);
  s.worst = abs_err.back();
  s.bias = std::exp(log_sum / signed_errors.size());
  return s;
}

namespace {

bool memory_bound_family(const std::string& f) {
  return f != "gemm" && f.rfind("attention", 0) != 0;  // "attention/flash2" too
}

FamilyScore family_score(const std::string& name, const std::vector<const CaseResult*>& cases) {
  std::vector<double> model, roof;
  for (const auto* c : cases) {
    model.push_back(c->error());
    roof.push_back(c->roofline_error());
  }
  return {name, error_stats(model), error_stats(roof)};
}

}  // namespace

namespace {

void add_families(Scorecard& sc, bool memory_bound_total) {
  std::map<std::string, std::vector<const CaseResult*>> by_family;
  std::vector<const CaseResult*> memory_bound, all;
  for (const auto& c : sc.cases) {
    by_family[c.family].push_back(&c);
    all.push_back(&c);
    if (memory_bound_total && memory_bound_family(c.family)) memory_bound.push_back(&c);
  }
  for (const auto& [name, cases] : by_family) sc.families.push_back(family_score(name, cases));
  if (!memory_bound.empty()) sc.families.push_back(family_score("memory-bound", memory_bound));
  if (!all.empty()) sc.families.push_back(family_score("all", all));
}

double summed_rooflines_us(const OpGraph& g, const GpuSpec& gpu) {
  double us = 0;
  for (const auto& s : g.sections) {
    for (OpVertex v : launch_order(s)) us += s.repeat * plain_roofline_us(s.dag()[v].op, gpu);
  }
  return us;
}

// A generate() measurement: the time to the first token, per later token, or the whole call.
CaseResult generate_case(const WorkloadMeasurement& m, const GpuSpec& gpu) {
  GeneratePrediction g = predict_generate(m.model, m.run, m.new_tokens, gpu);
  double us = m.generate == GenerateMetric::Ttft       ? g.ttft_us
              : m.generate == GenerateMetric::PerToken ? g.per_token_us
                                                       : g.total_us;
  OpGraph prefill = build_graph(m.model, m.run);
  double roofline = summed_rooflines_us(prefill, gpu);
  if (m.generate != GenerateMetric::Ttft) {
    RunConfig d = m.run;
    d.phase = Phase::Decode;
    d.kv_len = m.run.seq + (m.new_tokens - 2) / 2;
    d.seq = 0;
    double step = summed_rooflines_us(build_graph(m.model, d), gpu);
    roofline = m.generate == GenerateMetric::PerToken
                   ? step
                   : roofline + (double)(m.new_tokens - 1) * step;
  }
  return {m.id, m.category, m.split, m.measured_us, us, roofline, "generate"};
}

}  // namespace

Scorecard score_workloads(const WorkloadDataset& data, const GpuSpec& gpu,
                          const std::string& split) {
  Scorecard sc;
  sc.gpu = gpu.name;
  sc.dataset = data.file;
  sc.split = split;
  for (const auto& m : data.records) {
    if (split != "all" && m.split != split) continue;
    if (m.generate != GenerateMetric::None) {
      sc.cases.push_back(generate_case(m, gpu));
      continue;
    }
    if (sc.runtimes.find(m.run.runtime.name) == std::string::npos)
      sc.runtimes += (sc.runtimes.empty() ? "" : ", ") + m.run.runtime.name;
    OpGraph g = build_graph(m.model, m.run);
    Prediction p = predict_workload(g, m.model, m.run, gpu);
    int top = 0;
    for (int i = 1; i < kTimeClasses; ++i)
      top = p.time_by_class_us[i] > p.time_by_class_us[top] ? i : top;
    sc.cases.push_back({m.id, m.category, m.split, m.measured_us, p.total_us,
                        summed_rooflines_us(g, gpu), time_class_name(top)});
  }
  add_families(sc, false);
  return sc;
}

Scorecard score(const Dataset& data, const GpuSpec& gpu, const std::string& split) {
  Scorecard sc;
  sc.gpu = gpu.name;
  sc.dataset = data.file;
  sc.split = split;
  for (const auto& m : data.records) {
    if (split != "all" && m.split != split) continue;
    OpCost c = predict_op(m.op, gpu);
    sc.cases.push_back({m.op.id, m.family.empty() ? op_family(m.op) : m.family, m.split, m.measured_us, c.time_us, c.roofline_us,
                        bottleneck_name(c.bottleneck)});
  }
  add_families(sc, true);
  return sc;
}

}  // namespace ridgeline
