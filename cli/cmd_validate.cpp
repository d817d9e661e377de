// `ridgeline validate --data validate/data/h100-sxm-ops.json [--data more.json] [--gpu h100-sxm]
// [--split holdout] [--plot scorecard.html]`:
// predicts every measured op of a data set and prints the accuracy scorecard, beside a plain
// datasheet roofline measured the same way. The default split is the held-out one. --plot also
// writes the scorecard's charts (predicted against measured, error against time, error per
// family) as the `ridgeline report validate` page: self-contained HTML, Vega-Lite. The GPU
// is the one the data files (or the trace) record unless --gpu names it, and a --gpu the files
// contradict is refused (recorded_device.h).
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/predict_options.h"
#include "cli/report_page.h"
#include "cli/validate_collectives.h"
#include "cli/views/report_views.h"
#include "cli/views/scorecard_views.h"
#include "cli/views/trace_compare_view.h"
#include "cli/views/trace_prometheus_view.h"
#include "cli/views/training_views.h"
#include "cli/views/views.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_load.h"
#include "validate/baseline.h"
#include "validate/dataset.h"
#include "validate/recorded_device.h"
#include "validate/scorecard.h"
#include "validate/trace_shapes.h"
#include "validate/training_scorecard.h"
#include "workloads/graph_builder.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace ridgeline {

