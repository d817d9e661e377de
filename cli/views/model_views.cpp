// Views of model configs; see model_views.h. Parameters print in billions (as model cards
// quote them) with the exact count beside them in `show` and in JSON.
#include "cli/views/model_views.h"

#include "cli/views/views.h"

#include <iomanip>

namespace ridgeline {

namespace {

std::string billions(int64_t n) {
  return fixed((double)n / 1e9, n < 10'000'000'000 ? 2 : 1);
}

std::string heads(const ModelConfig& m) {
  return std::to_string(m.heads) + "/" + std::to_string(m.kv_heads);
}

std::string experts(const ModelConfig& m) {
  if (m.moe.experts == 0) return "-";
  return std::to_string(m.moe.experts) + "/" + std::to_string(m.moe.top_k);
}

// A figure's value as JSON: numbers as numbers, yes/no as booleans, the rest as printed.
nlohmann::ordered_json figure_value(const std::string& v) {
  if (v == "yes" || v == "no") return v == "yes";
  bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
  if (digits) return std::stoll(v);
  bool decimal = !v.empty() && v.find_first_not_of("0123456789.") == std::string::npos &&
                 v.find('.') == v.rfind('.') && v.front() != '.' && v.back() != '.';
  if (decimal) return std::stod(v);
  return v;
}

nlohmann::ordered_json summary_json(const ModelSummary& s) {
  const ModelConfig& m = s.config;
  nlohmann::ordered_json j;
  j["name"] = m.name;
  j["family"] = m.family;
  j["layers"] = m.layers;
  j["hidden"] = m.hidden;
  j["heads"] = m.heads;
  j["kv_heads"] = m.kv_heads;
  j["experts"] = m.moe.experts;
  j["top_k"] = m.moe.top_k;
  j["context"] = m.max_positions;
  j["parameters"] = s.parameters;
  j["active_parameters"] = s.active_parameters;
  j["file"] = m.source;
  return j;
}

}  // namespace

void print_model_list(std::ostream& os, const std::vector<ModelSummary>& models) {
  os << std::left << std::setw(18) << "name" << std::setw(13) << "family" << std::right
     << std::setw(7) << "layers" << std::setw(8) << "hidden" << std::setw(10) << "heads/kv"
     << std::setw(12) << "experts/k" << std::setw(10) << "context" << std::setw(10) << "params B"
     << std::setw(10) << "active B"
     << "\n";
  for (const auto& s : models) {
    const ModelConfig& m = s.config;
    os << std::left << std::setw(18) << m.name << std::setw(13) << m.family << std::right
       << std::setw(7) << m.layers << std::setw(8) << m.hidden << std::setw(10) << heads(m)
       << std::setw(12) << experts(m) << std::setw(10) << m.max_positions << std::setw(10)
       << billions(s.parameters) << std::setw(10) << billions(s.active_parameters) << "\n";
  }
}

nlohmann::ordered_json model_list_json(const std::vector<ModelSummary>& models) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& s : models) j.push_back(summary_json(s));
  return j;
}

void print_model_show(std::ostream& os, const ModelSummary& s) {
  const ModelConfig& m = s.config;
  os << m.name << ": model_type " << m.family << "\nfrom " << m.source << "\n";
  if (!m.provenance.empty()) os << "source: " << m.provenance << "\n";
  os << "\n"
     << std::left << std::setw(25) << "figure" << std::setw(24) << "value"
     << "from config.json\n";
  for (const auto& f : model_figures(m)) {
    os << "  " << std::setw(23) << f.name << std::setw(24) << f.value << f.source << "\n";
  }
  os << std::right << "\nparameters        " << billions(s.parameters) << " B total ("
     << s.parameters << "), " << billions(s.active_parameters) << " B active per token ("
     << s.active_parameters << ")\n";
  os << "  one decoder block " << fixed((double)s.block_parameters / 1e6, 1) << " M ("
     << s.block_parameters << ")\n";
  os << "KV cache per token " << human_bytes(s.kv_bytes_per_token_bf16) << " in bf16 ("
     << fixed(s.kv_bytes_per_token_bf16, 0) << " B), " << human_bytes(s.kv_bytes_per_token_fp8)
     << " in fp8 (" << fixed(s.kv_bytes_per_token_fp8, 0) << " B)\n";
}

nlohmann::ordered_json model_show_json(const ModelSummary& s) {
  const ModelConfig& m = s.config;
  nlohmann::ordered_json j = summary_json(s);
  j["provenance"] = m.provenance;
  for (const auto& f : model_figures(m)) {
    j["figures"][f.name] = {{"value", figure_value(f.value)}, {"source", f.source}};
  }
  j["block_parameters"] = s.block_parameters;
  j["kv_cache_bytes_per_token"] = {{"bf16", s.kv_bytes_per_token_bf16},
                                   {"fp8", s.kv_bytes_per_token_fp8}};
  return j;
}

}  // namespace ridgeline
