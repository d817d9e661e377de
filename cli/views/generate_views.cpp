// Views of a generate() prediction; see generate_views.h.
//
//   llama-3-8b generate on h200-sxm: prompt 2048 tokens, 128 new tokens, batch 1
//   time to first token  ...   per token  ...   total  ...
#include "cli/views/generate_views.h"

#include "cli/views/predict_views.h"
#include "cli/views/views.h"

#include <nlohmann/json.hpp>

namespace ridgeline {

namespace {

nlohmann::ordered_json inputs_json(const GenerateSteps& g) {
  nlohmann::ordered_json j = prediction_inputs_json(g.prefill);
  j["phase"] = "generate";
  j["new_tokens"] = g.new_tokens;
  return j;
}

}  // namespace

void print_generate_table(std::ostream& os, const GenerateSteps& g) {
  const Prediction& p = g.prefill;
  os << p.model << " generate on " << p.gpu << ": prompt " << p.run.seq << " tokens, "
     << g.new_tokens << " new tokens, batch " << p.run.batch << ", " << runtime_name(p.run.runtime)
     << ", " << launch_name(p.run.launch) << " launch (profile " << p.gpu_profile << ")\n";
  os << "precision  " << precision_line(p.run) << "\n";
  if (!p.what_ifs.empty()) os << "what-ifs   " << what_if_line(p.what_ifs) << "\n";
  os << "time to first token  " << human_us(g.times.ttft_us) << "   (";
  if (p.run.runtime.generate_setup_us > 0)
    os << "generate() setup " << human_us(p.run.runtime.generate_setup_us) << ", then ";
  os << "prefill of " << p.run.seq << " tokens, " << p.kernels << " kernels)\n";
  if (g.decode)
    os << "per token            " << human_us(g.times.per_token_us) << "   (decode over "
       << g.decode_kv_first << ".." << g.decode_kv_last << " cached tokens, priced at "
       << g.decode->run.kv_len << "; " << g.decode->kernels << " kernels)\n";
  else
    os << "per token            -   (one new token: the prefill alone)\n";
  os << "total                " << human_us(g.times.total_us) << "   " << fixed(g.tokens_per_s, 0)
     << " new tokens/s\n";
  const MemoryFootprint& m = g.memory;
  os << "memory (last step)   " << human_bytes(m.total()) << " of " << human_bytes(m.capacity_bytes)
     << (m.fits() ? " (fits)" : " (DOES NOT FIT)") << "; KV cache " << human_bytes(m.kv_cache_bytes)
     << "\n";
}

void print_generate_json(std::ostream& os, const GenerateSteps& g) {
  const Prediction& p = g.prefill;
  nlohmann::ordered_json j;
  j["gpu"] = p.gpu;
  j["profile"] = p.gpu_profile;
  j["model"] = p.model;
  j["phase"] = "generate";
  j["launch"] = launch_name(p.run.launch);
  j["runtime"] = runtime_name(p.run.runtime);
  j["inputs"] = inputs_json(g);
  j["ttft_us"] = g.times.ttft_us;
  j["generate_setup_us"] = g.prefill.run.runtime.generate_setup_us;
  j["per_token_us"] = g.times.per_token_us;
  j["total_us"] = g.times.total_us;
  j["tokens_per_s"] = g.tokens_per_s;
  j["prefill"] = {{"total_us", p.total_us}, {"kernels", p.kernels}};
  if (g.decode)
    j["decode"] = {{"kv_len_first", g.decode_kv_first},
                   {"kv_len_last", g.decode_kv_last},
                   {"kv_len_priced", g.decode->run.kv_len},
                   {"step_us", g.decode->total_us},
                   {"kernels", g.decode->kernels}};
  j["memory"] = {{"kv_cache_bytes", g.memory.kv_cache_bytes},
                 {"total_bytes", g.memory.total()},
                 {"capacity_bytes", g.memory.capacity_bytes},
                 {"fits", g.memory.fits()}};
  os << j.dump(2) << "\n";
}

void print_generate_csv(std::ostream& os, const GenerateSteps& g) {
  // The run's inputs as comment lines (pandas: read_csv(..., comment="#")), then one row.
  const nlohmann::ordered_json inputs = inputs_json(g);
  for (auto it = inputs.begin(); it != inputs.end(); ++it)
    os << "# " << it.key() << "," << (it->is_string() ? it->get<std::string>() : it->dump())
       << "\n";
  os << "ttft_us,per_token_us,total_us,tokens_per_s,memory_bytes,fits\n";
  os << exact(g.times.ttft_us) << "," << exact(g.times.per_token_us) << ","
     << exact(g.times.total_us) << "," << exact(g.tokens_per_s) << "," << exact(g.memory.total())
     << "," << (g.memory.fits() ? "true" : "false") << "\n";
}

}  // namespace ridgeline