namespace {

std::vector<RecordedDevice> recorded_devices(const std::vector<std::string>& files) {
  std::vector<RecordedDevice> out;
  for (const auto& f : files) out.push_back(recorded_device(f));
  return out;
}

// The GPU for measurements taken on `devices`: --gpu when given (and not contradicted by them),
// else the one they record.
GpuSpec gpu_for(const std::string& given, const std::vector<RecordedDevice>& devices,
                const std::vector<std::string>& sets, const std::string& profile) {
  if (given.empty()) return load_gpu(gpu_of_recorded(devices), sets, profile);
  GpuSpec gpu = load_gpu(given, sets, profile);
  check_recorded_gpu(gpu, devices, "--gpu " + given);
  return gpu;
}

// Loads op data sets, or workload data sets with --workloads, and scores them.
// `runtime`: every whole step's, or nullptr for the one each record ran under.
Scorecard score_files(const std::vector<std::string>& files, bool workloads, const GpuSpec& gpu,
                      const std::string& split, std::vector<std::string>& skipped,
                      const RuntimeProfile* runtime = nullptr) {
  if (files.empty()) return Scorecard{};
  if (workloads) {
    WorkloadDataset all = runtime ? load_workload_datasets(files, *runtime)
                                  : load_workload_datasets_as_measured(files);
    skipped = all.skipped;
    return score_workloads(all, gpu, split);
  }
  Dataset data = load_datasets(files);
  skipped = data.skipped;
  return score(data, gpu, split);
}

// --check: every recorded category must score no worse than recorded. Prints one line per
// category and returns the exit status (1 when any regressed).
int run_training_check(const AccuracyBaseline& b, const std::vector<std::string>& sets) {
  if (!sets.empty())
    throw InputError(
        "--set: a training-runs baseline predicts with each row's own GPU; no what-ifs");
  TrainingScorecard sc = score_training_runs(load_training_runs(b.training_runs));
  std::vector<BaselineCheck> checks = check_baseline(training_holdout_mape(sc), b.training_mape,
                                                     b.file + ": /training_holdout_mape");
  print_training_check(std::cout, b.file, checks);
  for (const auto& c : checks)
    if (c.regressed()) return 1;
  return 0;
}

int run_check(const std::string& path, const std::vector<std::string>& sets) {
  AccuracyBaseline b = load_baseline(path);
  if (!b.training_runs.empty()) return run_training_check(b, sets);
  GpuSpec gpu = load_gpu(b.gpu, sets, b.profile);
  std::vector<std::string> files = b.op_datasets;
  files.insert(files.end(), b.workload_datasets.begin(), b.workload_datasets.end());
  check_recorded_gpu(gpu, recorded_devices(files), path + ": /gpu " + b.gpu,
                     "a baseline's /gpu is the GPU its data sets were measured on (its /profile "
                     "may be another GPU's)");
  std::vector<std::string> skipped;
  std::vector<BaselineCheck> all =
      check_baseline(score_files(b.op_datasets, false, gpu, "holdout", skipped), b.op_mape,
                     path + ": /op_holdout_mape");
  RuntimeProfile runtime = b.runtime.empty() ? default_runtime() : load_runtime(b.runtime);
  auto wl = check_baseline(score_files(b.workload_datasets, true, gpu, "holdout", skipped, &runtime),
                           b.workload_mape, path + ": /workload_holdout_mape");
  for (auto& c : all) c.category = "kernels/" + c.category;
  for (auto& c : wl) c.category = "steps/" + c.category;
  all.insert(all.end(), wl.begin(), wl.end());
  print_baseline_check(std::cout, path, gpu, all);
  int regressed = 0;
  for (const auto& c : all) regressed += c.regressed();
  return regressed ? 1 : 0;
}

// --trace: match a real run's kernels to the prediction of the same workload.
int run_trace(const std::string& path, const PredictOptions& w, const std::string& gpu_name,
              const std::vector<std::string>& sets, const std::string& profile, int worst,
              const std::string& format, const std::string& job) {
  if (w.model.empty() || w.phase.empty()) {
    throw InputError(
        "--trace: say which workload the trace ran with --model and --phase (and its sizes)");
  }
  nlohmann::json trace = read_json_file(path);
  std::vector<TraceKernel> kernels = read_trace_kernels(trace, path);
  GpuSpec gpu = gpu_for(gpu_name, {recorded_device(trace, path)}, sets, profile);
  ModelConfig model = load_model(w.model);
  RunConfig run = run_config_from(w);
  std::string shapes = check_trace_shapes(read_trace_shapes(trace), run, path);
  OpGraph graph = build_graph(model, run);
  Prediction p = predict_workload(graph, model, run, gpu);
  TraceComparison c = compare_trace(kernels, p, gpu);
  c.shapes = shapes;
  if (format == "prometheus")
    print_trace_prometheus(std::cout, kernels, c, p, gpu, job);
  else
    print_trace_comparison(std::cout, c, p, gpu, worst);
  return 0;
}

// --training-runs: the published training runs' scorecard.
int run_training_runs(const std::string& path, const std::string& format, int worst,
                      bool worst_given) {
  const auto& view = training_views().pick(format, "--format");
  if (worst_given && format != "table")
    throw InputError("--worst: lists the worst rows in the table; not with --format " + format);
  TrainingScorecard sc = score_training_runs(load_training_runs(path));
  view(std::cout, TrainingReport{sc, worst});
  return 0;
}

// Each mode reads its own flags: one given for another mode is an error, never ignored.
void refuse_flags(const CLI::App& cmd, const std::vector<std::string>& names,
                  const std::string& why) {
  for (const auto& n : names)
    if (cmd.count(n)) throw InputError(n + ": not with " + why);
}

// --plot: the `report validate` page of the scorecard (cli/report_page.h), built before a byte is
// written, so a build without charts or an empty scorecard leaves no file; a path not ending in
// .html is refused (the plot was an SVG once: an old name says which format it gets now).
void write_plot(const std::string& path, const CLI::App& cmd, const ScorecardReport& report,
                const GpuSpec& gpu) {
  if (path.size() < 5 || path.compare(path.size() - 5, 5, ".html") != 0)
    throw InputError("--plot " + path +
                     ": the plot is an HTML page of Vega-Lite charts (as `ridgeline report "
                     "validate` writes); name the file .html");
  std::ostringstream json;
  scorecard_views().pick("json", "--format")(
      json, ScorecardReport{report.scorecard, report.skipped, report.worst, ""});
  std::string command = "ridgeline validate";
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0 || o->get_name() == "--format" || o->get_name() == "--worst") continue;
    command += " " + o->get_name();
    if (o->get_type_size() != 0)
      for (const std::string& v : o->results()) command += " " + v;
  }
  std::ostringstream html;
  try {
    print_report_html(
        html, report_page("validate", nlohmann::json::parse(json.str()), roofs_json(gpu), command));
  } catch (const InputError& e) {
    throw InputError("--plot " + path + ": " + e.what());
  }
  std::ofstream out = open_output("--plot", path);
  out << html.str();
  out.close();
  if (!out) throw InputError("--plot " + path + ": writing the file failed");
}

}  // namespace

