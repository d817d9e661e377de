// What-ifs (`--set`) and --profile names: a what-if keeps the calibrated profile and names it,
// compute what-ifs move the stated peaks with the derived ones (unless those are set too), values
// may be relative to the figure after the profile, and each what-if is listed with its resolved
// value. A profile is found by its file, its name or the path outputs print.
#include "test_helpers.h"

#include "hardware/derived.h"

#include <cmath>

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

double stated(const GpuSpec& g, MathUnit u) {
  return g.compute.stated_peak_tflops[(int)u]->value;
}

}  // namespace

TEST_CASE("what-if: --set keeps the calibrated profile and names it", "[hardware][what-if]") {
  GpuSpec plain = load_gpu("h100-sxm");
  GpuSpec g = load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=4800"});
  CHECK(g.profile == "hardware/profiles/h100-sxm.json (own)");
  CHECK(g.profile == plain.profile);
  CHECK(g.model.memory.hbm_efficiency.value == plain.model.memory.hbm_efficiency.value);
  CHECK(g.model.memory.hbm_efficiency.source.kind == SourceKind::Fitted);
  CHECK(load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=4800"}, "none").profile == "none");
}

TEST_CASE("what-if: more SMs move every stated peak by the same ratio", "[hardware][what-if]") {
  GpuSpec base = load_gpu("h100-sxm");
  GpuSpec g = load_gpu("h100-sxm", {"compute.sm_count=144"});
  CHECK(g.compute.sm_count.value == 144);
  for (MathUnit u : {MathUnit::TensorBf16, MathUnit::TensorFp8, MathUnit::VectorFp32}) {
    CHECK(stated(g, u) == Approx(stated(base, u) * 144 / 132));
    CHECK(peak_tflops(g, u) == Approx(peak_tflops(base, u) * 144 / 132));
  }
  const Provenance& p = g.compute.stated_peak_tflops[(int)MathUnit::TensorBf16]->source;
  CHECK(p.kind == SourceKind::WhatIf);
  CHECK(p.text.find("derived from --set compute.sm_count=144") != std::string::npos);
}

TEST_CASE("what-if: a clock or an ops/clk rate moves only the peaks that use it",
          "[hardware][what-if]") {
  GpuSpec base = load_gpu("h100-sxm");
  GpuSpec clock = load_gpu("h100-sxm", {"compute.tensor_clock_MHz=1980"});
  CHECK(stated(clock, MathUnit::TensorBf16) == Approx(989.4 * 1980 / 1830));
  CHECK(stated(clock, MathUnit::VectorFp32) == stated(base, MathUnit::VectorFp32));
  GpuSpec rate = load_gpu("h100-sxm", {"compute.tensor_ops_per_clk_per_sm.bf16=8192"});
  CHECK(stated(rate, MathUnit::TensorBf16) == Approx(2 * 989.4));
  CHECK(stated(rate, MathUnit::TensorFp16) == stated(base, MathUnit::TensorFp16));
  CHECK(rate.compute.stated_peak_tflops[(int)MathUnit::TensorFp16]->source.kind ==
        SourceKind::Datasheet);
}

TEST_CASE("what-if: a stated peak set beside the change is checked, not moved",
          "[hardware][what-if]") {
  GpuSpec g =
      load_gpu("h100-sxm", {"compute.sm_count=144", "compute.stated_peak_tflops.bf16=1080"});
  CHECK(stated(g, MathUnit::TensorBf16) == 1080);
  CHECK(stated(g, MathUnit::TensorFp16) == Approx(989.4 * 144 / 132));  // not set: follows
  require_input_error(
      [] {
        load_gpu("h100-sxm", {"compute.sm_count=144", "compute.stated_peak_tflops.bf16=989.4"});
      },
      {"--set compute.sm_count=144 --set compute.stated_peak_tflops.bf16=989.4: "
       "/compute/stated_peak_tflops/bf16/value: stated 989.4 TFLOPS, but 144 SMs"});
}

TEST_CASE("what-if: relative values apply to the figure after the profile", "[hardware][what-if]") {
  GpuSpec base = load_gpu("h100-sxm");
  double bw = base.memory.hbm.bandwidth_GBps.value;
  CHECK(load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=+30%"}).memory.hbm.bandwidth_GBps.value ==
        Approx(bw * 1.3));
  CHECK(load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=-10%"}).memory.hbm.bandwidth_GBps.value ==
        Approx(bw * 0.9));
  CHECK(load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=1.3x"}).memory.hbm.bandwidth_GBps.value ==
        Approx(bw * 1.3));
  // A fitted parameter: relative to the profile's value, not the architecture's default.
  GpuSpec fitted = load_gpu("h100-sxm", {"model.memory.hbm_efficiency=1x"});
  CHECK(fitted.model.memory.hbm_efficiency.value == base.model.memory.hbm_efficiency.value);
  CHECK(load_gpu("h100-sxm", {"model.memory.hbm_efficiency=1x"}, "none")
            .model.memory.hbm_efficiency.value != base.model.memory.hbm_efficiency.value);
}

TEST_CASE("what-if: each is listed as written with its resolved value", "[hardware][what-if]") {
  GpuSpec g = load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=+30%", "launch.graph_us=2"});
  REQUIRE(g.what_ifs.size() == 2);
  CHECK(g.what_ifs[0].assignment == "memory.hbm.bandwidth_GBps=+30%");
  CHECK(g.what_ifs[0].path == "memory/hbm/bandwidth_GBps");
  CHECK(g.what_ifs[0].resolved == "4355");
  CHECK(what_if_label(g.what_ifs[0]) == "memory.hbm.bandwidth_GBps=+30% (4355)");
  CHECK(what_if_labels(g) ==
        std::vector<std::string>{"memory.hbm.bandwidth_GBps=+30% (4355)", "launch.graph_us=2"});
}

TEST_CASE("what-if error: a relative value on a field that is not a number", "[hardware][errors]") {
  require_input_error([] { load_gpu("h100-sxm", {"vendor=+30%"}); },
                      {"--set vendor=+30%: /vendor: a relative value (+30%) needs a number field; "
                       "this one holds \"nvidia\""});
}

TEST_CASE("what-if error: a relative value leaving a positive field at zero",
          "[hardware][errors]") {
  require_input_error([] { load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=-100%"}); },
                      {"--set memory.hbm.bandwidth_GBps=-100%: /memory/hbm/bandwidth_GBps/value: "
                       "expected a positive number, got 0"});
  CHECK(load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=-99%"}).memory.hbm.bandwidth_GBps.value >
        0);
}

TEST_CASE("what-if error: a percentage without its sign", "[hardware][errors]") {
  require_input_error([] { load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=30%"}); },
                      {"--set memory.hbm.bandwidth_GBps=30%: a percentage is a change: write +30% "
                       "or -30%, or a multiple such as 1.3x"});
}

TEST_CASE("profile: a built-in profile by name or by its printed path", "[hardware][profile]") {
  GpuSpec by_name = load_gpu("h200-sxm", {}, "h100-sxm");
  GpuSpec by_path = load_gpu("h200-sxm", {}, "hardware/profiles/h100-sxm.json");
  CHECK(by_name.profile == "hardware/profiles/h100-sxm.json (given)");
  CHECK(by_path.profile == by_name.profile);
  CHECK(by_name.model.memory.hbm_efficiency.value == by_path.model.memory.hbm_efficiency.value);
  CHECK(by_name.model.memory.hbm_efficiency.value !=
        load_gpu("h200-sxm").model.memory.hbm_efficiency.value);
}

TEST_CASE("profile error: an unknown name lists the built-in ones", "[hardware][errors]") {
  require_input_error([] { load_gpu("h200-sxm", {}, "h300-sxm"); },
                      {"--profile h300-sxm: no such profile; built in: h100-sxm, h200-sxm"});
}
