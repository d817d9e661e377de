// Choosing a runtime's kernels from a trace; see runtime_learn.h.
#include "validate/runtime_learn.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "common/presets.h"
#include "workloads/graph_builder.h"

#include <cmath>
#include <cstdio>

namespace ridgeline {

const std::vector<ChoiceDim>& runtime_choice_dims() {
  static const std::vector<ChoiceDim> dims = {
      {"/norm/impl", {"aten", "single_pass", "hf_fp32_decomposed"}},
      {"/norm/residual_add", {"separate", "fused_into_norm"}},
      {"/attention/qkv_projection", {"separate", "fused"}},
      {"/attention/rope", {"hf_rotate_half", "fused"}},
      {"/attention/rope_tables", {"cached", "recomputed_per_forward"}},
      {"/attention/mask", {"none", "hf_sdpa"}},
      {"/attention/mla", {"hf_expand_kv", "absorbed"}},
      {"/kv_cache/update",
       {"copy_per_kv", "fused_with_rope", "none", "dynamic_cat", "static_index_copy"}},
      {"/kv_cache/read", {"dequantize_before", "in_kernel"}},
      {"/mlp/gate_up_projection", {"separate", "fused"}},
      {"/mlp/activation", {"separate", "fused"}},
      {"/moe/impl", {"hf_grouped_mm", "fused_moe"}},
  };
  return dims;
}

nlohmann::json runtime_document(const std::string& name_or_path) {
  load_runtime(name_or_path);  // strict: a bad name or file fails here, naming it
  if (looks_like_path(name_or_path)) return read_json_file(name_or_path);
  const EmbeddedFile* f = find_preset("workloads/runtimes/", name_or_path);
  return parse_json_text(std::string(f->text), std::string(f->path));
}

namespace {

struct Evaluated {
  bool valid = false;
  double score = 0;
};

class Search {
 public:
  explicit Search(const LearnRequest& q) : q_(q), groups_(group_trace_kernels(q.kernels)) {}

  // The score of `doc` as a runtime; invalid when the parser or the builder refuses it.
  Evaluated evaluate(const nlohmann::json& doc, KernelMatch* match = nullptr,
                     RuntimeProfile* runtime = nullptr, OpGraph* graph = nullptr,
                     std::vector<StepKernel>* step = nullptr) {
    ++candidates_;
    try {
      RunConfig run = q_.run;
      run.runtime = load_runtime_text(doc.dump(), q_.base_name);
      check_run_config(run, q_.model);
      OpGraph g = build_graph(q_.model, run);
      std::vector<StepKernel> s = step_kernels(g);
      KernelMatch m = match_kernels(groups_, s);
      if (match) *match = m;
      if (runtime) *runtime = run.runtime;
      if (step) *step = std::move(s);
      if (graph) *graph = std::move(g);
      return {true, m.score};
    } catch (const InputError&) {
      ++refused_;
      return {};
    }
  }

  const std::vector<KernelGroup>& groups() const { return groups_; }
  int candidates() const { return candidates_; }
  int refused() const { return refused_; }

 private:
  const LearnRequest& q_;
  std::vector<KernelGroup> groups_;
  int candidates_ = 0, refused_ = 0;
};

// One pass over the choices: each dimension's best value with the others held. Returns whether
// any choice changed.
bool improve(Search& s, nlohmann::json& doc, double& score, std::vector<ChoiceResult>& results) {
  bool changed = false;
  const auto& dims = runtime_choice_dims();
  for (size_t d = 0; d < dims.size(); ++d) {
    ChoiceResult& r = results[d];
    if (r.fixed) continue;
    nlohmann::json::json_pointer at(dims[d].pointer);
    r.scores.clear();
    std::string best = doc.at(at).get<std::string>();
    for (const auto& v : dims[d].values) {
      nlohmann::json c = doc;
      c[at] = v;
      Evaluated e = s.evaluate(c);
      if (!e.valid) continue;
      r.scores.push_back({v, e.score});
      if (e.score > score + 1e-12) score = e.score, best = v, changed = true;
    }
    doc[at] = best;
    r.chosen = best;
    r.observable = false;
    r.only_valid = r.scores.size() == 1;
    for (const auto& [v, sc] : r.scores)
      if (std::abs(sc - r.scores.front().second) > 1e-12) r.observable = true;
  }
  return changed;
}

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * share);
  return buf;
}

}  // namespace

LearnResult learn_runtime(const LearnRequest& q) {
  Search s(q);
  nlohmann::json doc = q.base;
  std::vector<ChoiceResult> results;
  for (const auto& d : runtime_choice_dims()) {
    nlohmann::json::json_pointer at(d.pointer);
    if (!doc.contains(at) || !doc.at(at).is_string())
      throw InputError(q.base_name + ": " + d.pointer + ": missing (a base runtime names every " +
                       "choice)");
    ChoiceResult r;
    r.pointer = d.pointer;
    r.base = r.chosen = doc.at(at).get<std::string>();
    if (d.pointer == "/kv_cache/update" && q.cache_update) {
      doc[at] = r.chosen = *q.cache_update;
      r.fixed = true;
    }
    results.push_back(std::move(r));
  }
  // The base's overrides for models with learned positions do not carry over: the learned
  // choices are those of the traced model's kernels.
  doc.erase("learned_position_models");
  LearnResult out;
  Evaluated start = s.evaluate(doc);
  out.base_score = start.score;
  double score = start.valid ? start.score : -1;
  for (int pass = 0; pass < 4 && improve(s, doc, score, results); ++pass) {
  }
  Evaluated final = s.evaluate(doc, &out.match, &out.runtime, &out.graph, &out.step);
  if (!final.valid)
    throw InputError(q.trace_label + ": no runtime choice builds this step from " + q.base_name);
  out.doc = doc;
  out.choices = results;
  out.groups = s.groups();
  out.candidates = s.candidates();
  out.refused = s.refused();
  out.trace_kernels = q.kernels.size();
  for (const auto& p : out.match.pairs) out.matched_kernels += out.groups[p.group].kernels.size();
  double share = (double)out.matched_kernels / (double)std::max<size_t>(1, out.trace_kernels);
  if (share < kMinMatchedShare)
    throw InputError(q.trace_label + ": only " + percent(share) + " of its " +
                     std::to_string(out.trace_kernels) + " kernels match a part of " +
                     q.model.name + "'s " + phase_name(q.run.phase) +
                     " step under any runtime choice (at least " + percent(kMinMatchedShare) +
                     " needed); is it a trace of this --model and --phase?");
  return out;
}

}  // namespace ridgeline
