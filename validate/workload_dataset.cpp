// Loading measured workload data sets; see workload_dataset.h. The measured models are
// Llama-3-8B-shaped (workloads/models/llama-3-8b.json): "blocks4" is 4 decoder blocks without
// embedding or head (--blocks 4), "llama-3-8b" the whole model, "llama-3-8b-8layers" the whole
// model cut to 8 layers (training fits on one GPU). Every field that sets the predicted run is
// required (errors name the file and JSON path): a record is never read as graph launch, batch 0
// or no optimizer because a key is missing.
#include "validate/workload_dataset.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "validate/dataset.h"
#include "validate/hf_dataset.h"

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

// The run a record measured. Every field that sets the prediction is required: a record that
// omits its launch mode, batch or lengths is an error, never graph launch or batch 0.
RunConfig run_of(JsonReader& r, const ModelConfig& model) {
  RunConfig run;
  std::string phase = r.has("phase") && r.raw("phase").is_string() ? r.string("phase") : "";
  if (phase == "prefill")
    run.phase = Phase::Prefill;
  else if (phase == "decode")
    run.phase = Phase::Decode;
  else if (phase == "train")
    run.phase = Phase::Train;
  else
    r.fail("phase", "expected prefill, decode or train");
  run.batch = r.integer("batch", 1);
  if (run.phase == Phase::Decode)
    run.kv_len = r.integer("kv_len", 1);
  else
    run.seq = r.integer("seq", 1);
  int64_t layers = r.integer("layers", 1);
  if (r.boolean("blocks_only")) {
    run.blocks = layers;
  } else if (layers != model.layers) {
    r.fail("layers", "the whole " + model.name + " has " + std::to_string(model.layers) +
                         " layers, not " + std::to_string(layers));
  }
  run.launch =
      r.one_of("mode", {"graph", "eager"}) == "eager" ? LaunchMode::Eager : LaunchMode::Graph;
  run.optimizer =
      r.one_of("optimizer", {"none", "adamw"}) == "adamw" ? Optimizer::AdamW : Optimizer::None;
  // Logits: none for a block stack, the last position's at inference, every position's in
  // training (as ridgeline predicts them).
  std::string logits = r.one_of("logits", {"none", "last", "all"});
  std::string expected = run.blocks ? "none" : run.phase == Phase::Train ? "all" : "last";
  if (logits != expected)
    r.fail("logits", "expected \"" + expected + "\" for this run (" + phase +
                         (run.blocks ? ", blocks only" : "") + "); others are not modelled");
  r.one_of("dtype", {"bf16"});  // the dtype of every measured run, ridgeline's default
  return run;
}

// measure_hf.py lists the cases its time budget left out in meta.skipped_ids.
bool is_skipped_id(const nlohmann::json& meta, const std::string& id) {
  if (!meta.contains("skipped_ids") || !meta["skipped_ids"].is_array()) return false;
  for (const auto& s : meta["skipped_ids"])
    if (s.is_string() && s.get<std::string>() == id) return true;
  return false;
}


// `given`: every record's runtime, or nullptr for the one each ran under.
WorkloadDataset parse_with(const nlohmann::json& doc, const std::string& label,
                           const RuntimeProfile* given) {
  WorkloadDataset d;
  d.file = label;
  if (!doc.is_object() || !doc.contains("records") || !doc["records"].is_array()) {
    throw InputError(located(label, "/records: missing; expected an array of measurements"));
  }
  if (!doc.contains("meta") || !doc["meta"].is_object())
    throw InputError(located(label, "/meta: missing; expected an object (device, method, date)"));
  d.meta = doc["meta"];
  const auto& records = doc["records"];
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    std::string path = "/records/" + std::to_string(i);
    std::string where = label + ": " + path;
    if (!r.is_object()) throw InputError(where + ": expected an object");
    JsonReader rec(r, label, path);
    std::string id = rec.string("id");
    if (is_skipped_id(d.meta, id)) {
      d.skipped.push_back(id + ": not run (the data set's /meta/skipped_ids)");
      continue;
    }
    if (rec.has("error")) {
      d.skipped.push_back(id + ": " + r["error"].dump().substr(0, 80));
      continue;
    }
    WorkloadMeasurement m;
    m.id = id;
    if (!rec.has("split") || !r["split"].is_string() ||
        (r["split"] != "fit" && r["split"] != "holdout"))
      rec.fail("split", "expected \"fit\" or \"holdout\"");
    m.split = rec.string("split");
    if (is_hf_record(r)) {  // transformers' own model code (measure_hf.py)
      HfRecord hf = read_hf_record(rec, id, m.split, where, given);
      if (!hf.skipped.empty()) d.skipped.push_back(id + ": " + hf.skipped);
      for (auto& w : hf.measurements) d.records.push_back(std::move(w));
      continue;
    }
    m.model = model_of(rec.string("model"), where);
    m.run = run_of(rec, m.model);
    m.run.runtime = given ? *given : default_runtime();
    // The measured model's RoPE table and cache cover the positions it ran (decode at kv 8192
    // attends over 8193, one past Llama-3-8B's max_position_embeddings).
    int64_t positions = m.run.phase == Phase::Decode ? m.run.kv_len + 1 : m.run.seq;
    m.model.max_positions = std::max(m.model.max_positions, positions);
    m.measured_us = rec.positive("median_ms") * 1000;
    m.category = std::string(phase_name(m.run.phase)) + "-" + launch_name(m.run.launch);
    d.records.push_back(std::move(m));
  }
  return d;
}

}  // namespace

WorkloadDataset parse_workload_dataset(const nlohmann::json& doc, const std::string& label,
                                       const RuntimeProfile& runtime) {
  return parse_with(doc, label, &runtime);
}

WorkloadDataset parse_workload_dataset_as_measured(const nlohmann::json& doc,
                                                   const std::string& label) {
  return parse_with(doc, label, nullptr);
}

WorkloadDataset load_workload_datasets_as_measured(const std::vector<std::string>& paths) {
  return load_merged<WorkloadDataset>(paths, [&](const std::string& p) {
    return parse_workload_dataset_as_measured(read_json_file(p), p);
  });
}

WorkloadDataset load_workload_dataset(const std::string& path, const RuntimeProfile& runtime) {
  return parse_workload_dataset(read_json_file(path), path, runtime);
}

WorkloadDataset load_workload_datasets(const std::vector<std::string>& paths,
                                       const RuntimeProfile& runtime) {
  return load_merged<WorkloadDataset>(
      paths, [&](const std::string& p) { return load_workload_dataset(p, runtime); });
}

}  // namespace ridgeline
