// `ridgeline report KIND <KIND's flags> --out report.html`: one self-contained HTML page of a
// prediction, sweep, validation, strategy search or serving run, with Vega-Lite charts.
//   ridgeline report predict --gpu h100-sxm --model llama-3-8b --phase decode --batch 32
//       --kv-len 2048 --out report.html
//   ridgeline report sweep --model llama-3-8b --phase decode --kv-len 2048 --batches 1,8,64 --out
//   s.html
// Each KIND is the command of that name, with its own flags and checks: report registers the
// same subcommand under itself, runs it with --format json and reads that document (so the page
// shows exactly the numbers `KIND --format json` prints), then adds the GPU's roofs and the
// held-out accuracy of the categories involved (validate/accuracy_baseline*.json).
#include "cli/commands.h"
#include "cli/cout_capture.h"
#include "cli/output_file.h"
#include "cli/report/chart_assets.h"
#include "cli/views/report_html.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_load.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace ridgeline {

namespace {

std::vector<std::string> results(const CLI::App& sub, const std::string& flag) {
  const CLI::Option* o = sub.get_option_no_throw(flag);
  return o ? o->results() : std::vector<std::string>{};
}

// The run's --format becomes json; a --format the user gave is refused (a report is HTML).
void force_json(CLI::App& sub) {
  CLI::Option* f = sub.get_option("--format");
  if (f->count() > 0)
    throw InputError("--format: a report is an HTML page (--out FILE); leave --format out");
  f->clear();
  f->add_result("json");
  f->run_callback();
}

// Modes of validate that are not a --data scorecard have no report.
void check_validate_mode(const CLI::App& sub) {
  for (const char* flag : {"--check", "--trace", "--training-runs", "--collectives"})
    if (sub.count(flag))
      throw InputError(std::string(flag) +
                       ": report validate charts the scorecard of --data; not with " + flag);
  if (!sub.count("--data")) throw InputError("report validate: give --data FILE");
}

// "A report of nothing" is an error: a run with no result to chart.
void check_not_empty(const std::string& kind, const nlohmann::json& run) {
  auto count_ok = [](const nlohmann::json& rows, const char* key) {
    size_t n = 0;
    for (const auto& r : rows) n += r.value(key, false) ? 1 : 0;
    return n;
  };
  std::string why;
  const nlohmann::json none = nlohmann::json::array();
  if (kind == "sweep" && count_ok(run.value("points", none), "ok") == 0)
    why = "the sweep has no point that ran (" + std::to_string(run.value("points", none).size()) +
          " points, none ok)";
  if (kind == "search" && run.value("ranked", none).empty()) why = "the search ranked no strategy";
  if (kind == "validate" && run.value("cases", none).empty()) why = "the scorecard has no case";
  if (kind == "serve" && run.value("requests", none).empty())
    why = "the serving run finished no request";
  if (!why.empty()) throw InputError("report " + kind + ": " + why + "; nothing to report");
}

// The held-out error of the categories involved, from every committed accuracy baseline.
nlohmann::json accuracy_rows(const std::set<std::string>& kernel_categories,
                             const std::set<std::string>& step_categories) {
  nlohmann::json rows = nlohmann::json::array();
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(RIDGELINE_SOURCE_DIR) / "validate"))
    if (e.path().filename().string().rfind("accuracy_baseline", 0) == 0 &&
        e.path().extension() == ".json")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    nlohmann::json b = read_json_file(f.string());
    auto add = [&](const char* key, const char* level, const std::set<std::string>& wanted) {
      const nlohmann::json table = b.value(key, nlohmann::json::object());
      for (const auto& [category, mape] : table.items())
        if (wanted.count(category) || wanted.count("*"))
          rows.push_back({{"gpu", b.value("gpu", "")},
                          {"level", level},
                          {"category", category},
                          {"holdout_mape", mape},
                          {"baseline", "validate/" + f.filename().string()}});
    };
    add("op_holdout_mape", "kernels", kernel_categories);
    add("workload_holdout_mape", "steps", step_categories);
  }
  return rows;
}

