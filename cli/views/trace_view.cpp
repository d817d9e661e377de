// Chrome / Perfetto trace of a predicted step (Trace Event Format, "X" complete events, times in
// microseconds): thread 1 holds one slice per kernel on the GPU stream, thread 2 one slice per
// layer (or section). Open the file in ui.perfetto.dev or chrome://tracing.
#include "cli/views/predict_views.h"
#include "workloads/op.h"

#include <nlohmann/json.hpp>

namespace ridgeline {

void write_chrome_trace(std::ostream& os, const Prediction& p) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"args", {{"name", p.gpu + ": " + p.description}}}});
  events.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", 1},
                    {"args", {{"name", "GPU stream"}}}});
  events.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", 2},
                    {"args", {{"name", "layers"}}}});
  double t = 0;
  for (const auto& s : p.sections) {
    for (int64_t r = 0; r < s.repeat; ++r) {
      int64_t layer = s.first_layer >= 0 ? s.first_layer + r : -1;
      std::string label = layer >= 0 ? "layer " + std::to_string(layer) : s.name;
      events.push_back(
          {{"name", label}, {"ph", "X"}, {"pid", 1}, {"tid", 2}, {"ts", t}, {"dur", s.repeat_us}});
      for (const auto& k : s.kernels) {
        events.push_back({{"name", k.name},
                          {"cat", op_family(*k.op)},
                          {"ph", "X"},
                          {"pid", 1},
                          {"tid", 1},
                          {"ts", t + k.start_us},
                          {"dur", k.device_us},
                          {"args",
                           {{"bottleneck", bottleneck_name(k.cost.bottleneck)},
                            {"flops", k.cost.flops()},
                            {"hbm_bytes", k.cost.bytes.hbm},
                            {"layer", layer}}}});
      }
      t += s.repeat_us;
    }
  }
  nlohmann::ordered_json doc{{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  os << doc.dump() << "\n";
}

}  // namespace ridgeline
