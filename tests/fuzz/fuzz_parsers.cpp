// libFuzzer harnesses for the parsers users feed files to, one binary per target
// (RIDGELINE_FUZZ_TARGET): a GPU description, a Hugging Face config.json, an op JSONL line
// (parsed, then predicted on an H100: the time must be finite and positive), a runtime profile,
// a kernel measurement file, a workload measurement file, a profiler trace (its kernels and the
// shapes read from it), a calibrated profile (applied to the H100's description), a cluster
// description (then an all-reduce over all of its GPUs priced: finite and positive), a serving
// engine, and a serving trace (CSV and JSONL: bad lines are rejected, never a crash); then the
// batch inputs: an op JSONL file through the fast batch path (`ridgeline op --input`), a
// collective JSONL file (`collective --input`, on dgx-h100), collective measurements
// (`validate --collectives`, `fit-collectives --data`), published training runs
// (`validate --training-runs`), an accuracy baseline (`validate --check`), an interval table
// (validate/intervals.json), published serving data (`validate-serving --data`: rows and hf-cb
// records), a `--shard` output file for `ridgeline merge` and a ridgeline-gpu-bench suite file
// (`calibrate fit --hardware`: its measured figures and cross-checks against an H100). Loaders that
// take a path read the input from a temporary file of this process. A bad input must end in
// InputError (a message for the user); any other exception, a crash, a sanitizer report or a
// non-finite time is a bug, and libFuzzer stops on it with the input. Built by -DRIDGELINE_FUZZ=ON
// with clang; `./quickstart.sh fuzz` runs each for a bounded time.
#include "calibrate/fit/suite_figures.h"
#include "cli/collective_runner.h"
#include "cli/merge.h"
#include "cli/op_runner.h"
#include "common/embedded_files.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "common/presets.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "hardware/profiles.h"
#include "model/collective_cost.h"
#include "model/op_cost.h"
#include "serve/engine.h"
#include "serve/published.h"
#include "serve/workload.h"
#include "validate/baseline.h"
#include "validate/collective_dataset.h"
#include "validate/dataset.h"
#include "validate/intervals.h"
#include "validate/trace_compare.h"
#include "validate/trace_shapes.h"
#include "validate/training_runs.h"
#include "validate/workload_dataset.h"
#include "workloads/model_config.h"
#include "workloads/op_parse.h"
#include "workloads/runtime_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace {

using namespace ridgeline;

