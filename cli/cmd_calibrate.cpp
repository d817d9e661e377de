// `ridgeline calibrate fit`: fit the model's parameters to measured kernels (fit split only) and
// write a calibrated profile plus a fit report.
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

}  // namespace

Command add_calibrate_command(CLI::App& app) {
  struct Options {
    std::string gpu = "h100-sxm";
    std::vector<std::string> data;
    std::string out;
    bool force = false;
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
  cal->require_subcommand(1);
  return [o]() {
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
