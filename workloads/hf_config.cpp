// Reading a Hugging Face config.json; see hf_config.h.
//
// Each supported model_type has a key table (hf_config_reader.h's Family): the keys that shape
// the kernels, which its reader reads into the ModelConfig, and the keys known to leave the cost
// alone (token ids, dropout, initialisation, RoPE constants, norm epsilons), which are accepted
// and ignored. Any other key is an error, because a key we do not know may be a quantization
// scheme, a cross-attention block or an attention window, and ignoring it would silently
// mis-model the run. The readers live in one file per group of families (hf_families_*.cpp);
// this file joins their tables and dispatches.
//
// Defaults. The shape keys and the activation are required: every config.json that
// transformers writes carries them (its diff-against-defaults serialisation always keeps
// model-specific keys). Keys that older configs predate (num_key_value_heads, head_dim,
// attention_bias, sliding_window, ...) take the default of that model_type's transformers
// config class, named where it is applied. For optional keys, null means what None means there.
#include "workloads/hf_config.h"

#include "common/errors.h"
#include "workloads/hf_config_reader.h"

#include <algorithm>

namespace ridgeline {

namespace {

using hf::Family;
using hf::Keys;

// Bookkeeping any config.json may carry. torch_dtype (dtype since transformers 4.56) is the
// checkpoint's storage type; ridgeline takes the run's dtype from the run, not the file. The
// second line is what PretrainedConfig.to_dict() adds (the measured records' configs): output
// switches and classification labels, none of which a causal LM's step reads.
const Keys kBookkeeping = {"_name_or_path",
                           "architectures",
                           "bos_token_id",
                           "eos_token_id",
                           "pad_token_id",
                           "torch_dtype",
                           "dtype",
                           "transformers_version",
                           "initializer_range",
                           "use_cache",
                           "tokenizer_class",
                           "task_specific_params",
                           "output_hidden_states",
                           "output_attentions",
                           "return_dict",
                           "id2label",
                           "label2id",
                           "problem_type",
                           "is_encoder_decoder"};

const std::vector<Family>& families() {
  static const std::vector<Family> all = [] {
    std::vector<Family> out;
    for (auto group : {hf::llama_families, hf::moe_families, hf::gemma_families,
                       hf::deepseek_families, hf::nemotron_families})
      for (auto& f : group()) out.push_back(std::move(f));
    return out;
  }();
  return all;
}

bool contains(const Keys& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

void reject_unknown_keys(JsonReader& r, const Family& f) {
  for (const auto& key : r.keys()) {
    if (key == "model_type" || key == "_ridgeline_source" || contains(f.read, key)) continue;
    if (contains(kBookkeeping, key) || contains(f.irrelevant, key)) {
      r.raw(key);  // accepted, ignored
      continue;
    }
    if (key == "chunk_size_feed_forward") {  // PretrainedConfig's; 0 runs the MLP unchunked
      if (r.integer(key, 0) != 0) r.fail(key, "chunked feed-forward is not modelled (give 0)");
      continue;
    }
    r.fail(key, "unsupported field that may change the model's cost (not among the " +
                    std::string(f.model_type) + " keys ridgeline knows)");
  }
}

}  // namespace

namespace hf {
std::string config_class(const std::string& model_type) {
  for (const auto& f : families())
    if (f.model_type == model_type) return std::string(f.config_class);
  return model_type;
}
}  // namespace hf

const std::vector<std::string>& supported_model_types() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : families()) out.emplace_back(f.model_type);
    return out;
  }();
  return names;
}

std::vector<ModelTypeKeys> model_config_keys() {
  std::vector<ModelTypeKeys> out;
  for (const auto& f : families()) {
    ModelTypeKeys k{std::string(f.model_type), {"model_type", "_ridgeline_source"}, {}};
    for (auto key : f.read) k.read.emplace_back(key);
    for (auto key : hf::join({kBookkeeping, f.irrelevant})) k.ignored.emplace_back(key);
    k.ignored.emplace_back("chunk_size_feed_forward");
    out.push_back(std::move(k));
  }
  return out;
}

const std::vector<std::string>& rope_scaling_keys() {
  return hf::all_rope_scaling_keys();
}

ModelConfig parse_hf_config(const nlohmann::json& doc, const std::string& label) {
  JsonReader r(doc, label);
  std::string type = r.string("model_type");
  const auto& all = families();
  auto f =
      std::find_if(all.begin(), all.end(), [&](const Family& x) { return x.model_type == type; });
  if (f == all.end()) {
    std::string list;
    for (const auto& t : supported_model_types()) list += (list.empty() ? "" : ", ") + t;
    r.fail("model_type", "unsupported model_type \"" + type + "\"; supported: " + list);
  }
  reject_unknown_keys(r, *f);
  ModelConfig m;
  m.family = type;
  if (hf::given(r, "_ridgeline_source")) m.provenance = r.string("_ridgeline_source");
  f->reader(r, m);
  r.finish();  // a key in a table but not read by its reader would be a bug; this catches it
  return m;
}

}  // namespace ridgeline