// The input as a file (for loaders that take a path), rewritten each run.
[[maybe_unused]] std::string as_file(const std::string& text, const char* ext) {
  static const std::string dir = "/tmp/ridgeline-fuzz-" + std::to_string((long long)getpid());
  std::string path = dir + ext;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

void run_one(const std::string& text) {
#if RIDGELINE_FUZZ_TARGET == 1
  load_gpu_text(text, "fuzz.json");
#elif RIDGELINE_FUZZ_TARGET == 2
  load_model_text(text, "fuzz/config.json");
#elif RIDGELINE_FUZZ_TARGET == 3
  static const GpuSpec gpu = load_gpu("h100-sxm");
  Op op = parse_op(parse_json_text(text, "fuzz.jsonl line 1"), "fuzz.jsonl line 1", "1");
  double t = predict_op(op, gpu).time_us;
  if (!(std::isfinite(t) && t > 0)) std::abort();  // a time that is not a time is a bug
#elif RIDGELINE_FUZZ_TARGET == 4
  load_runtime_text(text, "fuzz.json");
#elif RIDGELINE_FUZZ_TARGET == 5
  parse_dataset(parse_json_text(text, "fuzz.json"), "fuzz.json");
#elif RIDGELINE_FUZZ_TARGET == 6
  parse_workload_dataset(parse_json_text(text, "fuzz.json"), "fuzz.json");
#elif RIDGELINE_FUZZ_TARGET == 7
  nlohmann::json trace = parse_json_text(text, "fuzz-trace.json");
  read_trace_kernels(trace, "fuzz-trace.json");
  read_trace_shapes(trace);
#elif RIDGELINE_FUZZ_TARGET == 8
  static const std::string h100 = std::string(find_preset("hardware/gpus/", "h100-sxm")->text);
  ProfileUse use{parse_json_text(text, "fuzz-profile.json"), "fuzz-profile.json", "fuzz", true};
  nlohmann::json doc = parse_json_text(h100, "hardware/gpus/h100-sxm.json");
  apply_profile(doc, use);
  load_gpu_text(doc.dump(), "hardware/gpus/h100-sxm.json", {}, "none");
#elif RIDGELINE_FUZZ_TARGET == 9
  ClusterSpec c = load_cluster_text(text, "fuzz-cluster.json");
  CollectiveOp ar;
  ar.bytes = 1 << 20;
  ar.ranks = (int)std::min<double>(c.gpus_per_node.value * c.max_nodes.value, 4096);
  ar.ranks_per_node = (int)std::min<double>(c.gpus_per_node.value, ar.ranks);
  if (ar.ranks % ar.ranks_per_node != 0) ar.ranks = ar.ranks_per_node;
  double t = collective_cost(ar, c).time_us;
  if (!(std::isfinite(t) && t > 0)) std::abort();  // a time that is not a time is a bug
#elif RIDGELINE_FUZZ_TARGET == 10
  load_engine_text(text, "fuzz-engine.json");
#elif RIDGELINE_FUZZ_TARGET == 11
  parse_trace_text(text, "fuzz-trace.csv", false);
  parse_trace_text(text, "fuzz-trace.jsonl", true);
#elif RIDGELINE_FUZZ_TARGET == 12
  static const GpuSpec gpu = load_gpu("h100-sxm");
  std::istringstream in(text);
  for (const OpResult& r : run_op_lines(in, "fuzz.jsonl", gpu))
    if (r.cost && !(std::isfinite(r.cost->time_us) && r.cost->time_us > 0)) std::abort();
#elif RIDGELINE_FUZZ_TARGET == 13
  static const ClusterSpec cluster = load_cluster("dgx-h100");
  std::istringstream in(text);
  for (const CollectiveResult& r : run_collective_lines(in, "fuzz.jsonl", cluster))
    if (r.cost && !(std::isfinite(r.cost->time_us) && r.cost->time_us >= 0)) std::abort();
#elif RIDGELINE_FUZZ_TARGET == 14
  load_collective_dataset(as_file(text, ".json"));
#elif RIDGELINE_FUZZ_TARGET == 15
  load_training_runs(as_file(text, ".json"));
#elif RIDGELINE_FUZZ_TARGET == 16
  load_baseline(as_file(text, ".json"));
#elif RIDGELINE_FUZZ_TARGET == 17
  load_interval_table(as_file(text, ".json"));
#elif RIDGELINE_FUZZ_TARGET == 18
  read_serving_data(as_file(text, ".json"));
#elif RIDGELINE_FUZZ_TARGET == 19
  static std::ofstream quiet("/dev/null");
  std::cerr.rdbuf(quiet.rdbuf());  // "N of M points failed", every run
  merge_shards({as_file(text, ".jsonl")}, "json", as_file("", ".out"));
#elif RIDGELINE_FUZZ_TARGET == 20
  static const GpuSpec gpu = load_gpu("h100-sxm");
  nlohmann::json doc = parse_json_text(text, "fuzz-suite.json");
  if (is_suite_document(doc)) {
    suite_figures(doc, gpu, "fuzz-suite.json");
    suite_checks(doc, gpu);
  }
#else
#error "RIDGELINE_FUZZ_TARGET must be 1..20 (see the header)"
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    run_one(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const ridgeline::InputError&) {
    // the expected end of a bad input: a message naming the file and JSON path
  }
  return 0;
}
