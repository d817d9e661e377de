// Runtime profiles: finding a preset or a file and reading it strictly; see runtime_profile.h.
// Presets are workloads/runtimes/*.json, built into the binary (embedded_files.h). Every key of
// a file is required except "learned_position_models", whose keys (any of "norm", "attention",
// "kv_cache", "mlp", "moe" with any of their keys) override the file's choices for models with
// learned position embeddings.
#include "workloads/runtime_profile.h"

#include "common/embedded_files.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "common/presets.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace ridgeline {

namespace {

constexpr std::string_view kRuntimeDir = "workloads/runtimes/";

template <class E>
using ChoiceTable = std::vector<std::pair<std::string, E>>;

// norm/impl: a one-kernel implementation, or transformers' decomposed LlamaRMSNorm.
struct NormChoice {
  RowImpl row = RowImpl::PyTorch;
  NormKernels kernels = NormKernels::OneKernel;
};
const ChoiceTable<NormChoice> kNormImpl = {
    {"aten", {RowImpl::PyTorch, NormKernels::OneKernel}},
    {"single_pass", {RowImpl::SinglePass, NormKernels::OneKernel}},
    {"hf_fp32_decomposed", {RowImpl::PyTorch, NormKernels::HfFp32Decomposed}}};
const ChoiceTable<RopeTables> kRopeTables = {
    {"cached", RopeTables::Cached},
    {"recomputed_per_forward", RopeTables::RecomputedPerForward},
    {"inline_per_forward", RopeTables::InlinePerForward}};
const ChoiceTable<AttentionMask> kMask = {{"none", AttentionMask::None},
                                          {"hf_sdpa", AttentionMask::HfSdpa},
                                          {"inductor_sdpa", AttentionMask::InductorSdpa}};
const ChoiceTable<ResidualAdd> kResidualAdd = {{"separate", ResidualAdd::Separate},
                                               {"fused_into_norm", ResidualAdd::FusedIntoNorm}};
const ChoiceTable<QkvProjection> kQkv = {{"separate", QkvProjection::Separate},
                                         {"fused", QkvProjection::Fused}};
const ChoiceTable<RopeImpl> kRope = {{"hf_rotate_half", RopeImpl::HfRotateHalf},
                                     {"fused", RopeImpl::Fused},
                                     {"inductor", RopeImpl::Inductor}};
const ChoiceTable<CacheUpdate> kCacheUpdate = {{"copy_per_kv", CacheUpdate::CopyPerKv},
                                               {"fused_with_rope", CacheUpdate::FusedWithRope},
                                               {"none", CacheUpdate::None},
                                               {"dynamic_cat", CacheUpdate::DynamicCat},
                                               {"static_index_copy", CacheUpdate::StaticIndexCopy}};
const ChoiceTable<CacheRead> kCacheRead = {{"dequantize_before", CacheRead::DequantizeBefore},
                                           {"in_kernel", CacheRead::InKernel}};
const ChoiceTable<GateUpProjection> kGateUp = {{"separate", GateUpProjection::Separate},
                                               {"fused", GateUpProjection::Fused}};
const ChoiceTable<MlpActivation> kActivation = {{"separate", MlpActivation::Separate},
                                                {"fused", MlpActivation::Fused}};
const ChoiceTable<MoeImpl> kMoe = {{"hf_grouped_mm", MoeImpl::HfGroupedMm},
                                   {"hf_batched_mm", MoeImpl::HfBatchedMm},
                                   {"fused_moe", MoeImpl::FusedMoe},
                                   {"megatron_te", MoeImpl::MegatronTe}};
const ChoiceTable<MlaImpl> kMla = {{"hf_expand_kv", MlaImpl::HfExpandKv},
                                   {"absorbed", MlaImpl::Absorbed}};

// "attention/backend" and --attention-backend: "sdpa" (PyTorch's pick) or an implementation.
std::vector<std::string> attention_backend_names() {
  std::vector<std::string> names = {"sdpa"};
  for (const auto& n : attention_impls().names()) names.push_back(n);
  return names;
}

// Reads `key` of `r` into `out` when present; a missing key is an error unless `optional`.
template <class E>
void read_choice(JsonReader& r, const std::string& key, const ChoiceTable<E>& table, E& out,
                 bool optional) {
  if (optional && !r.has(key)) return;
  std::vector<std::string> names;
  for (const auto& [name, value] : table) names.push_back(name);
  std::string got = r.one_of(key, names);
  for (const auto& [name, value] : table) {
    if (name == got) out = value;
  }
}

// The block choices of `r` (the file, or its "learned_position_models" object): every key
// required unless `optional`, where what is absent keeps its value in `c`.
void read_choices(JsonReader& r, BlockChoices& c, bool optional) {
  auto object = [&](const std::string& key) -> JsonReader* {
    return optional && !r.has(key) ? nullptr : &r.child(key);
  };
  if (JsonReader* n = object("norm")) {
    NormChoice norm{c.norm_impl, c.norm_kernels};
    read_choice(*n, "impl", kNormImpl, norm, optional);
    c.norm_impl = norm.row;
    c.norm_kernels = norm.kernels;
    read_choice(*n, "residual_add", kResidualAdd, c.residual_add, optional);
  }
  if (JsonReader* a = object("attention")) {
    read_choice(*a, "qkv_projection", kQkv, c.qkv_projection, optional);
    read_choice(*a, "rope", kRope, c.rope, optional);
    read_choice(*a, "rope_tables", kRopeTables, c.rope_tables, optional);
    read_choice(*a, "mask", kMask, c.mask, optional);
    read_choice(*a, "mla", kMla, c.mla, optional);
    // optional everywhere: a file without it runs what SDPA picks
    std::optional<AttentionImpl> backend = c.attention_impl;
    if (a->has("backend")) {
      std::string b = a->one_of("backend", attention_backend_names());
      backend = attention_impls().parse(b);  // "sdpa": unset
    }
    c.attention_impl = backend;
  }
  if (JsonReader* kv = object("kv_cache")) {
    read_choice(*kv, "update", kCacheUpdate, c.cache_update, optional);
    read_choice(*kv, "read", kCacheRead, c.cache_read, optional);
  }
  if (JsonReader* m = object("mlp")) {
    read_choice(*m, "gate_up_projection", kGateUp, c.gate_up, optional);
    read_choice(*m, "activation", kActivation, c.activation, optional);
  }
  if (JsonReader* moe = object("moe")) read_choice(*moe, "impl", kMoe, c.moe, optional);
}

// Choices that cannot go together.
void check_choices(const JsonReader& r, const BlockChoices& c, const std::string& at) {
  if (c.cache_update == CacheUpdate::FusedWithRope && c.rope != RopeImpl::Fused) {
    r.fail_at(at + "kv_cache/update",
              "\"fused_with_rope\" writes the cache from the fused RoPE kernel; it needs "
              "/attention/rope \"fused\"");
  }
  // Inductor's RoPE, tables and mask are one compiled set (inductor_kernels.cpp).
  bool inductor[] = {c.rope == RopeImpl::Inductor, c.rope_tables == RopeTables::InlinePerForward,
                     c.mask == AttentionMask::InductorSdpa};
  if (inductor[0] != inductor[1] || inductor[0] != inductor[2])
    r.fail_at(at + "attention",
              "rope \"inductor\", rope_tables \"inline_per_forward\" and mask "
              "\"inductor_sdpa\" are TorchInductor's compiled set; choose all three or none");
  if (inductor[0] && c.cache_update != CacheUpdate::None)
    r.fail_at(at + "kv_cache/update",
              "rope \"inductor\" writes the cache itself (K from its RoPE kernel); it needs "
              "\"none\"");
  if (c.norm_kernels == NormKernels::HfFp32Decomposed &&
      c.residual_add == ResidualAdd::FusedIntoNorm) {
    r.fail_at(at + "norm/residual_add",
              "\"fused_into_norm\" needs a one-kernel norm; /norm/impl \"hf_fp32_decomposed\" "
              "launches eight");
  }
}

// "host": {"eager_launch": "gpu_figure"} or {"eager_launch": "per_op_kind", "op_us": {...}},
// either with an optional "graph_replay_us" and "generate_setup_us".
void read_host(JsonReader& r, RuntimeProfile& p) {
  JsonReader& h = r.child("host");
  const ChoiceTable<HostCost> kinds = {{"gpu_figure", HostCost::GpuFigure},
                                       {"per_op_kind", HostCost::PerOpKind}};
  read_choice(h, "eager_launch", kinds, p.host, false);
  if (h.has("graph_replay_us")) p.graph_replay_us = h.non_negative("graph_replay_us");
  if (h.has("generate_setup_us")) p.generate_setup_us = h.non_negative("generate_setup_us");
  if (p.host == HostCost::GpuFigure) {
    if (h.has("op_us"))
      h.fail("op_us",
             "only with /host/eager_launch \"per_op_kind\" (\"gpu_figure\" takes the GPU "
             "description's launch/python_eager_us for every kernel)");
    return;
  }
  JsonReader& u = h.child("op_us");
  HostOpCosts& c = p.host_us;
  c.gemm_us = u.non_negative("gemm");
  c.attention_us = u.non_negative("attention");
  c.elementwise_us = u.non_negative("elementwise");
  c.reduction_us = u.non_negative("reduction");
  c.cache_update_us = u.non_negative("cache_update");
  c.moe_us = u.non_negative("moe");
  c.block_us = u.non_negative("per_block");
  c.forward_us = u.non_negative("per_forward");
}

// "launch": {"reduction": {"threads_per_block", "min_values_per_thread", "max_values_per_thread"},
// "row_kernels": {"blocks_per_sm"}}: how the runtime's library launches its reductions and its
// row kernels (the model's reduce_cost and ATen row-kernel cost read them).
void read_launch(JsonReader& r, KernelLaunch& l) {
  JsonReader& launch = r.child("launch");
  JsonReader& red = launch.child("reduction");
  l.reduction.threads_per_block = (double)red.integer("threads_per_block", 1);
  l.reduction.min_values_per_thread = (double)red.integer("min_values_per_thread", 1);
  l.reduction.max_values_per_thread = (double)red.integer("max_values_per_thread", 1);
  if (l.reduction.max_values_per_thread < l.reduction.min_values_per_thread)
    red.fail("max_values_per_thread",
             "must be at least /launch/reduction/min_values_per_thread (" +
                 std::to_string((long long)l.reduction.min_values_per_thread) + ")");
  l.rows.blocks_per_sm = (double)launch.child("row_kernels").integer("blocks_per_sm", 1);
}

// "learned": {"trace", "sha256", "match_score", "unmatched_kernels", "notes"}, which `ridgeline
// runtime learn` writes.
LearnedFrom read_learned(JsonReader& r) {
  LearnedFrom l;
  l.trace = r.string("trace");
  l.sha256 = r.string("sha256");
  if (l.sha256.size() != 64 || l.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    r.fail("sha256", "expected 64 lowercase hex digits");
  l.match_score = r.non_negative("match_score");
  if (l.match_score > 1) r.fail("match_score", "expected a score in [0, 1]");
  for (JsonReader& k : r.array_of_objects("unmatched_kernels")) {
    l.unmatched_kernels.push_back({k.string("name"), k.integer("count", 1)});
    k.finish();
  }
  const nlohmann::json& notes = r.raw("notes");
  if (!notes.is_array()) r.fail("notes", "expected an array of strings");
  for (const auto& n : notes) {
    if (!n.is_string()) r.fail("notes", "expected an array of strings");
    l.notes.push_back(n.get<std::string>());
  }
  return l;
}

std::string stem_of(const std::string& label) {
  size_t slash = label.find_last_of('/');
  std::string file = slash == std::string::npos ? label : label.substr(slash + 1);
  size_t dot = file.rfind(".json");
  return dot != std::string::npos && dot + 5 == file.size() ? file.substr(0, dot) : file;
}

RuntimeProfile from_document(const nlohmann::json& doc, const std::string& label) {
  JsonReader r(doc, label);
  RuntimeProfile p;
  p.name = stem_of(label);
  p.file = label;
  p.description = r.string("description");
  r.string("source");  // where the kernel list came from; for people
  read_choices(r, p.block, false);
  check_choices(r, p.block, "");
  p.reserved_bytes = r.child("memory").non_negative("reserved_bytes");
  read_host(r, p);
  read_launch(r, p.launch);
  p.learned_positions = p.block;
  if (r.has("learned_position_models")) {
    JsonReader& o = r.child("learned_position_models");
    read_choices(o, p.learned_positions, true);
    check_choices(r, p.learned_positions, "learned_position_models/");
  }
  if (r.has("learned")) p.learned = read_learned(r.child("learned"));
  r.finish();
  return p;
}

}  // namespace

const BlockChoices& RuntimeProfile::choices_for(const ModelConfig& m) const {
  return m.position == PositionKind::Learned ? learned_positions : block;
}

void select_cache_impl(RuntimeProfile& r, const std::string& impl, const std::string& flag) {
  auto transformers = [](CacheUpdate u) {
    return u == CacheUpdate::DynamicCat || u == CacheUpdate::StaticIndexCopy;
  };
  if (impl != "dynamic" && impl != "static")
    throw InputError(flag + ": expected dynamic or static, got \"" + impl + "\"");
  if (!transformers(r.block.cache_update) || !transformers(r.learned_positions.cache_update))
    throw InputError(flag + ": runtime " + r.name +
                     " does not use transformers' cache classes (its kv_cache/update is neither "
                     "dynamic_cat nor static_index_copy); use --runtime hf-transformers");
  CacheUpdate u = impl == "static" ? CacheUpdate::StaticIndexCopy : CacheUpdate::DynamicCat;
  r.block.cache_update = u;
  r.learned_positions.cache_update = u;
}

std::vector<std::string> runtime_preset_names() {
  return preset_names(kRuntimeDir);
}

RuntimeProfile load_runtime_text(const std::string& text, const std::string& label) {
  return from_document(parse_json_text(text, label), label);
}

void select_attention_backend(RuntimeProfile& r, const std::string& backend,
                              const std::string& flag) {
  std::vector<std::string> names = attention_backend_names();
  if (std::find(names.begin(), names.end(), backend) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw InputError(flag + " " + backend + ": unknown attention backend; expected one of " + list);
  }
  r.block.attention_impl = attention_impls().parse(backend);
  r.learned_positions.attention_impl = r.block.attention_impl;
}

RuntimeProfile load_runtime(const std::string& name_or_path) {
  if (looks_like_path(name_or_path))
    return from_document(read_json_file(name_or_path), name_or_path);
  const EmbeddedFile* f = find_preset(kRuntimeDir, name_or_path);
  if (!f) {
    std::string list;
    for (const auto& n : runtime_preset_names()) list += (list.empty() ? "" : ", ") + n;
    throw InputError(located("--runtime", "unknown runtime \"" + name_or_path + "\"; presets: " +
                                              list + " (or give a path to a runtime .json file)"));
  }
  return load_runtime_text(std::string(f->text), std::string(f->path));
}

const RuntimeProfile& default_runtime() {
  static const RuntimeProfile eager = load_runtime("pytorch-eager");
  return eager;
}

}  // namespace ridgeline
