// The measured step's metrics: its time is the trace's kernel time, each layer's the time of
// the kernels matched to that layer's ops; the labels and the expected figures come from the
// prediction's own JSON document, as `export prometheus` reads it.
#include "cli/views/trace_prometheus_view.h"

#include "cli/views/predict_views.h"
#include "cli/views/prometheus_view.h"
#include "hardware/derived.h"

#include <map>
#include <sstream>

namespace ridgeline {

void print_trace_prometheus(std::ostream& os, const TraceComparison& c, const Prediction& p,
                            const GpuSpec& gpu, const std::string& job) {
  std::ostringstream doc;
  print_prediction_json(doc, p);
  PrometheusRun run{nlohmann::json::parse(doc.str()), peak_flops_per_s(gpu, MathUnit::TensorBf16),
                    job};
  MeasuredStep m;
  m.step_us = c.measured_total_us;
  std::map<std::pair<std::string, int64_t>, double> by_layer;
  for (const MatchedOp& op : c.matched) by_layer[{op.section, op.layer}] += op.measured_us;
  for (const auto& [key, us] : by_layer) m.layers.push_back({key.first, key.second, us});
  print_measured_prometheus(os, run, m);
}

}  // namespace ridgeline
