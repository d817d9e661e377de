// `ridgeline calibrate run` runs the CUDA microbenchmarks (ridgeline-gpu-bench) and PyTorch's ops
// on this machine's GPU and writes one measurements file (the steps are calibrate/run/'s);
// `ridgeline calibrate fit` fits the model's parameters to measured kernels (fit split only) and
// writes a calibrated profile plus a report.
//   ridgeline calibrate fit --data validate/data/h100-sxm-ops-2026-11-29.json --out
//   hardware/profiles/h100-sxm.json
// The GPU is the one the measurement files record unless --gpu names it; a --gpu they contradict
// is refused, so a profile is never written for another GPU than the one measured.
// Broken-looking measurements or a poor fit are reported loudly, and then no profile is written
// unless --force.
#include "calibrate/fit/pipeline.h"
#include "calibrate/run/calibration_run.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/views/fit_report_view.h"
#include "cli/views/views.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_load.h"
#include "validate/recorded_device.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

int run_calibration(const CalibrationRun& r) {
  run_calibration(r, [](const std::string& line) { std::cout << line << "\n" << std::flush; });
  std::cout << "\nmeasurements in " << r.out << "; next: ridgeline calibrate fit --data " << r.out
            << " --out <profile.json>\n";
  return 0;
}

}  // namespace

Command add_calibrate_command(CLI::App& app) {
  struct Options {
    std::string gpu;
    std::vector<std::string> data, hardware, workloads;
    std::string out, report;
    bool force = false;
    CalibrationRun run;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cal =
      app.add_subcommand("calibrate", "Fit the model's parameters to a GPU's measurements");
  CLI::App* fit = cal->add_subcommand(
      "fit", "Fit parameters to measured kernels; write a profile and a report");
  fit->add_option("--gpu", o->gpu,
                  "GPU the measurements were taken on, preset or path (default: the one the "
                  "files record)");
  fit->add_option("--data", o->data, "Measured kernels (validate/data/*-ops-*.json); repeatable")
      ->required();
  fit->add_option("--hardware", o->hardware,
                  "ridgeline-gpu-bench measurements whose memory, latency and launch points become "
                  "measured hardware figures (default: any such file among --data); repeatable");
  fit->add_option("--workloads", o->workloads,
                  "Whole-model runs (validate/data/*-models-*.json) to fit the eager launch cost "
                  "launch/python_eager_us on; repeatable");
  fit->add_option("--out", o->out, "Where to write the calibrated profile (JSON)");
  fit->add_flag("--force", o->force, "Write the profile even when the fit or the data look wrong");
  fit->add_option("--report", o->report,
                  "Also write every measured kernel's error before and after the fit (JSON)");
  CLI::App* run = cal->add_subcommand("run", "Run the CUDA microbenchmarks on this machine's GPU");
  run->add_option("--out", o->run.out, "Measurements file to write (default measurements.json)");
  run->add_option("--bench", o->run.bench,
                  "Path to ridgeline-gpu-bench (default: beside ridgeline, then PATH)");
  run->add_flag("--quick", o->run.quick, "The short suite (about a minute)");
  run->add_option("--pytorch", o->run.pytorch,
                  "Also time attention and PyTorch's row kernels through PyTorch: auto (where "
                  "python3 has torch with CUDA; default), on or off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  run->add_option("--scripts", o->run.scripts,
                  "Folder of measure_ops.py and op_grid.py (default: this source tree's "
                  "validate/measure)");
  CLI::App* fit_collectives = nullptr;
  Command run_fit_collectives = add_fit_collectives_command(*cal, fit_collectives);
  CLI::App* intervals = nullptr;
  Command run_intervals = add_calibrate_intervals_command(*cal, intervals);
  cal->require_subcommand(1);
  return [o, run, fit_collectives, run_fit_collectives, intervals, run_intervals]() {
    if (fit_collectives->parsed()) return run_fit_collectives();
    if (intervals->parsed()) return run_intervals();
    if (run->parsed()) {
      CalibrationRun r = o->run;
      r.bench = find_gpu_bench(r.bench);
      if (r.scripts.empty()) r.scripts = std::string(RIDGELINE_SOURCE_DIR) + "/validate/measure";
      return run_calibration(r);
    }
    std::vector<RecordedDevice> devices;
    for (const auto* files : {&o->data, &o->hardware, &o->workloads})
      for (const auto& f : *files) devices.push_back(recorded_device(f));
    // Start from the architecture's defaults, not an old fit.
    GpuSpec gpu = load_gpu(o->gpu.empty() ? gpu_of_recorded(devices) : o->gpu, {}, "none");
    if (!o->gpu.empty())
      check_recorded_gpu(gpu, devices, "--gpu " + o->gpu,
                         "leave --gpu out: a profile is fitted for the GPU that was measured");
    Calibration c = calibrate(gpu, {o->data, o->hardware, o->workloads});
    std::cout << "ridgeline calibrate fit: " << gpu.name << " from " << c.kernels
              << " measured kernels\n";
    print_fit_report(std::cout, c.parts);
    if (!o->report.empty()) {
      std::ofstream report = open_output("--report", o->report);
      print_fit_cases_json(report, c.before, c.after);
    }
    for (const auto& p : c.problems) std::cerr << "ridgeline: warning: " << p << "\n";
    if (o->out.empty()) return c.problems.empty() ? 0 : 1;
    if (!c.problems.empty() && !o->force) {
      std::cerr << "ridgeline: no profile written: " << c.problems.size()
                << " problems above (--force writes it)\n";
      return 1;
    }
    std::ofstream out = open_output("--out", o->out);
    out << profile_json(gpu, c.parts).dump(2) << "\n";
    std::cout << "\nwrote " << o->out << "\n";
    return 0;
  };
}

}  // namespace ridgeline
