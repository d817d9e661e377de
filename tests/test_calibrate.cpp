// Calibration fit: the committed profiles are reproduced from the committed measurements
// (same input, same parameters), only the fit split is used, and a planted broken measurement
// is caught.
#include "calibrate/fit/fit.h"
#include "calibrate/fit/profile.h"
#include "common/json_reader.h"
#include "test_helpers.h"

using namespace ridgeline;

namespace {

std::string src(const std::string& rel) {
  return std::string(RIDGELINE_SOURCE_DIR) + "/" + rel;
}

Dataset h100_data() {
  return load_datasets({src("validate/data/h100-sxm-ops-2026-11-29.json"),
                        src("validate/data/h100-sxm-norms-2026-11-29.json")});
}

}  // namespace

TEST_CASE("calibrate: the committed H100 profile is what the fit gives", "[calibrate]") {
  GpuSpec start = load_gpu("h100-sxm", {}, "none");
  FitResult r = fit_parameters(start, h100_data(), default_knobs(start));
  nlohmann::ordered_json fitted = profile_json(start, r, "test");
  nlohmann::json committed = read_json_file(src("hardware/profiles/h100-sxm.json"));
  for (auto it = committed["parameters"].begin(); it != committed["parameters"].end(); ++it) {
    INFO(it.key());
    CHECK(fitted["parameters"][it.key()].get<double>() == Approx(it->get<double>()).epsilon(1e-6));
  }
  CHECK(r.after.fit_mape <= r.before.fit_mape);
}

TEST_CASE("calibrate: the fit never sees the held-out split", "[calibrate]") {
  GpuSpec start = load_gpu("h100-sxm", {}, "none");
  Dataset d = h100_data();
  Dataset scrambled = d;
  for (auto& m : scrambled.records) {
    if (m.split == "holdout") m.measured_us *= 3;  // nonsense the fit must not react to
  }
  auto a = fit_parameters(start, d, default_knobs(start));
  auto b = fit_parameters(start, scrambled, default_knobs(start));
  for (size_t i = 0; i < a.params.size(); ++i) CHECK(a.params[i].value == b.params[i].value);
}

TEST_CASE("calibrate: a planted broken measurement is caught", "[calibrate]") {
  GpuSpec gpu = load_gpu("h100-sxm");
  Dataset d = h100_data();
  CHECK(suspicious_measurements(gpu, d).empty());
  for (auto& m : d.records) {
    if (m.op.id == "gemm-bf16-8192x8192x8192")
      m.measured_us /= 5;  // faster than the datasheet allows
  }
  auto problems = suspicious_measurements(gpu, d);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("gemm-bf16-8192x8192x8192: faster than the datasheet roofline") !=
        std::string::npos);
}

TEST_CASE("calibrate: profiles apply to their GPU, then to its architecture", "[calibrate]") {
  CHECK(load_gpu("h100-sxm").profile == "hardware/profiles/h100-sxm.json (own)");
  CHECK(load_gpu("h200-sxm").profile == "hardware/profiles/h200-sxm.json (own)");
  CHECK(load_gpu("h100-pcie").profile.find("same architecture") != std::string::npos);
  CHECK(load_gpu("a100-sxm-80gb").profile == "none");
  GpuSpec g = load_gpu("h100-sxm");
  CHECK(g.model.memory.hbm_efficiency.source.kind == SourceKind::Fitted);
  CHECK(load_gpu("h100-sxm", {}, "none").model.memory.hbm_efficiency.source.kind !=
        SourceKind::Fitted);
}

TEST_CASE("calibrate error: a profile for another architecture", "[calibrate][errors]") {
  test::require_input_error(
      [] { load_gpu("a100-sxm-80gb", {}, src("hardware/profiles/h100-sxm.json")); },
      {"/architecture: a hopper profile cannot calibrate a ampere GPU"});
}
