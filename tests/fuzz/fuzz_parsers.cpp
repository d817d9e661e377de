// libFuzzer harnesses for the parsers users feed files to, one binary per target
// (RIDGELINE_FUZZ_TARGET): a GPU description, a Hugging Face config.json, an op JSONL line
// (parsed, then predicted on an H100: the time must be finite and positive), a runtime profile.
// A bad input must end in InputError (a message for the user); any other exception, a crash, a
// sanitizer report or a non-finite time is a bug, and libFuzzer stops on it with the input.
// Built by -DRIDGELINE_FUZZ=ON with clang; `./quickstart.sh fuzz` runs each for a bounded time.
#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_load.h"
#include "model/op_cost.h"
#include "workloads/model_config.h"
#include "workloads/op_parse.h"
#include "workloads/runtime_profile.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

using namespace ridgeline;

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
#else
#error "RIDGELINE_FUZZ_TARGET must be 1 (gpu), 2 (model), 3 (op) or 4 (runtime)"
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
