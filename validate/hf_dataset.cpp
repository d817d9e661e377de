// Reading measure_hf.py's records; see hf_dataset.h.
#include "validate/hf_dataset.h"

#include "common/errors.h"
#include "validate/hf_family_model.h"

#include <algorithm>

namespace ridgeline {

namespace {

// torch-compile's kernels (mask "inductor_sdpa"): the runtime compiled records are scored with.
bool inductor_runtime(const RuntimeProfile& r) {
  return r.block.mask == AttentionMask::InductorSdpa;
}

// Qwen1.5-MoE-A2.7B's shape as measure_hf.py builds it (ridgeline_measure/hf_models.py's
// Qwen2MoeConfig: transformers' defaults otherwise, Qwen1.5-MoE's norm_topk_prob false); 1.76 B
// parameters at 2 layers, as the records' "params" print.
constexpr const char* kQwen2MoeA27b = R"({"model_type": "qwen2_moe", "hidden_size": 2048,
  "num_attention_heads": 16, "num_key_value_heads": 16, "intermediate_size": 5632,
  "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632, "num_experts": 60,
  "num_experts_per_tok": 4, "vocab_size": 151936, "num_hidden_layers": 24,
  "max_position_embeddings": 16384, "decoder_sparse_step": 1, "mlp_only_layers": [],
  "norm_topk_prob": false, "tie_word_embeddings": false, "hidden_act": "silu"})";

// The model a record ran: the preset of the same shape cut to the record's layers (the meta's
// method says which: Llama-3-8B 8 or 32 layers, Mixtral-8x7B 2 layers, Qwen1.5-MoE-A2.7B 2
// layers).
ModelConfig hf_model(JsonReader& r) {
  std::string name = r.string("model");
  int64_t layers = r.integer("layers", 1);
  std::string preset;
  if (name == "hf-llama3-8b") preset = "llama-3-8b";
  if (name == "hf-mixtral-8x7b") preset = "mixtral-8x7b";
  if (preset.empty() && name != "hf-qwen2moe-a2.7b")
    r.fail("model", "unknown measured model \"" + name + "\"");
  ModelConfig m = preset.empty() ? load_model_text(kQwen2MoeA27b, "Qwen1.5-MoE-A2.7B (hf_dataset)")
                                 : load_model(preset);
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
                        const std::string&, const RuntimeProfile* given) {
  HfRecord out;
  std::string phase = r.one_of("phase", {"prefill", "decode", "generate", "train", "optimizer"});
  // compile: torch.compile mode "default"; compile-ro: mode "reduce-overhead" (CUDA graphs).
  std::string launch = r.one_of("launch", {"eager", "graph", "compile", "compile-ro"});
  bool compiled = launch == "compile" || launch == "compile-ro";
  static const RuntimeProfile kTransformers = load_runtime("hf-transformers");
  static const RuntimeProfile kCompile = load_runtime("torch-compile");
  const RuntimeProfile& runtime = given ? *given : compiled ? kCompile : kTransformers;
  bool inductor = inductor_runtime(runtime);
  if (phase == "optimizer") out.skipped = "an optimizer step alone is not a predicted workload";
  if (compiled && !inductor)
    out.skipped = "a torch.compile run is predicted with --runtime torch-compile";
  if (!compiled && inductor)
    out.skipped = "not a torch.compile run; --runtime torch-compile predicts compiled ones";
  // fp32amp: fp32 parameters, the forward under torch.autocast(bf16) (--master-weights fp32).
  bool amp = phase == "train" && r.one_of("precision", {"bf16", "fp32amp"}) == "fp32amp";
  bool family = is_family_record(r);  // measure_hf_families.py (hf_family_model.h)
  if (family && out.skipped.empty()) out.skipped = family_record_skip_reason(r);
  if (!out.skipped.empty()) return out;
  std::optional<ModelConfig> model =
      family ? family_record_model(r, out.skipped) : std::optional<ModelConfig>(hf_model(r));
  if (!model) return out;
  RunConfig run;
  run.runtime = runtime;
  run.phase = hf_phase(r, phase);
  run.batch = r.integer("batch", 1);
  // mode "default" launches every kernel from Inductor's Python wrapper: eager launch.
  run.launch = launch == "eager" || launch == "compile" ? LaunchMode::Eager : LaunchMode::Graph;
  if (run.phase == Phase::Decode)
    run.kv_len = r.integer("kv_len", 1);
  else
    run.seq = r.integer("seq", 1);
  if (run.phase == Phase::Train) {
    if (amp) run.master_weights = MasterWeights::Fp32;
    // gradient_checkpointing_enable(): each decoder layer's forward runs again in backward.
    run.recompute =
        r.one_of("ckpt", {"ckpt", "nockpt"}) == "ckpt" ? Recompute::Full : Recompute::None;
  } else {
    // dynamic_crop (family records): a DynamicCache cropped back after each step, as
    // measure_hf.py's "dynamic" decode is.
    std::string cache = r.one_of("cache", {"dynamic", "static", "dynamic_crop"});
    bool crop = cache == "dynamic_crop" || (cache == "dynamic" && !family);
    if (cache == "dynamic_crop") cache = "dynamic";
    CacheUpdate u = runtime.block.cache_update;
    if (inductor && cache == "static") run.cache_capacity = r.integer("max_cache_len", 1);
    if (u == CacheUpdate::DynamicCat || u == CacheUpdate::StaticIndexCopy) {
      select_cache_impl(run.runtime, cache, r.path() + "/cache");
      // measure_hf.py crops the DynamicCache back to kv_len after each timed decode step.
      run.cache_cropped = crop && run.phase == Phase::Decode;
      if (cache == "static") run.cache_capacity = r.integer("max_cache_len", 1);
    }
  }
  int64_t positions = std::max(step_positions(run), run.cache_capacity);
  if (phase == "generate") positions += r.integer("new_tokens", 1);
  model->max_positions = std::max(model->max_positions, positions);
  // Family records are scored per family (issue 14's target is a held-out MAPE per family).
  std::string category = family ? r.string("family") : phase + (amp ? "-fp32amp-" : "-") + launch;
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
