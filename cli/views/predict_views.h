// Views of a workload prediction: a table for people, JSON and CSV for tools, and a Chrome /
// Perfetto trace (open it in ui.perfetto.dev) with one slice per kernel of every layer.
#pragma once

#include "model/prediction.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

void print_prediction_table(std::ostream& os, const Prediction& p, int top);
void print_prediction_json(std::ostream& os, const Prediction& p);
void print_prediction_csv(std::ostream& os, const Prediction& p);
void write_chrome_trace(std::ostream& os, const Prediction& p);

// Every input of the run (run_inputs.cpp), for JSON and CSV views.
nlohmann::ordered_json prediction_inputs_json(const Prediction& p);
// "weights bf16, activations bf16, KV cache fp8"
std::string precision_line(const RunConfig& r);
// The what-ifs applied, comma-separated ("" when none).
std::string what_if_line(const std::vector<std::string>& what_ifs);

// Calls f(section, layer_or_-1, kernel, step_start_us) for every kernel of the step in order.
template <class F>
void for_each_kernel(const Prediction& p, F&& f) {
  double t = 0;
  for (const auto& s : p.sections) {
    for (int64_t r = 0; r < s.repeat; ++r) {
      int64_t layer = s.first_layer >= 0 ? s.first_layer + r : -1;
      for (const auto& k : s.kernels) f(s, layer, k, t + k.start_us);
      t += s.repeat_us;
    }
  }
}

}  // namespace ridgeline
