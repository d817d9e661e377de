// Reading engine files (see engine.h). Each policy's own keys are read only for that policy, so
// a key that does not apply (a safety margin on vLLM) is an unknown key, not a silent no-op.
#include "serve/engine.h"

#include "common/errors.h"
#include "common/presets.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

constexpr const char* kDir = "serve/engines/";

void read_scheduler(JsonReader& s, EngineConfig& e) {
  e.policy = s.one_of("policy", {"vllm_v1", "trtllm", "sglang", "hf_cb"});
  if (s.has("limits")) {  // trtllm-bench sizes them from the workload (trtllm_bench.h)
    s.one_of("limits", {"trtllm_bench"});
    if (e.policy != "trtllm") s.fail("limits", "trtllm_bench applies to the trtllm policy only");
    for (const char* k : {"max_num_batched_tokens", "max_num_seqs"})
      if (s.has(k)) s.fail(k, "set by \"limits\": \"trtllm_bench\" from the workload; not both");
    e.limits_from_workload = true;
  } else {
    e.max_num_batched_tokens = s.integer("max_num_batched_tokens", 1);
    e.max_num_seqs = s.integer("max_num_seqs", 1);
  }
  e.chunked_prefill = s.boolean("chunked_prefill");
  if (e.policy == "trtllm")
    e.capacity_policy = s.one_of("capacity_policy", {"guaranteed_no_evict"});
  if (e.policy == "hf_cb") {
    e.safety_margin = s.number("safety_margin");
    if (e.safety_margin < 0 || e.safety_margin >= 1)
      s.fail("safety_margin", "expected a fraction in [0, 1)");
  }
  if (e.policy == "sglang") {
    JsonReader& g = s.child("new_token_ratio");
    e.sglang.init_new_token_ratio = g.fraction("init");
    e.sglang.min_ratio_fraction = g.fraction("min_fraction_of_init");
    e.sglang.decay_steps = g.integer("decay_steps", 1);
    e.sglang.clip_max_new_tokens = g.integer("clip_max_new_tokens", 1);
    e.sglang.mixed_chunk = s.boolean("mixed_chunk");
  }
}

void read_kv(JsonReader& k, EngineConfig& e) {
  e.block_size_tokens = k.integer("block_size_tokens", 1);
  std::string memory =
      k.one_of("memory", {"fraction_of_total", "fraction_of_free", "sglang_reserved"});
  e.memory_rule = memory == "fraction_of_total"  ? KvMemoryRule::FractionOfTotal
                  : memory == "fraction_of_free" ? KvMemoryRule::FractionOfFree
                                                 : KvMemoryRule::SglangReserved;
  if (e.memory_rule == KvMemoryRule::SglangReserved) {
    JsonReader& r = k.child("reserved");
    SglangReserved& s = e.sglang_reserved;
    s.base_mib = r.non_negative("base_MiB");
    s.chunk_tokens = r.integer("chunk_tokens", 1);
    s.min_chunk_tokens = r.integer("min_chunk_tokens", 0);
    s.mib_per_chunk_token = r.non_negative("MiB_per_chunk_token");
    s.cuda_graph_max_bs = r.integer("cuda_graph_max_bs", 0);
    s.cuda_graph_max_bs_tp4 = r.integer("cuda_graph_max_bs_tp4", 0);
    s.mib_per_graph_bs = r.non_negative("MiB_per_graph_bs");
    s.mib_per_8_gpus = r.non_negative("MiB_per_8_gpus");
    s.mib_per_graph_bs_dp_rank = r.non_negative("MiB_per_graph_bs_dp_rank");
    s.mib_per_large_graph_bs_dp_rank = r.non_negative("MiB_per_large_graph_bs_dp_rank");
    s.large_graph_bs = r.integer("large_graph_bs", 0);
    s.floor_mib = r.non_negative("floor_MiB");
    s.floor_above_gpu_mib = r.non_negative("floor_above_gpu_MiB");
  } else {
    e.memory_fraction = k.fraction("memory_fraction");
  }
  e.subtract_activation_peak = k.boolean("subtract_activation_peak");
  e.max_blocks = k.integer("max_blocks", 0);
  e.prefix_caching = k.boolean("prefix_caching");
  if (e.prefix_caching && e.policy != "vllm_v1")
    k.fail("prefix_caching", "modelled for the vllm_v1 policy only");
  e.kv_dtype = k.one_of("dtype", {"weights", "activations"}) == "weights"
                   ? KvDtypeRule::Weights
                   : KvDtypeRule::Activations;
}