Command add_validate_command(CLI::App& app) {
  struct Options {
    std::string gpu;
    std::vector<std::string> sets;
    std::vector<std::string> data;
    std::string check;
    std::string collectives;
    std::vector<std::string> clusters;
    std::string trace;
    std::string training_runs;
    std::string profile;
    PredictOptions workload;
    bool workloads = false;
    std::string split = "holdout";
    std::string format = "table";
    std::string plot;
    int worst = 10;
    std::string job;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("validate", "Score predictions against a measured data set");
  cmd->add_option("--gpu", o->gpu,
                  "GPU preset name or path (default: the GPU the data files or the trace record)");
  cmd->add_option("--set", o->sets, "What-if override PATH=VALUE (repeatable)");
  cmd->add_option("--data", o->data, "Measured data set(s) (validate/data/*.json); repeatable");
  cmd->add_option(
      "--check", o->check,
      "Fail when held-out error rises above a baseline (validate/accuracy_baseline.json)");
  cmd->add_option("--training-runs", o->training_runs,
                  "Published training runs (validate/data/published-training-runs.json): MAPE of "
                  "iteration time per source, GPU and model family, held-out and fit apart");
  cmd->add_option("--collectives", o->collectives,
                  "Measured collectives (validate/data/published-collectives.json): MAPE per GPU, "
                  "collective and GPU count, held-out and fit split apart");
  cmd->add_option("--cluster", o->clusters,
                  "With --collectives: a cluster file standing in for the preset of its name "
                  "(e.g. one from calibrate fit-collectives); repeatable");
  cmd->add_flag("--workloads", o->workloads,
                "The data sets are whole-model runs (measure_models.py)");
  cmd->add_option(
      "--trace", o->trace,
      "A PyTorch profiler (Chrome/Kineto) trace to match kernel by kernel against the workload "
      "given by --model, --phase, ...");
  std::vector<std::string> workload_flags;
  const std::vector<CLI::Option*> earlier = cmd->get_options();
  add_workload_flags(*cmd, o->workload, false);
  cmd->get_option("--runtime")
      ->description(
          "Which kernels the implementation launches: a preset (pytorch-eager, fused, "
          "hf-transformers or torch-compile) or a runtime .json file (docs/runtimes.md); with "
          "--workloads every record is predicted with it (default: the runtime each record ran "
          "under: hf-transformers for transformers' model code, torch-compile when compiled, "
          "pytorch-eager for ridgeline's rendering)");
  for (CLI::Option* opt : cmd->get_options())
    if (std::find(earlier.begin(), earlier.end(), opt) == earlier.end())
      workload_flags.push_back(opt->get_name());
  cmd->add_option(
      "--profile", o->profile,
      "Calibrated profile: a built-in one's name (h100-sxm), a file, or none (default: the "
      "GPU's own or its architecture's)");
  cmd->add_option("--split", o->split, "holdout (default), fit or all")
      ->check(CLI::IsMember({"holdout", "fit", "all"}));
  std::vector<std::string> formats = scorecard_views().names();
  formats.push_back("prometheus");  // --trace: the measured step as Prometheus metrics
  cmd->add_option("--format", o->format, "table, json or markdown; prometheus with --trace")
      ->check(CLI::IsMember(formats));
  cmd->add_option("--job", o->job, "With --trace --format prometheus: a job label on every metric");
  cmd->add_option("--worst", o->worst, "Worst cases to list (table)");
  cmd->add_option("--plot", o->plot,
                  "Also write the scorecard's charts to FILE.html: the `report validate` page "
                  "(self-contained HTML, Vega-Lite: predicted against measured, error against "
                  "measured time, error per family); a name not ending in .html is refused");
  return [o, cmd, workload_flags]() {
    if (!o->plot.empty() && (!o->check.empty() || !o->trace.empty()))
      throw InputError("--plot: plots the scorecard of --data; not with --check or --trace");
    if (o->format == "prometheus" && o->trace.empty())
      throw InputError("--format prometheus: the metrics of a measured step; only with --trace");
    if (cmd->count("--job") && o->format != "prometheus")
      throw InputError("--job: labels the metrics of --trace --format prometheus; not without");
    if (!o->check.empty() && is_collective_baseline(o->check)) {
      refuse_flags(*cmd,
                   {"--gpu", "--profile", "--data", "--trace", "--workloads", "--split", "--format",
                    "--worst", "--set", "--collectives", "--cluster", "--training-runs"},
                   "--check of a collective baseline, which names its data set");
      refuse_flags(*cmd, workload_flags, "--check (the flag describes a --trace workload)");
      return run_collective_check(o->check);
    }
    if (!o->collectives.empty()) {
      refuse_flags(*cmd,
                   {"--gpu", "--profile", "--data", "--trace", "--workloads", "--split", "--worst",
                    "--set", "--check", "--plot", "--training-runs"},
                   "--collectives (it scores every row on its own cluster, both splits)");
      refuse_flags(*cmd, workload_flags, "--collectives (the flag describes a --trace workload)");
      if (o->format != "table" && o->format != "json")
        throw InputError("--format " + o->format + ": --collectives prints table or json");
      return run_collective_validate(o->collectives, o->clusters, o->format);
    }
    if (cmd->count("--cluster")) throw InputError("--cluster: only with --collectives");
    if (!o->check.empty()) {
      refuse_flags(*cmd,
                   {"--gpu", "--profile", "--data", "--trace", "--training-runs", "--workloads",
                    "--split", "--format", "--worst"},
                   "--check, whose baseline names its GPU, profile and data sets");
      refuse_flags(*cmd, workload_flags, "--check (the flag describes a --trace workload)");
      return run_check(o->check, o->sets);
    }
    if (!o->training_runs.empty()) {
      refuse_flags(*cmd,
                   {"--gpu", "--profile", "--set", "--data", "--trace", "--workloads", "--split",
                    "--plot", "--collectives", "--cluster"},
                   "--training-runs (each row names its GPU and cluster; both splits are shown)");
      refuse_flags(*cmd, workload_flags, "--training-runs (each row names its workload)");
      return run_training_runs(o->training_runs, o->format, o->worst, cmd->count("--worst") > 0);
    }
    if (!o->trace.empty()) {
      refuse_flags(*cmd, {"--data", "--workloads", "--split"},
                   "--trace, which compares one trace with one workload in a table");
      if (o->format != "prometheus")
        refuse_flags(*cmd, {"--format"},
                     "--trace, which compares one trace with one workload in a table (or "
                     "--format prometheus: the measured step's metrics)");
      if (o->format == "prometheus" && cmd->count("--worst"))
        throw InputError(
            "--worst: lists the worst kernels in the table; not with --format prometheus");
      check_generate_flags(*cmd, o->workload, false);
      return run_trace(o->trace, o->workload, o->gpu, o->sets, o->profile, o->worst, o->format,
                       o->job);
    }
    // --runtime with --workloads: the runtime every record is predicted with.
    std::vector<std::string> trace_only;
    for (const auto& f : workload_flags)
      if (f != "--runtime" || !o->workloads) trace_only.push_back(f);
    refuse_flags(*cmd, trace_only, "--data (the flag describes a --trace workload)");
    if (o->data.empty()) throw InputError("validate: give --data FILE (or --check BASELINE)");
    if (cmd->count("--worst") && o->format != "table")
      throw InputError("--worst: lists the worst cases in the table; not with --format " +
                       o->format);
    GpuSpec gpu = gpu_for(o->gpu, recorded_devices(o->data), o->sets, o->profile);
    std::vector<std::string> skipped;
    // Without --runtime each record is predicted with the runtime it ran under.
    std::optional<RuntimeProfile> runtime;
    if (cmd->count("--runtime")) runtime = load_runtime(o->workload.runtime);
    Scorecard sc =
        score_files(o->data, o->workloads, gpu, o->split, skipped, runtime ? &*runtime : nullptr);
    if (!o->plot.empty())
      write_plot(o->plot, *cmd, ScorecardReport{sc, skipped, o->worst, ""}, gpu);
    scorecard_views().pick(o->format, "--format")(std::cout,
                                                  ScorecardReport{sc, skipped, o->worst, o->plot});
    return 0;
  };
}

}  // namespace ridgeline
