// `ridgeline export prometheus <predict's flags> [--job NAME] [--out FILE]`: what ridgeline
// expects of a workload's step as Prometheus exposition text, for a textfile collector or a
// Pushgateway, so a dashboard and an alert (monitoring/) can set a job's measured step time
// against it.
//   ridgeline export prometheus --gpu h100-sxm --model llama-3-8b --phase decode --batch 32
//       --kv-len 2048 --job llama-decode
// The flags are predict's own (its subcommand registered here under the name prometheus, with
// --cluster too): the metrics read the document `predict --format json` prints.
#include "cli/commands.h"
#include "cli/cout_capture.h"
#include "cli/output_file.h"
#include "cli/views/prometheus_view.h"
#include "common/errors.h"
#include "hardware/derived.h"
#include "hardware/gpu_load.h"

#include <iostream>
#include <memory>
#include <sstream>

namespace ridgeline {

namespace {

// The dense BF16 peak of the GPU the prediction names (a cluster's JSON carries its own MFU).
double bf16_peak(const CLI::App& sub, const nlohmann::json& p) {
  if (!p.contains("inputs") || !p["inputs"].contains("gpu_file")) return 0;
  const CLI::Option* profile = sub.get_option("--profile");
  GpuSpec gpu =
      load_gpu(p["inputs"]["gpu_file"].get<std::string>(), sub.get_option("--set")->results(),
               profile->count() ? profile->results().back() : "");
  return peak_flops_per_s(gpu, MathUnit::TensorBf16);
}

}  // namespace

Command add_export_command(CLI::App& app) {
  CLI::App* exp =
      app.add_subcommand("export", "Export a workload's expected figures for monitoring");
  exp->require_subcommand(1);
  Command predict = add_predict_command(*exp);
  CLI::App* sub = exp->get_subcommand("predict");
  sub->name("prometheus");
  sub->description(
      "Expected step time, tokens/s, MFU and per-layer times as Prometheus exposition text "
      "(predict's flags)");
  auto job = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  sub->add_option("--job", *job, "A job label on every metric (the job to compare against)");
  sub->add_option("--out", *out, "Write the text to FILE (default: standard output)");
  return [sub, predict, job, out]() {
    CLI::Option* format = sub->get_option("--format");
    if (format->count() > 0)
      throw InputError("--format: export prometheus writes exposition text; leave --format out");
    for (const char* flag : {"--trace", "--top"})
      if (sub->count(flag))
        throw InputError(std::string(flag) +
                         ": not with export prometheus (it writes metrics "
                         "only; validate --trace --format prometheus measures a trace)");
    format->add_result("json");
    format->run_callback();
    std::ofstream file;
    if (!out->empty()) file = open_output("--out", *out);
    std::string text;
    {
      CoutCapture capture;
      predict();
      text = capture.text();
    }
    PrometheusRun run{nlohmann::json::parse(text), 0, *job};
    run.peak_flops_per_s = bf16_peak(*sub, run.prediction);
    print_expected_prometheus(out->empty() ? std::cout : file, run);
    if (!out->empty()) {
      file.close();
      if (!file) throw InputError("--out " + *out + ": writing the file failed");
    }
    return 0;
  };
}

}  // namespace ridgeline
