// `ridgeline calibrate run` runs the CUDA microbenchmarks (ridgeline-gpu-bench, calibrate/) on
// this machine's GPU and writes one measurements file; `ridgeline calibrate fit` fits the model's
// parameters to measured kernels (fit split only) and writes a calibrated profile plus a report.
//   ridgeline calibrate fit --gpu h100-sxm --data validate/data/h100-sxm-ops-2026-11-29.json --out
//   hardware/profiles/h100-sxm.json
// Broken-looking measurements or a poor fit are reported loudly, and then no profile is written
// unless --force.
#include "calibrate/fit/pipeline.h"
#include "cli/commands.h"
#include "cli/views/fit_report_view.h"
#include "cli/views/views.h"
#include "common/errors.h"
#include "hardware/gpu_load.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

// The microbenchmark executable: --bench, else beside this build's ridgeline
// (build/cli/ridgeline -> build/calibrate/ridgeline-gpu-bench), else on the PATH.
std::string find_bench(const std::string& given) {
  if (!given.empty()) return given;
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  std::string dir = self.substr(0, self.find_last_of('/') + 1);
  for (const std::string& candidate :
       {dir + "../calibrate/ridgeline-gpu-bench", dir + "ridgeline-gpu-bench"}) {
    if (std::ifstream(candidate).good()) return candidate;
  }
  return "ridgeline-gpu-bench";
}

int run_bench(const std::string& bench, const std::string& out, bool quick) {
  std::string cmd = "'" + bench + "' --out '" + out + "'" + (quick ? " --quick" : "");
  std::cout << "ridgeline calibrate run: " << cmd << "\n" << std::flush;
  int status = std::system(cmd.c_str());
  if (status != 0) {
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : status;
    throw InputError("calibrate run: " + bench + " failed (exit " + std::to_string(code) +
                     "); it is built where nvcc is present (build/calibrate/ridgeline-gpu-bench) "
                     "and needs a GPU");
  }
  std::cout << "\nmeasurements in " << out
            << "; next: ridgeline calibrate fit --gpu <preset> --data " << out
            << " --out <profile.json>\n";
  return 0;
}

}  // namespace

Command add_calibrate_command(CLI::App& app) {
  struct Options {
    std::string gpu = "h100-sxm";
    std::vector<std::string> data, hardware, workloads;
    std::string out;
    bool force = false;
    std::string bench, measurements = "measurements.json";
    bool quick = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cal =
      app.add_subcommand("calibrate", "Fit the model's parameters to a GPU's measurements");
  CLI::App* fit = cal->add_subcommand(
      "fit", "Fit parameters to measured kernels; write a profile and a report");
  fit->add_option("--gpu", o->gpu, "GPU the measurements were taken on (preset or path)");
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
  CLI::App* run = cal->add_subcommand("run", "Run the CUDA microbenchmarks on this machine's GPU");
  run->add_option("--out", o->measurements,
                  "Measurements file to write (default measurements.json)");
  run->add_option("--bench", o->bench,
                  "Path to ridgeline-gpu-bench (default: beside ridgeline, then PATH)");
  run->add_flag("--quick", o->quick, "The short suite (about a minute)");
  cal->require_subcommand(1);
  return [o, run]() {
    if (run->parsed()) return run_bench(find_bench(o->bench), o->measurements, o->quick);
    // Start from the architecture's defaults, not an old fit.
    GpuSpec gpu = load_gpu(o->gpu, {}, "none");
    Calibration c = calibrate(gpu, {o->data, o->hardware, o->workloads});
    std::cout << "ridgeline calibrate fit: " << gpu.name << " from " << c.kernels
              << " measured kernels\n";
    print_fit_report(std::cout, c.parts);
    for (const auto& p : c.problems) std::cerr << "ridgeline: warning: " << p << "\n";
    if (o->out.empty()) return c.problems.empty() ? 0 : 1;
    if (!c.problems.empty() && !o->force) {
      std::cerr << "ridgeline: no profile written: " << c.problems.size()
                << " problems above (--force writes it)\n";
      return 1;
    }
    std::ofstream out(o->out);
    if (!out) throw InputError("--out " + o->out + ": cannot write file");
    out << profile_json(gpu, c.parts).dump(2) << "\n";
    std::cout << "\nwrote " << o->out << "\n";
    return 0;
  };
}

}  // namespace ridgeline
