// One test per hardware-description error message: each names the file (or flag) and path.
#include "test_helpers.h"

#include "common/embedded_files.h"

#include <nlohmann/json.hpp>

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

nlohmann::json h100_doc() {
  for (const auto& f : embedded_files()) {
    if (f.path == "hardware/gpus/h100-sxm.json") return nlohmann::json::parse(f.text);
  }
  FAIL("h100-sxm.json is not embedded");
  return {};
}

GpuSpec load(const nlohmann::json& doc, std::vector<std::string> sets = {}) {
  return load_gpu_text(doc.dump(), "my-gpu.json", sets);
}

}  // namespace

TEST_CASE("hardware error: unknown key", "[hardware][errors]") {
  auto d = h100_doc();
  d["memory"]["hbm"]["bandwith_GBps"] = {{"value", 1}, {"source", "assumed: typo"}};
  require_input_error([&] { load(d); }, {"my-gpu.json: /memory/hbm/bandwith_GBps: unknown key"});
}

TEST_CASE("hardware error: wrong type", "[hardware][errors]") {
  auto d = h100_doc();
  d["memory"]["hbm"]["bandwidth_GBps"]["value"] = "fast";
  require_input_error(
      [&] { load(d); },
      {"my-gpu.json: /memory/hbm/bandwidth_GBps/value: expected a positive number, got \"fast\""});
}

TEST_CASE("hardware error: missing field", "[hardware][errors]") {
  auto d = h100_doc();
  d["compute"].erase("sm_count");
  require_input_error([&] { load(d); }, {"my-gpu.json: /compute/sm_count: missing"});
}

TEST_CASE("hardware error: non-integer SM count", "[hardware][errors]") {
  auto d = h100_doc();
  d["compute"]["sm_count"]["value"] = 131.5;
  require_input_error([&] { load(d); }, {"/compute/sm_count/value: expected an integer"});
}

TEST_CASE("hardware error: derived peak disagrees with the datasheet", "[hardware][errors]") {
  auto d = h100_doc();
  d["compute"]["tensor_clock_MHz"]["value"] = 1980;  // the max clock, a classic mistake (A4)
  require_input_error(
      [&] { load(d); },
      {"my-gpu.json: /compute/stated_peak_tflops/tf32/value: stated 494.7 TFLOPS", "1980 MHz"});
  auto e = h100_doc();
  e["compute"]["tensor_clock_MHz"]["value"] = 1980;
  for (auto k : {"tf32", "bf16", "fp16", "fp8", "int8"})
    e["compute"]["stated_peak_tflops"].erase(k);
  require_input_error([&] { load(e); }, {"/compute/stated_peak_tflops: no stated peak for"});
}

TEST_CASE("hardware error: a stated peak without ops per clock", "[hardware][errors]") {
  auto d = h100_doc();
  d["compute"]["tensor_ops_per_clk_per_sm"].erase("int8");
  require_input_error(
      [&] { load(d); },
      {"/compute/stated_peak_tflops/int8: a stated peak for int8 but no ops_per_clk_per_sm"});
}

TEST_CASE("hardware error: unknown dtype in a unit table", "[hardware][errors]") {
  auto d = h100_doc();
  d["compute"]["tensor_ops_per_clk_per_sm"]["fp6"] = {{"value", 1}, {"source", "assumed: x"}};
  require_input_error([&] { load(d); },
                      {"/compute/tensor_ops_per_clk_per_sm/fp6: unknown tensor dtype"});
  auto e = h100_doc();
  e["compute"]["vector_ops_per_clk_per_sm"]["bf16"] = {{"value", 1}, {"source", "assumed: x"}};
  require_input_error([&] { load(e); },
                      {"/compute/vector_ops_per_clk_per_sm/bf16: unknown vector dtype"});
}

TEST_CASE("hardware error: bad provenance", "[hardware][errors]") {
  auto d = h100_doc();
  d["memory"]["hbm"]["bandwidth_GBps"]["source"] = "measured: somewhere";
  require_input_error(
      [&] { load(d); },
      {"/memory/hbm/bandwidth_GBps/source: a measured figure must name its device and date"});
}

TEST_CASE("hardware error: unknown architecture", "[hardware][errors]") {
  auto d = h100_doc();
  d["architecture"] = "kepler";
  require_input_error([&] { load(d); },
                      {"my-gpu.json: /architecture: unknown architecture \"kepler\"", "hopper"});
}

