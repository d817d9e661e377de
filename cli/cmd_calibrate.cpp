// `ridgeline calibrate run` runs the CUDA microbenchmarks (ridgeline-gpu-bench, calibrate/) on
// this machine's GPU and writes one measurements file; `ridgeline calibrate fit` fits the model's
// parameters to measured kernels (fit split only) and writes a calibrated profile plus a report.
//   ridgeline calibrate fit --gpu h100-sxm --data validate/data/h100-sxm-ops-2026-11-29.json --out
//   hardware/profiles/h100-sxm.json
// Broken-looking measurements or a poor fit are reported loudly, and then no profile is written
// unless --force.
#include "calibrate/fit/fit.h"
#include "calibrate/fit/profile.h"
#include "cli/commands.h"
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

std::string provenance_of(const Dataset& d, const std::vector<std::string>& files) {
  std::string device = d.meta.value("device_name", "unknown device");
  std::string date = d.meta.value("utc_start", "").substr(0, 10);
  std::string list;
  for (const auto& f : files) list += (list.empty() ? "" : ", ") + f;
  return "fitted: " + device + ", " + (date.empty() ? "date unknown" : date) +
         ": ridgeline calibrate fit over the fit split of " + list;
}

void print_report(std::ostream& os, const FitResult& r) {
  os << "fit split    " << r.before.fit_cases << " cases: MAPE "
     << fixed(100 * r.before.fit_mape, 1) << "% -> " << fixed(100 * r.after.fit_mape, 1) << "%\n";
  os << "held out     " << r.before.holdout_cases << " cases: MAPE "
     << fixed(100 * r.before.holdout_mape, 1) << "% -> " << fixed(100 * r.after.holdout_mape, 1)
     << "% (never fitted)\n";
  os << r.iterations
     << " Levenberg-Marquardt iterations\n\nparameter                                  previous    "
        "  fitted\n";
  for (const auto& p : r.params) {
    os << "  " << std::left << std::setw(40) << p.path << std::right << std::setw(10)
       << fixed(p.previous, 3) << std::setw(12) << fixed(p.value, 3)
       << (p.at_bound ? "   (at bound)" : "") << "\n";
  }
}

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
    std::vector<std::string> data;
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
    GpuSpec gpu =
        load_gpu(o->gpu, {}, "none");  // start from the architecture's defaults, not an old fit
    Dataset data = load_datasets(o->data);
    std::vector<std::string> problems = suspicious_measurements(gpu, data);
    FitResult r = fit_parameters(gpu, data, default_knobs(gpu));
    std::cout << "ridgeline calibrate fit: " << gpu.name << " from " << data.records.size()
              << " measured kernels\n";
    print_report(std::cout, r);
    problems.insert(problems.end(), r.warnings.begin(), r.warnings.end());
    for (const auto& p : problems) std::cerr << "ridgeline: warning: " << p << "\n";
    if (o->out.empty()) return problems.empty() ? 0 : 1;
    if (!problems.empty() && !o->force) {
      std::cerr << "ridgeline: no profile written: " << problems.size()
                << " problems above (--force writes it)\n";
      return 1;
    }
    std::ofstream out(o->out);
    if (!out) throw InputError("--out " + o->out + ": cannot write file");
    out << profile_json(gpu, r, provenance_of(data, o->data)).dump(2) << "\n";
    std::cout << "\nwrote " << o->out << "\n";
    return 0;
  };
}

}  // namespace ridgeline
