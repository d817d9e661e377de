// `ridgeline runtime learn --trace trace.json[.gz] --model M --phase P [sizes ...] --out R.json`:
// reads a PyTorch profiler trace of the user's own framework, picks the runtime choices whose
// kernel list best matches the trace's kernels (validate/runtime_learn.h), the host costs per op
// kind from the trace's CPU ops (validate/host_learn.h), and writes a runtime file that predict,
// sweep, serve and validate take with --runtime. `ridgeline runtime show R` lists a runtime's
// choices and, for a learned one, where it came from.
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/predict_options.h"
#include "cli/views/runtime_learn_view.h"
#include "common/errors.h"
#include "validate/host_learn.h"
#include "validate/runtime_learn.h"
#include "validate/trace_file.h"
#include "validate/trace_shapes.h"

#include <iostream>
#include <map>
#include <memory>

namespace ridgeline {

namespace {

struct LearnOptions {
  PredictOptions workload;
  std::string trace, out;
  double host_step_us = 0;
};

std::string workload_text(const ModelConfig& m, const RunConfig& run) {
  std::string s = m.name + " " + phase_name(run.phase) + ", batch " + std::to_string(run.batch);
  if (run.seq > 0) s += ", seq " + std::to_string(run.seq);
  if (run.kv_len > 0) s += ", kv " + std::to_string(run.kv_len);
  return s;
}

// Kineto writes these; a Chrome trace from elsewhere (ridgeline's own --trace) has neither.
void check_pytorch_trace(const nlohmann::json& t, const std::string& path) {
  if (!t.is_object() || !t.contains("traceEvents"))
    throw InputError(path +
                     ": /traceEvents: missing; not a PyTorch profiler trace (write one "
                     "with torch.profiler's export_chrome_trace)");
  if (!t.contains("schemaVersion") && !t.contains("deviceProperties"))
    throw InputError(path +
                     ": not a PyTorch profiler trace (no /schemaVersion or "
                     "/deviceProperties, which the PyTorch profiler writes)");
}

std::vector<std::pair<std::string, long long>> unmatched_names(const LearnResult& r,
                                                               const std::vector<TraceKernel>& k) {
  std::map<std::string, long long> n;
  for (size_t g : r.match.unmatched_groups)
    for (size_t i : r.groups[g].kernels) n[k[i].name]++;
  std::vector<std::pair<std::string, long long>> out(n.begin(), n.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

nlohmann::json learned_doc(const LearnResult& r, const HostLearn& h, const LearnReport& rep) {
  nlohmann::json doc = r.doc;
  doc["description"] = "Learned by ridgeline runtime learn from " + rep.trace + " (" +
                       rep.workload + "), base " + rep.base;
  doc["source"] = "the kernels of the PyTorch profiler trace " + rep.trace;
  if (h.learned) {
    const HostOpCosts& c = h.costs;
    auto r2 = [](double x) { return std::round(x * 100) / 100; };
    // The learned launch costs replace the base's; its other host figures (graph_replay_us) stay.
    doc["host"]["eager_launch"] = "per_op_kind";
    doc["host"]["op_us"] = {{"gemm", r2(c.gemm_us)},
                            {"attention", r2(c.attention_us)},
                            {"elementwise", r2(c.elementwise_us)},
                            {"reduction", r2(c.reduction_us)},
                            {"cache_update", r2(c.cache_update_us)},
                            {"moe", r2(c.moe_us)},
                            {"per_block", r2(c.block_us)},
                            {"per_forward", r2(c.forward_us)}};
  }
  nlohmann::json unmatched = nlohmann::json::array();
  for (const auto& [name, n] : rep.unmatched) unmatched.push_back({{"name", name}, {"count", n}});
  nlohmann::json notes = nlohmann::json::array();
  notes.push_back("host costs: " + h.note);
  for (const auto& c : r.choices)
    if (!c.observable && !c.fixed && !c.only_valid)
      notes.push_back(c.pointer + ": not seen in this trace, kept from the base");
  doc["learned"] = {{"trace", rep.trace},
                    {"sha256", rep.sha256},
                    {"match_score", std::round(r.match.score * 10000) / 10000},
                    {"unmatched_kernels", unmatched},
                    {"notes", notes}};
  return doc;
}

int run_learn(const LearnOptions& o, const CLI::App& cmd) {
  PredictOptions w = o.workload;
  std::optional<std::string> cache;
  if (!w.kv_cache_impl.empty())
    cache = w.kv_cache_impl == "static" ? "static_index_copy" : "dynamic_cat";
  w.kv_cache_impl.clear();  // fixes kv_cache/update instead of editing the base
  if (cmd.count("--host-step-us") && !(o.host_step_us > 0))
    throw InputError("--host-step-us: expected a positive number of microseconds");
  OutputFile out("--out", o.out);
  TraceFile file = read_trace_file(o.trace);
  check_pytorch_trace(file.json, o.trace);
  LearnRequest q;
  q.kernels = read_trace_kernels(file.json, o.trace);
  q.trace_label = o.trace;
  q.model = load_model(w.model);
  q.run = run_config_from(w);
  q.run.launch = LaunchMode::Eager;
  q.base = runtime_document(w.runtime);
  q.base_name = w.runtime;
  q.cache_update = cache;
  LearnReport rep;
  rep.shapes = check_trace_shapes(read_trace_shapes(file.json), q.run, o.trace);
  LearnResult r = learn_runtime(q);
  HostLearn h =
      learn_host_costs(file.json, q.kernels, r.groups, r.match, r.step, r.graph, o.host_step_us);
  rep.trace = o.trace;
  rep.sha256 = file.sha256;
  rep.base = w.runtime;
  rep.out = o.out;
  rep.workload = workload_text(q.model, q.run);
  rep.result = &r;
  rep.host = &h;
  rep.unmatched = unmatched_names(r, q.kernels);
  nlohmann::json doc = learned_doc(r, h, rep);
  load_runtime_text(doc.dump(), o.out);  // the file must read back strictly
  out.stream() << doc.dump(2) << "\n";
  out.commit();
  print_learn_report(std::cout, rep);
  return 0;
}

}  // namespace

Command add_runtime_command(CLI::App& app) {
  CLI::App* cmd =
      app.add_subcommand("runtime", "Learn a runtime profile from a trace, or show one");
  cmd->require_subcommand(1);
  auto o = std::make_shared<LearnOptions>();
  CLI::App* learn = cmd->add_subcommand(
      "learn", "Write a runtime profile whose kernels match a PyTorch profiler trace");
  learn->add_option("--trace", o->trace, "PyTorch profiler trace (.json or .json.gz) of the step")
      ->required();
  learn->add_option("--out", o->out, "The runtime file to write")->required();
  learn->add_option("--host-step-us", o->host_step_us,
                    "The traced step's host time without the profiler, to scale the profiled CPU "
                    "costs by (default: as profiled)");
  add_workload_flags(*learn, o->workload, true);
  learn->remove_option(learn->get_option("--launch"));  // the trace's CPU side says how it ran
  learn->get_option("--runtime")
      ->description(
          "Base runtime whose settings the trace cannot show are kept (default "
          "pytorch-eager)");
  auto name = std::make_shared<std::string>();
  CLI::App* show = cmd->add_subcommand("show", "List a runtime's choices and provenance");
  show->add_option("runtime", *name, "A runtime preset or file")->required();
  return [=]() {
    if (learn->parsed()) return run_learn(*o, *learn);
    RuntimeProfile rt = load_runtime(*name);
    print_runtime_show(std::cout, rt, runtime_document(*name));
    (void)show;
    return 0;
  };
}

}  // namespace ridgeline
