// `calibrate run`'s steps: the suite, then the PyTorch ops, merged into one file; see
// calibration_run.h.
#include "calibrate/run/calibration_run.h"

#include "common/errors.h"
#include "common/json_reader.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ridgeline {

namespace {

int shell(const std::string& cmd, const RunProgress& progress) {
  progress("ridgeline calibrate run: " + cmd);
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
// suite's to time: measure_ops.py times them the same way the validation data were taken.
void run_pytorch_ops(const CalibrationRun& o, const RunProgress& progress) {
  if (o.pytorch == "off") return;
  bool have_torch =
      std::system(
          "python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' "
          ">/dev/null 2>&1") == 0;
  if (!have_torch) {
    if (o.pytorch == "on")
      throw InputError("--pytorch on: python3 cannot import torch with CUDA on this machine");
    progress(
        "ridgeline calibrate run: no PyTorch with CUDA here: attention and PyTorch's "
        "row kernels not measured (--pytorch on requires them)");
    return;
  }
  std::string grid = o.out + ".ops.jsonl", results = o.out + ".pytorch.json";
  std::string only = o.quick ? "^(attn-(prefill|decode)-b1-|rmsnorm-bf16-|softmax-bf16-2048)"
                             : "^(attn|rmsnorm|layernorm|softmax)-";
  if (shell("python3 " + sh_word(o.scripts + "/op_grid.py") + " > " + sh_word(grid), progress) !=
          0 ||
      shell("python3 " + sh_word(o.scripts + "/measure_ops.py") + " --input " + sh_word(grid) +
                " --only " + sh_word(only) + " --budget-s " + (o.quick ? "60" : "300") +
                " --hard-limit-s " + (o.quick ? "90" : "360") + " --out " + sh_word(results),
            progress) != 0) {
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

}  // namespace

std::string find_gpu_bench(const std::string& given) {
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

void run_calibration(const CalibrationRun& o, const RunProgress& progress) {
  // Budgets: suite 180 s, PyTorch 300 s, 360 s with a hung op; --quick 60 + 90 s. A suite cut
  // short marks the points it skipped, and calibrate fit reports the run as unfinished.
  if (int code = shell(sh_word(o.bench) + " --out " + sh_word(o.out) +
                           (o.quick ? " --quick --max-seconds 60" : " --max-seconds 180"),
                       progress);
      code != 0) {
    throw InputError("calibrate run: " + o.bench + " failed (exit " + std::to_string(code) +
                     "); it is built where nvcc is present "
                     "(build/calibrate/ridgeline-gpu-bench) and needs a GPU");
  }
  run_pytorch_ops(o, progress);
}

}  // namespace ridgeline
