// `ridgeline calibrate run`'s orchestration, as a library part: the CUDA microbenchmark suite
// (ridgeline-gpu-bench) writes one measurements file, then, where this machine's python3 has
// PyTorch with CUDA, validate/measure/measure_ops.py times the op grid's attention and row-kernel
// ops and its records join that file under "records" (meta.pytorch says how they were taken).
// Each step has a time budget, so that a run ends within 10 minutes on any GPU. The CLI only
// parses flags, calls run_calibration and prints; progress goes to the caller's callback.
//
//   CalibrationRun r{find_gpu_bench(""), "measurements.json", "auto", "validate/measure"};
//   run_calibration(r, [](const std::string& line) { std::cout << line << "\n"; });
#pragma once

#include <functional>
#include <string>

namespace ridgeline {

struct CalibrationRun {
  std::string bench;                      // path to ridgeline-gpu-bench
  std::string out = "measurements.json";  // the measurements file to write
  std::string pytorch = "auto";           // auto | on | off: also time ops through PyTorch
  std::string scripts;                    // folder of measure_ops.py and op_grid.py
  bool quick = false;                     // the short suite (about a minute)
};

// One line of progress (a command about to run, a step skipped).
using RunProgress = std::function<void(const std::string&)>;

// The microbenchmark executable: `given`, else beside this ridgeline executable
// (build/cli/ridgeline -> build/calibrate/ridgeline-gpu-bench), else "ridgeline-gpu-bench" on the
// PATH.
std::string find_gpu_bench(const std::string& given);

// Runs the suite and the PyTorch ops; throws InputError when a step fails (naming the flag that
// avoids it where there is one).
void run_calibration(const CalibrationRun& run, const RunProgress& progress);

}  // namespace ridgeline
