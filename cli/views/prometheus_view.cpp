// The exposition text (Prometheus text format 0.0.4): a # HELP and # TYPE line a metric, then
// its samples. Every value is a gauge: a prediction is a figure, not a running count.
#include "cli/views/prometheus_view.h"

#include "cli/views/views.h"

#include <map>

namespace ridgeline {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string escape_label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string text_of(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The workload's labels, from the prediction document's inputs (a cluster's top level too).
Labels workload_labels(const PrometheusRun& run) {
  const nlohmann::json& p = run.prediction;
  const nlohmann::json& in = p.contains("inputs") ? p["inputs"] : p;
  Labels l;
  for (const char* key : {"gpu", "cluster", "model", "phase", "batch", "seq", "kv_len", "weights",
                          "runtime", "launch"})
    if (in.contains(key) && !in[key].is_null() && !in[key].is_object())
      l.emplace_back(key, text_of(in[key]));
  if (!run.job.empty()) l.emplace_back("job", run.job);
  return l;
}

class Exposition {
 public:
  Exposition(std::ostream& os, Labels base) : os_(os), base_(std::move(base)) {}
  void metric(const std::string& name, const std::string& help) {
    os_ << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n";
    name_ = name;
  }
  void sample(double value, const Labels& extra = {}) {
    os_ << name_ << "{";
    bool first = true;
    for (const Labels* ls : {static_cast<const Labels*>(&base_), &extra})
      for (const auto& [k, v] : *ls) {
        os_ << (first ? "" : ",") << k << "=\"" << escape_label(v) << "\"";
        first = false;
      }
    os_ << "} " << exact(value) << "\n";
  }

 private:
  std::ostream& os_;
  Labels base_;
  std::string name_;
};

double tokens_per_step(const nlohmann::json& p) {
  return p.value("tokens_per_s", 0.0) * p.value("total_us", 0.0) * 1e-6;
}

}  // namespace

void print_expected_prometheus(std::ostream& os, const PrometheusRun& run) {
  const nlohmann::json& p = run.prediction;
  Exposition e(os, workload_labels(run));
  const double step_s = p.at("total_us").get<double>() * 1e-6;
  e.metric("ridgeline_expected_step_seconds", "Predicted time of one step (ridgeline).");
  e.sample(step_s);
  if (p.contains("tokens_per_s")) {
    e.metric("ridgeline_expected_tokens_per_second", "Predicted tokens per second (ridgeline).");
    e.sample(p["tokens_per_s"].get<double>());
  }
  double mfu = p.contains("mfu") ? p["mfu"].get<double>() : -1;
  if (mfu < 0 && run.peak_flops_per_s > 0 && p.contains("flops"))
    mfu = p["flops"].get<double>() / step_s / run.peak_flops_per_s;
  if (mfu >= 0) {
    e.metric("ridgeline_expected_mfu_ratio",
             "Predicted model FLOPs utilisation: FLOPs over step time over the dense BF16 peak.");
    e.sample(mfu);
  }
  if (p.contains("time_by_bound_us")) {
    e.metric("ridgeline_expected_bound_seconds", "Predicted step time by what bounds it.");
    for (const auto& [bound, us] : p["time_by_bound_us"].items())
      e.sample(us.get<double>() * 1e-6, {{"bound", bound}});
  }
  if (p.contains("layers")) {
    e.metric("ridgeline_expected_layer_seconds", "Predicted time of each layer of the step.");
    for (const auto& l : p["layers"])
      e.sample(l.at("time_us").get<double>() * 1e-6,
               {{"section", text_of(l.at("section"))}, {"layer", text_of(l.at("layer"))}});
  }
}

void print_measured_prometheus(std::ostream& os, const PrometheusRun& run, const MeasuredStep& m) {
  const nlohmann::json& p = run.prediction;
  Exposition e(os, workload_labels(run));
  const double step_s = m.span_us * 1e-6;
  e.metric("ridgeline_measured_step_seconds",
           "Measured step: first kernel start to last kernel end in the trace.");
  e.sample(step_s);
  e.metric("ridgeline_expected_step_seconds", "Predicted time of one step (ridgeline).");
  e.sample(p.at("total_us").get<double>() * 1e-6);
  e.metric("ridgeline_measured_kernel_seconds", "Measured kernel time of the step (no gaps).");
  e.sample(m.kernel_us * 1e-6);
  e.metric("ridgeline_expected_kernel_seconds",
           "Predicted kernel time of the matched ops (launch gaps left out).");
  e.sample(m.predicted_kernel_us * 1e-6);
  if (p.contains("tokens_per_s") && step_s > 0) {
    e.metric("ridgeline_measured_tokens_per_second", "Measured tokens per second (over the span).");
    e.sample(tokens_per_step(p) / step_s);
  }
  if (run.peak_flops_per_s > 0 && p.contains("flops") && step_s > 0) {
    e.metric("ridgeline_measured_mfu_ratio",
             "Measured model FLOPs utilisation: the step FLOPs over the span over the dense BF16 "
             "peak.");
    e.sample(p["flops"].get<double>() / step_s / run.peak_flops_per_s);
  }
  if (m.layers.empty()) return;
  e.metric("ridgeline_measured_layer_kernel_seconds", "Measured kernel time of each layer.");
  for (const auto& l : m.layers)
    e.sample(l.kernel_us * 1e-6, {{"section", l.section}, {"layer", std::to_string(l.layer)}});
  e.metric("ridgeline_expected_layer_kernel_seconds",
           "Predicted kernel time of each layer's matched ops.");
  for (const auto& l : m.layers)
    e.sample(l.predicted_kernel_us * 1e-6,
             {{"section", l.section}, {"layer", std::to_string(l.layer)}});
}

}  // namespace ridgeline