void read_graphs(JsonReader& r, EngineConfig& e) {
  if (r.raw("cuda_graphs").is_null()) return;
  JsonReader& g = r.child("cuda_graphs");
  const nlohmann::json& sizes = g.raw("sizes");
  if (!sizes.is_array()) g.fail("sizes", "expected an array of batch sizes");
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!sizes[i].is_number_integer() || sizes[i].get<int64_t>() < 1 ||
        (!e.graph_sizes.empty() && sizes[i].get<int64_t>() <= e.graph_sizes.back()))
      g.fail_at("sizes/" + std::to_string(i), "expected ascending whole numbers >= 1");
    e.graph_sizes.push_back(sizes[i].get<int64_t>());
  }
  int64_t step = g.integer("step", 1), most = g.integer("max_batch_size", 1);
  int64_t next = e.graph_sizes.empty() ? step : (e.graph_sizes.back() / step + 1) * step;
  for (; next <= most; next += step) e.graph_sizes.push_back(next);
}

}  // namespace

double SglangReserved::fraction(double gpu_bytes, int64_t gpus, int64_t stages,
                                int64_t dp_ranks) const {
  double gpu_mib = gpu_bytes / (1024.0 * 1024.0);
  int64_t tp = gpus / std::max<int64_t>(stages, 1);
  int64_t graph_bs = tp >= 4 ? cuda_graph_max_bs_tp4 : cuda_graph_max_bs;
  double reserved = base_mib +
                    (double)std::max(chunk_tokens, min_chunk_tokens) * mib_per_chunk_token +
                    (double)graph_bs * mib_per_graph_bs + (double)gpus / 8.0 * mib_per_8_gpus;
  if (dp_ranks > 1) {
    reserved += (double)(graph_bs * dp_ranks) * mib_per_graph_bs_dp_rank;
    if (graph_bs > large_graph_bs)
      reserved += (double)(graph_bs * dp_ranks) * mib_per_large_graph_bs_dp_rank;
  }
  if (gpu_mib > floor_above_gpu_mib) reserved = std::max(reserved, floor_mib);
  return std::round((gpu_mib - reserved) / gpu_mib * 1000.0) / 1000.0;
}

ModelConfig engine_model(const EngineConfig& engine, ModelConfig model) {
  if (engine.uniform_window_full && model.layer_kinds.empty()) model.sliding_window = 0;
  return model;
}

RunConfig engine_precisions(DType weights, const EngineConfig& engine) {
  RunConfig r;
  r.weights = weights;
  r.activations = weights == DType::Fp8 || weights == DType::Fp4 ? DType::Bf16 : weights;
  r.kv_cache = engine.kv_cache_dtype(r.weights, r.activations);
  return r;
}

int64_t EngineConfig::padded_batch(int64_t n) const {
  auto it = std::lower_bound(graph_sizes.begin(), graph_sizes.end(), n);
  return it == graph_sizes.end() ? n : *it;
}

namespace {

EngineConfig load_engine_doc(const nlohmann::json& doc, const std::string& label) {
  if (!doc.is_object()) throw InputError(label + ": expected a JSON object");
  JsonReader r(doc, label);
  EngineConfig e;
  std::string base = label.substr(label.find_last_of('/') + 1);
  e.name = base.ends_with(".json") ? base.substr(0, base.size() - 5) : base;
  e.file = label;
  e.description = r.string("description");
  e.source = r.string("source");
  e.runtime = r.string("runtime");
  e.graph_launch = r.one_of("launch", {"graph", "eager"}) == "graph";
  read_scheduler(r.child("scheduler"), e);
  read_kv(r.child("kv_cache"), e);
  read_graphs(r, e);
  JsonReader& h = r.child("host");
  e.host_overhead_us = h.non_negative("overhead_us_per_step");
  e.host_source = h.string("source");
  if (r.has("attention")) {
    JsonReader& a = r.child("attention");
    e.packed_attention =
        a.has("layout") && a.one_of("layout", {"per_request", "packed_masked"}) == "packed_masked";
    if (a.has("uniform_sliding_window"))
      e.uniform_window_full = a.one_of("uniform_sliding_window", {"model", "full"}) == "full";
    if (a.has("kv_padding_tokens")) {
      if (!e.packed_attention)
        a.fail("kv_padding_tokens", "pads a packed_masked layout's keys only");
      e.kv_padding_tokens = a.integer("kv_padding_tokens", 1);
    }
    a.string("source");
  }
  r.finish();
  return e;
}

}  // namespace

EngineConfig load_engine_text(const std::string& text, const std::string& label) {
  return load_engine_doc(parse_json_text(text, label), label);
}

EngineConfig load_engine(const std::string& name_or_path) {
  if (looks_like_path(name_or_path)) {
    return load_engine_doc(read_json_file(name_or_path), name_or_path);
  }
  const EmbeddedFile* f = find_preset(kDir, name_or_path);
  if (!f)
    throw InputError("--engine " + name_or_path + ": unknown engine (known: " +
                     joined_names(engine_preset_names()) + "; or a path to an engine .json)");
  return load_engine_text(std::string(f->text), std::string(f->path));
}

std::vector<std::string> engine_preset_names() {
  return preset_names(kDir);
}

}  // namespace ridgeline
