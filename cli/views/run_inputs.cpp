// What a prediction was asked: every input of the run (model and where it came from, phase,
// sizes, blocks, precisions, runtime, launch, optimizer, GPU, profile, what-ifs), in one place
// for every view, so that an output always says what it predicted.
#include "cli/views/predict_views.h"
#include "cli/views/views.h"
#include "workloads/op.h"

#include <sstream>

namespace ridgeline {

namespace {

std::string weights_name(const RunConfig& r) {
  if (r.weight_bits > 0) return "int" + std::to_string(r.weight_bits);
  return dtype_name(r.weights);
}

}  // namespace

nlohmann::ordered_json run_inputs_json(const RunConfig& r, const RunSubject& s) {
  nlohmann::ordered_json j;
  j["model"] = s.model;
  j["model_source"] = s.model_source;
  j["phase"] = phase_name(r.phase);
  j["batch"] = r.batch;
  j["seq"] = r.seq;
  j["kv_len"] = r.kv_len;
  j["blocks"] = r.blocks;  // 0: the whole model
  j["logits"] = r.phase == Phase::Train || r.logits_all ? "all" : (r.blocks > 0 ? "none" : "last");
  j["weights"] = weights_name(r);
  if (r.mxfp4_experts) j["expert_weights"] = "mxfp4";
  j["activations"] = dtype_name(r.activations);
  j["kv_cache"] = dtype_name(r.kv_cache);
  j["runtime"] = runtime_name(r.runtime);
  j["launch"] = launch_name(r.launch);
  j["optimizer"] = r.optimizer == Optimizer::AdamW ? "adamw" : "none";
  // false (none) and true (full) as before the selective mode existed; "selective" otherwise.
  if (r.recompute == Recompute::Selective)
    j["recompute"] = "selective";
  else
    j["recompute"] = r.recompute == Recompute::Full;
  // Shown when chosen (outputs of runs without them stay as they were).
  if (r.master_weights != MasterWeights::None)
    j["master_weights"] = master_weights_name(r.master_weights);
  if (r.grad_scaler) j["grad_scaler"] = true;
  j["moe_imbalance"] = r.moe_imbalance;
  j["gpu"] = s.gpu;
  j["gpu_file"] = s.gpu_file;
  j["profile"] = s.profile;
  j["what_ifs"] = s.what_ifs;
  return j;
}

nlohmann::ordered_json prediction_inputs_json(const Prediction& p) {
  return run_inputs_json(p.run,
                         {p.model, p.model_source, p.gpu, p.gpu_file, p.gpu_profile, p.what_ifs});
}

std::string precision_line(const RunConfig& r) {
  std::string line = "weights " + weights_name(r) + (r.mxfp4_experts ? " (experts mxfp4)" : "") +
                     ", activations " + dtype_name(r.activations) + ", KV cache " +
                     dtype_name(r.kv_cache);
  if (r.master_weights != MasterWeights::None)
    line +=
        ", master weights " + std::string(master_weights_name(r.master_weights)) + " (autocast)";
  if (r.grad_scaler) line += ", grad scaler";
  return line;
}

std::string what_if_line(const std::vector<std::string>& what_ifs) {
  std::string s;
  for (const auto& w : what_ifs) s += (s.empty() ? "" : ", ") + w;
  return s;
}

}  // namespace ridgeline