// The categories a run's numbers fall in: kernel families and a step's phase-launch.
nlohmann::json accuracy_for(const std::string& kind, const nlohmann::json& run) {
  if (kind == "validate") return accuracy_rows({"*"}, {"*"});
  std::set<std::string> kernels{"all"}, steps{"all"};
  for (const auto& op : run.value("ops", nlohmann::json::array()))
    if (op.contains("op")) kernels.insert(op["op"].get<std::string>());
  const nlohmann::json& in = run.contains("inputs") ? run["inputs"] : run;
  std::string launch = in.value("launch", std::string("graph"));
  if (kind == "serve") steps.insert({"prefill-" + launch, "decode-" + launch});
  if (kind == "search") steps.insert("train-" + launch);
  if (in.contains("phase") && in["phase"].is_string())
    steps.insert(in["phase"].get<std::string>() + "-" + launch);
  return accuracy_rows(kernels, steps);
}

// The GPU the run used, for the roofline's roofs (null when the document names none).
nlohmann::json roofs_for(const CLI::App& sub, const nlohmann::json& run) {
  const nlohmann::json& in = run.contains("inputs") ? run["inputs"] : run;
  std::string gpu;
  for (const char* key : {"gpu_file", "gpu"})
    if (gpu.empty() && in.contains(key) && in[key].is_string()) gpu = in[key].get<std::string>();
  if (gpu.empty()) return nullptr;
  std::vector<std::string> profile = results(sub, "--profile");
  return roofs_json(load_gpu(gpu, results(sub, "--set"), profile.empty() ? "" : profile.back()));
}

// The flags the run was given, as a command line for the page ("ridgeline report predict ...").
std::string command_line(const CLI::App& sub, const std::string& out) {
  std::string line = "ridgeline report " + sub.get_name();
  for (const CLI::Option* o : sub.get_options()) {
    if (o->count() == 0 || o->get_name() == "--format" || o->get_name() == "--out") continue;
    line += " " + o->get_name();
    if (o->get_type_size() != 0)
      for (const std::string& v : o->results()) line += " " + v;
  }
  return line + " --out " + out;
}

// The page of a run: its JSON document, checked not empty, with roofs and accuracy added.
HtmlReport page_for(const CLI::App& sub, const std::string& text, const std::string& out) {
  const std::string kind = sub.get_name();
  nlohmann::json run = nlohmann::json::parse(text);
  check_not_empty(kind, run);
  std::string subject = run.contains("model") && run["model"].is_string()
                            ? run["model"].get<std::string>()
                            : (run.contains("cluster") && run["cluster"].is_string()
                                   ? run["cluster"].get<std::string>()
                                   : kind);
  return {kind,
          "ridgeline " + kind + ": " + subject,
          command_line(sub, out),
          run,
          roofs_for(sub, run),
          accuracy_for(kind, run)};
}

}  // namespace

Command add_report_command(CLI::App& app) {
  CLI::App* report = app.add_subcommand(
      "report", "Write a run (predict, sweep, validate, search, serve) as one HTML page of charts");
  report->require_subcommand(1);
  struct Kind {
    std::string name;
    Command (*add)(CLI::App&);
  };
  const std::vector<Kind> kinds = {{"predict", add_predict_command},
                                   {"sweep", add_sweep_command},
                                   {"validate", add_validate_command},
                                   {"search", add_search_command},
                                   {"serve", add_serve_command}};
  auto runs = std::make_shared<std::map<std::string, Command>>();
  auto out = std::make_shared<std::string>();
  for (const Kind& k : kinds) {
    (*runs)[k.name] = k.add(*report);
    CLI::App* sub = report->get_subcommand(k.name);
    sub->description("Report of `ridgeline " + k.name + "` (same flags) as an HTML page");
    // The command's own --out (a batch run's output file) gives way to the page's: the run's
    // JSON goes to standard output, which the report captures.
    if (CLI::Option* own = sub->get_option_no_throw("--out")) sub->remove_option(own);
    sub->add_option("--out", *out, "The HTML page to write")->required();
  }
  return [report, runs, out]() {
    CLI::App* sub = report->get_subcommands().at(0);
    const std::string kind = sub->get_name();
    if (!charts_built()) print_report_html(std::cout, {});  // says it was built without charts
    if (kind == "validate") check_validate_mode(*sub);
    force_json(*sub);
    std::ofstream file = open_output("--out", *out);  // a bad path fails before the run
    int rc = 0;
    try {
      std::string text;
      {
        CoutCapture capture;
        rc = runs->at(kind)();
        text = capture.text();
      }
      print_report_html(file, page_for(*sub, text, *out));
      file.close();
      if (!file) throw InputError("--out " + *out + ": writing the file failed");
    } catch (...) {
      file.close();
      std::filesystem::remove(*out);  // no half-written page left behind
      throw;
    }
    std::cerr << "ridgeline report: wrote " << *out << "\n";
    return rc;
  };
}

}  // namespace ridgeline
