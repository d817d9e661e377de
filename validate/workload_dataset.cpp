// Loading measured workload data sets; see workload_dataset.h. The measured models are
// Llama-3-8B-shaped (workloads/models/llama-3-8b.json): "blocks4" is 4 decoder blocks without
// embedding or head (--blocks 4), "llama-3-8b" the whole model, "llama-3-8b-8layers" the whole
// model cut to 8 layers (training fits on one GPU).
#include "validate/workload_dataset.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "validate/dataset.h"

#include <algorithm>

namespace ridgeline {

namespace {

ModelConfig model_of(const std::string& name, const std::string& where) {
  ModelConfig m = load_model("llama-3-8b");
  if (name == "llama-3-8b" || name == "blocks4") return m;
  if (name == "llama-3-8b-8layers") {
    m.layers = 8;
    m.name = name;
    return m;
  }
  // Other measured models are a preset ("mixtral-8x7b") or a config.json path from the
  // repository root ("validate/data/models/moe-128x8.json").
  for (const auto& preset : model_preset_names()) {
    if (preset == name) return load_model(name);
  }
  if (name.size() > 5 && name.substr(name.size() - 5) == ".json") return load_model(name);
  throw InputError(where + "/model: unknown measured model \"" + name + "\"");
}

RunConfig run_of(const nlohmann::json& r, const std::string& where) {
  RunConfig run;
  std::string phase = r.value("phase", "");
  if (phase == "prefill")
    run.phase = Phase::Prefill;
  else if (phase == "decode")
    run.phase = Phase::Decode;
  else if (phase == "train")
    run.phase = Phase::Train;
  else
    throw InputError(where + "/phase: expected prefill, decode or train");
  run.batch = r.value("batch", 0);
  if (run.phase == Phase::Decode)
    run.kv_len = r.value("kv_len", 0);
  else
    run.seq = r.value("seq", 0);
  run.blocks = r.value("blocks_only", false) ? r.value("layers", 0) : 0;
  run.launch = r.value("mode", "") == "eager" ? LaunchMode::Eager : LaunchMode::Graph;
  run.optimizer = r.value("optimizer", "none") == "adamw" ? Optimizer::AdamW : Optimizer::None;
  return run;
}

}  // namespace

WorkloadDataset parse_workload_dataset(const nlohmann::json& doc, const std::string& label) {
  WorkloadDataset d;
  d.file = label;
  if (!doc.is_object() || !doc.contains("records") || !doc["records"].is_array()) {
    throw InputError(located(label, "/records: missing; expected an array of measurements"));
  }
  d.meta = doc.value("meta", nlohmann::json::object());
  const auto& records = doc["records"];
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    std::string where = label + ": /records/" + std::to_string(i);
    if (!r.is_object()) throw InputError(where + ": expected an object");
    std::string id = r.value("id", where);
    if (!r.contains("median_ms") || !r["median_ms"].is_number()) {
      d.skipped.push_back(id + ": " +
                          (r.contains("error") ? r["error"].dump().substr(0, 80) : "not timed"));
      continue;
    }
    WorkloadMeasurement m;
    m.id = id;
    m.split = r.value("split", "");
    if (m.split != "fit" && m.split != "holdout")
      throw InputError(where + "/split: expected \"fit\" or \"holdout\"");
    m.model = model_of(r.value("model", ""), where);
    m.run = run_of(r, where);
    // The measured model's RoPE table and cache cover the positions it ran (decode at kv 8192
    // attends over 8193, one past Llama-3-8B's max_position_embeddings).
    int64_t positions = m.run.phase == Phase::Decode ? m.run.kv_len + 1 : m.run.seq;
    m.model.max_positions = std::max(m.model.max_positions, positions);
    m.measured_us = r["median_ms"].get<double>() * 1000;
    if (!(m.measured_us > 0)) throw InputError(where + "/median_ms: expected a positive number");
    m.category = std::string(phase_name(m.run.phase)) + "-" + launch_name(m.run.launch);
    d.records.push_back(std::move(m));
  }
  return d;
}

WorkloadDataset load_workload_dataset(const std::string& path) {
  return parse_workload_dataset(read_json_file(path), path);
}

WorkloadDataset load_workload_datasets(const std::vector<std::string>& paths) {
  return load_merged<WorkloadDataset>(paths, load_workload_dataset);
}

}  // namespace ridgeline
