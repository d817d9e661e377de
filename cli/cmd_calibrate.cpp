// `ridgeline calibrate run` runs the CUDA microbenchmarks (ridgeline-gpu-bench, calibrate/) on
// this machine's GPU and writes one measurements file; `ridgeline calibrate fit` fits the model's
// parameters to measured kernels (fit split only) and writes a calibrated profile plus a report.
//   ridgeline calibrate fit --data validate/data/h100-sxm-ops-2026-11-29.json --out
//   hardware/profiles/h100-sxm.json
// The GPU is the one the measurement files record unless --gpu names it; a --gpu they contradict
// is refused, so a profile is never written for another GPU than the one measured.
// Broken-looking measurements or a poor fit are reported loudly, and then no profile is written
// unless --force.
#include "calibrate/fit/pipeline.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/views/fit_report_view.h"
#include "cli/views/views.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_load.h"
#include "validate/recorded_device.h"

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

struct RunOptions {
  std::string bench, out = "measurements.json", pytorch = "auto", scripts;
  bool quick = false;
};

int shell(const std::string& cmd) {
  std::cout << "ridgeline calibrate run: " << cmd << "\n" << std::flush;
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// A word for /bin/sh: single-quoted, with any single quote in it closed, escaped and reopened.
std::string sh_word(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Fused attention and PyTorch's own row kernels (RMSNorm, LayerNorm, softmax) are not the
// suite's to time: where this machine has PyTorch with CUDA, validate/measure/measure_ops.py
// times the op grid's attention and row-kernel ops the same way the validation data were taken.
// Their records join the suite's file under "records" (meta.pytorch says how they were taken).
void run_pytorch_ops(const RunOptions& o) {
  if (o.pytorch == "off") return;
  bool have_torch =
      std::system(
          "python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' "
          ">/dev/null 2>&1") == 0;
  if (!have_torch) {
    if (o.pytorch == "on")
      throw InputError("--pytorch on: python3 cannot import torch with CUDA on this machine");
    std::cout << "ridgeline calibrate run: no PyTorch with CUDA here: attention and PyTorch's "
                 "row kernels not measured (--pytorch on requires them)\n";
    return;
  }
  std::string grid = o.out + ".ops.jsonl", results = o.out + ".pytorch.json";
  std::string only = o.quick ? "^(attn-(prefill|decode)-b1-|rmsnorm-bf16-|softmax-bf16-2048)"
                             : "^(attn|rmsnorm|layernorm|softmax)-";
  if (shell("python3 " + sh_word(o.scripts + "/op_grid.py") + " > " + sh_word(grid)) != 0 ||
      shell("python3 " + sh_word(o.scripts + "/measure_ops.py") + " --input " + sh_word(grid) +
            " --only " + sh_word(only) + " --budget-s " + (o.quick ? "60" : "300") +
            " --hard-limit-s " + (o.quick ? "90" : "360") + " --out " + sh_word(results)) != 0) {
    throw InputError(
        "calibrate run: the PyTorch measurements failed (see above); --pytorch off "
        "runs the suite alone");
  }
  nlohmann::json suite = read_json_file(o.out), torch_run = read_json_file(results);
  suite["records"] = torch_run.at("records");
  suite["meta"]["pytorch"] = torch_run.at("meta");
  std::ofstream(o.out) << suite.dump(1) << "\n";
  std::filesystem::remove(grid);
  std::filesystem::remove(results);
}

int run_calibration(const RunOptions& o) {
  // Each step has a time budget, so that a run ends within 10 minutes on any GPU (suite 180 s,
  // PyTorch 300 s, 360 s with a hung op; --quick 60 + 90 s). A suite cut short marks the points
  // it skipped, and calibrate fit reports the run as unfinished.
  if (int code = shell(sh_word(o.bench) + " --out " + sh_word(o.out) +
                       (o.quick ? " --quick --max-seconds 60" : " --max-seconds 180"));
      code != 0) {
    throw InputError("calibrate run: " + o.bench + " failed (exit " + std::to_string(code) +
                     "); it is built where nvcc is present "
                     "(build/calibrate/ridgeline-gpu-bench) and needs a GPU");
  }
  run_pytorch_ops(o);
  std::cout << "\nmeasurements in " << o.out << "; next: ridgeline calibrate fit --data " << o.out
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
    RunOptions run;
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
  cal->require_subcommand(1);
  return [o, run]() {
    if (run->parsed()) {
      RunOptions r = o->run;
      r.bench = find_bench(r.bench);
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
