// The measured step's metrics: its time is the trace's span (first kernel start to last kernel
// end), its kernel time the sum of the matched kernels, each layer's the time of the kernels
// matched to that layer's ops, beside their predicted kernel time; the labels and the expected
// figures come from the prediction's own JSON document, as `export prometheus` reads it.
#include "cli/views/trace_prometheus_view.h"

#include "cli/views/predict_views.h"
#include "cli/views/prometheus_view.h"
#include "hardware/derived.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace ridgeline {

void print_trace_prometheus(std::ostream& os, const std::vector<TraceKernel>& kernels,
                            const TraceComparison& c, const Prediction& p, const GpuSpec& gpu,
                            const std::string& job) {
  std::ostringstream doc;
  print_prediction_json(doc, p);
  PrometheusRun run{nlohmann::json::parse(doc.str()), peak_flops_per_s(gpu, MathUnit::TensorBf16),
                    job};
  MeasuredStep m;
  double first = 0, last = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const TraceKernel& k = kernels[i];
    first = i == 0 ? k.start_us : std::min(first, k.start_us);
    last = i == 0 ? k.start_us + k.duration_us : std::max(last, k.start_us + k.duration_us);
  }
  m.span_us = last - first;
  m.kernel_us = c.measured_total_us;
  m.predicted_kernel_us = c.predicted_total_us;
  std::map<std::pair<std::string, int64_t>, std::pair<double, double>> by_layer;
  for (const MatchedOp& op : c.matched) {
    auto& [measured, predicted] = by_layer[{op.section, op.layer}];
    measured += op.measured_us;
    predicted += op.predicted_us;
  }
  for (const auto& [key, us] : by_layer)
    m.layers.push_back({key.first, key.second, us.first, us.second});
  print_measured_prometheus(os, run, m);
}

}  // namespace ridgeline
