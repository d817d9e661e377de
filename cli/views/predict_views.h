// Views of a workload prediction: a table for people, JSON and CSV for tools, and a Chrome /
// Perfetto trace (open it in ui.perfetto.dev) with one track per stream and one slice per kernel
// of every layer. Every time they show comes from the prediction's Timeline or its costs.
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

// What a run was predicted for beside its RunConfig: the model and GPU as outputs name them.
struct RunSubject {
  std::string model, model_source, gpu, gpu_file, profile;
  std::vector<std::string> what_ifs;
};
// Every input of the run (run_inputs.cpp), for JSON and CSV views: of a prediction, or of any
// run (a sweep's points) and what it was for.
nlohmann::ordered_json run_inputs_json(const RunConfig& r, const RunSubject& s);
nlohmann::ordered_json prediction_inputs_json(const Prediction& p);
// "weights bf16, activations bf16, KV cache fp8"
std::string precision_line(const RunConfig& r);
// The what-ifs applied, comma-separated ("" when none).
std::string what_if_line(const std::vector<std::string>& what_ifs);

}  // namespace ridgeline