TEST_CASE("hardware error: unknown key in a model override", "[hardware][errors]") {
  auto d = h100_doc();
  d["model"] = {{"gemm", {{"ctas_per_smm", {{"value", 2}, {"source", "assumed: x"}}}}}};
  require_input_error([&] { load(d); }, {"my-gpu.json: /model/gemm/ctas_per_smm: unknown key"});
}

TEST_CASE("hardware error: bad value in a model override names the GPU file",
          "[hardware][errors]") {
  auto d = h100_doc();
  d["model"] = {{"memory", {{"hbm_efficiency", {{"value", 1.5}, {"source", "assumed: x"}}}}}};
  require_input_error([&] { load(d); },
                      {"my-gpu.json: /model/memory/hbm_efficiency/value: expected a fraction"});
}

TEST_CASE("hardware error: L2 not smaller than memory", "[hardware][errors]") {
  auto d = h100_doc();
  d["memory"]["l2"]["capacity_bytes"]["value"] = 1e12;
  require_input_error([&] { load(d); },
                      {"/memory/l2/capacity_bytes/value: L2 must be smaller than device memory"});
}

TEST_CASE("hardware error: L2 slower than HBM", "[hardware][errors]") {
  auto d = h100_doc();
  d["memory"]["l2"]["bandwidth_GBps"]["value"] = 1000;
  require_input_error([&] { load(d); },
                      {"/memory/l2/bandwidth_GBps/value: L2 bandwidth must exceed"});
}

TEST_CASE("hardware error: L2 knees out of order", "[hardware][errors]") {
  require_input_error([] { load_gpu("h100-sxm", {"model.memory.l2_knee_end_fraction=0.3"}); },
                      {"--set model.memory.l2_knee_end_fraction=0.3: "
                       "/model/memory/l2_knee_end_fraction/value: must be larger"});
}

TEST_CASE("hardware error: shared memory larger than L1", "[hardware][errors]") {
  require_input_error([] { load_gpu("h100-sxm", {"compute.max_smem_per_sm_bytes=300000"}); },
                      {"/compute/max_smem_per_sm_bytes/value: larger than l1_smem_per_sm_bytes"});
}

TEST_CASE("hardware error: vendor not known", "[hardware][errors]") {
  auto d = h100_doc();
  d["vendor"] = "intel";
  require_input_error([&] { load(d); }, {"my-gpu.json: /vendor: expected one of nvidia, amd"});
}

TEST_CASE("hardware error: empty tile list", "[hardware][errors]") {
  auto d = h100_doc();
  d["model"] = {
      {"gemm", {{"tiles", {{"source", "assumed: x"}, {"shapes", nlohmann::json::array()}}}}}};
  require_input_error([&] { load(d); },
                      {"my-gpu.json: /model/gemm/tiles/shapes: at least one tile shape"});
}

TEST_CASE("what-if error: unknown path names the flag", "[hardware][errors]") {
  require_input_error(
      [] { load_gpu("h100-sxm", {"memory.hbm.bandwith_GBps=4800"}); },
      {"--set memory.hbm.bandwith_GBps=4800: /memory/hbm/bandwith_GBps: no such field"});
}

TEST_CASE("what-if error: bad value names the flag", "[hardware][errors]") {
  require_input_error([] { load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=fast"}); },
                      {"--set memory.hbm.bandwidth_GBps=fast: /memory/hbm/bandwidth_GBps/value: "
                       "expected a positive number"});
}

TEST_CASE("what-if error: no '='", "[hardware][errors]") {
  require_input_error([] { load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps"}); },
                      {"expected PATH=VALUE"});
}

TEST_CASE("what-if error: a group instead of a field", "[hardware][errors]") {
  require_input_error([] { load_gpu("h100-sxm", {"memory.hbm=1"}); },
                      {"/memory/hbm: names a group of fields"});
}

TEST_CASE("gpu error: unknown preset lists the presets", "[hardware][errors]") {
  require_input_error([] { load_gpu("h100"); }, {"--gpu: unknown GPU \"h100\"", "h100-sxm"});
}

TEST_CASE("gpu error: unreadable file and invalid JSON", "[hardware][errors]") {
  require_input_error([] { load_gpu("/nonexistent/gpu.json"); },
                      {"/nonexistent/gpu.json: cannot open file"});
  require_input_error([] { load_gpu_text("{", "broken.json"); }, {"broken.json: invalid JSON"});
  require_input_error([] { load_gpu_text("{}", "empty.json"); },
                      {"empty.json: /architecture: missing"});
}
