// Reading measure_hf.py's records; see hf_dataset.h.
#include "validate/hf_dataset.h"

#include "common/errors.h"
#include "workloads/hf_config.h"

#include <algorithm>

namespace ridgeline {

namespace {

// A record that carries its config (measure_hf_families.py: the transformers config the model
// was built from, layers reduced): that config, read as a config.json is, with its layer count
// checked against the record's.
ModelConfig recorded_model(JsonReader& r, const std::string& name, int64_t layers) {
  ModelConfig m = parse_hf_config(r.raw("config"), r.file() + ": " + r.path() + "/config");
  if (m.layers != layers) {
    r.fail("layers", std::to_string(layers) + " disagrees with config/num_hidden_layers (" +
                         std::to_string(m.layers) + ")");
  }
  m.name = name + "-L" + std::to_string(layers);
  m.source = r.file();
  return m;
}

// The model a record ran: its own config when it carries one, else the preset of the same shape
// cut to the record's layers (the meta's method says which: Llama-3-8B 8 or 32 layers,
// Mixtral-8x7B 2 layers).
std::optional<ModelConfig> hf_model(JsonReader& r, std::string& skipped) {
  std::string name = r.string("model");
  int64_t layers = r.integer("layers", 1);
  if (r.has("config")) {
    const nlohmann::json& c = r.raw("config");
    const auto& types = supported_model_types();
    if (c.contains("model_type") && c["model_type"].is_string() &&
        std::find(types.begin(), types.end(), c["model_type"].get<std::string>()) == types.end()) {
      skipped = "model_type " + c["model_type"].get<std::string>() +
                " is not imported (DeepSeek's "
                "MLA is the mla branch's, issue 14)";
      return std::nullopt;
    }
    return recorded_model(r, name, layers);
  }
  std::string preset;
  if (name == "hf-llama3-8b") preset = "llama-3-8b";
  if (name == "hf-mixtral-8x7b") preset = "mixtral-8x7b";
  if (name == "hf-qwen2moe-a2.7b") {
    skipped = "Qwen2-MoE (shared expert) is not imported yet (issue 14)";
    return std::nullopt;
  }
  if (preset.empty()) r.fail("model", "unknown measured model \"" + name + "\"");
  ModelConfig m = load_model(preset);
  m.layers = layers;
  m.name = name + "-L" + std::to_string(layers);
  return m;
}

Phase hf_phase(JsonReader& r, const std::string& phase) {
  if (phase == "prefill" || phase == "generate") return Phase::Prefill;
  if (phase == "decode") return Phase::Decode;
  if (phase == "train") return Phase::Train;
  r.fail("phase", "expected prefill, decode, generate, train or optimizer");
}

WorkloadMeasurement measurement(const std::string& id, const std::string& split,
                                const std::string& category, const ModelConfig& m,
                                const RunConfig& run, double measured_us) {
  WorkloadMeasurement w;
  w.id = id;
  w.split = split;
  w.category = category;
  w.model = m;
  w.run = run;
  w.measured_us = measured_us;
  return w;
}

}  // namespace

bool is_hf_record(const nlohmann::json& record) {
  return record.is_object() && record.contains("model") && record["model"].is_string() &&
         record["model"].get<std::string>().rfind("hf-", 0) == 0;
}

HfRecord read_hf_record(JsonReader& r, const std::string& id, const std::string& split,
                        const std::string&, const RuntimeProfile& runtime) {
  HfRecord out;
  std::string phase = r.one_of("phase", {"prefill", "decode", "generate", "train", "optimizer"});
  std::string launch = r.one_of("launch", {"eager", "graph", "compile"});
  if (phase == "optimizer") out.skipped = "an optimizer step alone is not a predicted workload";
  if (launch == "compile") out.skipped = "torch.compile is not modelled (runtime torch-compile)";
  if (phase == "train" && r.one_of("precision", {"bf16", "fp32amp"}) == "fp32amp")
    out.skipped = "fp32 master weights under autocast are not modelled (issue 11 part 3)";
  if (!out.skipped.empty()) return out;
  std::optional<ModelConfig> model = hf_model(r, out.skipped);
  if (!model) return out;
  RunConfig run;
  run.runtime = runtime;
  run.phase = hf_phase(r, phase);
  run.batch = r.integer("batch", 1);
  run.launch = launch == "eager" ? LaunchMode::Eager : LaunchMode::Graph;
  if (run.phase == Phase::Decode)
    run.kv_len = r.integer("kv_len", 1);
  else
    run.seq = r.integer("seq", 1);
  if (run.phase == Phase::Train) {
    // gradient_checkpointing_enable(): each decoder layer's forward runs again in backward.
    run.recompute =
        r.one_of("ckpt", {"ckpt", "nockpt"}) == "ckpt" ? Recompute::Full : Recompute::None;
  } else {
    bool families = r.has("family");  // measure_hf_families.py: crops only in "dynamic_crop"
    std::string cache = families ? r.one_of("cache", {"dynamic", "dynamic_crop", "static"})
                                 : r.one_of("cache", {"dynamic", "static"});
    if (families && cache == "dynamic" && run.phase == Phase::Decode) {
      // Decided on fit records: the same step on a cache that grows every step is 5-10x the
      // cropped one (qwen3-32b b16 62.4 vs 7.9 ms, qwen3-30b-a3b b1 67.4 vs 9.8, olmo2-7b b1
      // 40.9 vs 3.8), with the host as long as the device: not the step the model predicts.
      out.skipped =
          "a DynamicCache growing every timed step (not cropped): host-bound 5-10x "
          "beyond the cropped step on the fit records; the dynamic_crop record is scored";
      return out;
    }
    if (cache == "dynamic_crop") cache = "dynamic";
    CacheUpdate u = runtime.block.cache_update;
    if (u == CacheUpdate::DynamicCat || u == CacheUpdate::StaticIndexCopy) {
      select_cache_impl(run.runtime, cache, r.path() + "/cache");
      // measure_hf.py crops the DynamicCache back to kv_len after each timed decode step.
      run.cache_cropped = cache == "dynamic" && run.phase == Phase::Decode;
      if (cache == "static") run.cache_capacity = r.integer("max_cache_len", 1);
    }
  }
  int64_t positions = std::max(step_positions(run), run.cache_capacity);
  if (phase == "generate") positions += r.integer("new_tokens", 1);
  model->max_positions = std::max(model->max_positions, positions);
  // Families records are scored per family (issue 14's target is a MAPE per family).
  std::string category = r.has("family") ? r.string("family") : phase + "-" + launch;
  if (phase != "generate") {
    out.measurements.push_back(
        measurement(id, split, category, *model, run, r.positive("device_median_ms") * 1000));
    return out;
  }
  int64_t n = r.integer("new_tokens", 2);
  const char* metrics[] = {"ttft", "per_token", "total"};
  const GenerateMetric kinds[] = {GenerateMetric::Ttft, GenerateMetric::PerToken,
                                  GenerateMetric::Total};
  for (int i = 0; i < 3; ++i) {
    WorkloadMeasurement w =
        measurement(id + "/" + metrics[i], split, "generate-" + std::string(metrics[i]), *model,
                    run, r.child(metrics[i]).positive("median_ms") * 1000);
    w.generate = kinds[i];
    w.new_tokens = n;
    out.measurements.push_back(std::move(w));
  }
  return out;
}

}  // namespace ridgeline
