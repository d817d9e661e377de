// Hardware presets: every one parses, its derived peaks reproduce its datasheet, figures carry
// provenance, and what-if overrides change exactly what they name.
#include "hardware/derived.h"
#include "test_helpers.h"

using namespace ridgeline;

TEST_CASE("every preset parses and its derived peaks match its datasheet", "[hardware]") {
  auto names = gpu_preset_names();
  REQUIRE(!names.empty());
  for (const auto& name : names) {
    INFO(name);
    GpuSpec g = load_gpu(name);
    CHECK(g.name == name);
    for (MathUnit u : kAllMathUnits) {
      if (!has_unit(g, u)) continue;
      double stated = g.compute.stated_peak_tflops[(int)u]->value;
      CHECK(peak_tflops(g, u) == Approx(stated).epsilon(kPeakTolerance));
    }
    CHECK(has_unit(g, MathUnit::VectorFp32));
    CHECK(g.memory.l2.capacity_bytes.value < g.memory.hbm.capacity_bytes.value);
  }
}

TEST_CASE("the required presets exist", "[hardware]") {
  auto names = gpu_preset_names();
  for (const char* n : {"a100-sxm-80gb", "h100-sxm", "h100-pcie", "h200-sxm", "b200", "l40s",
                        "rtx-4090", "mi300x"}) {
    INFO(n);
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  }
}

TEST_CASE("H100 SXM peaks and ridge points", "[hardware]") {
  const GpuSpec& g = test::h100();
  CHECK(peak_tflops(g, MathUnit::TensorBf16) == Approx(989.4).epsilon(0.001));
  CHECK(peak_tflops(g, MathUnit::TensorFp8) == Approx(1978.9).epsilon(0.001));
  CHECK(peak_tflops(g, MathUnit::VectorFp32) == Approx(66.9).epsilon(0.001));
  CHECK(ridge_flop_per_byte(g, MathUnit::TensorBf16) == Approx(295.3).epsilon(0.001));
}

TEST_CASE("every figure has a provenance", "[hardware]") {
  for (const auto& name : gpu_preset_names()) {
    GpuSpec g = load_gpu(name);
    visit_fields(g, [&](const char* path, const Fact& f, FieldRule) {
      INFO(name << " " << path);
      CHECK(!f.source.text.empty());
    });
    visit_model_fields(g.model, [&](const char* path, const Fact& f, FieldRule) {
      INFO(name << " model/" << path);
      CHECK(!f.source.text.empty());
    });
  }
}

TEST_CASE("provenance: measured and fitted figures need a date", "[hardware]") {
  Provenance p;
  CHECK(parse_provenance("measured: H100 SXM, 2026-11-29: copy", p).empty());
  CHECK(p.kind == SourceKind::Measured);
  CHECK(parse_provenance("measured: on some H100", p).find("date") != std::string::npos);
  CHECK(parse_provenance("fitted: no date", p).find("date") != std::string::npos);
  CHECK(parse_provenance("datasheet: NVIDIA", p).empty());
  CHECK(parse_provenance("rumour: forum", p).find("expected") != std::string::npos);
  CHECK(parse_provenance("assumed:", p).find("says nothing") != std::string::npos);
}

TEST_CASE("what-if: --set changes the value and marks the source", "[hardware]") {
  GpuSpec g = load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=4800"});
  CHECK(g.memory.hbm.bandwidth_GBps.value == 4800);
  CHECK(g.memory.hbm.bandwidth_GBps.source.kind == SourceKind::WhatIf);
  REQUIRE(g.what_ifs.size() == 1);
  CHECK(what_if_label(g.what_ifs[0]) == "memory.hbm.bandwidth_GBps=4800");
  CHECK(g.memory.hbm.capacity_bytes.source.kind == SourceKind::Measured);  // untouched
}

TEST_CASE("what-if: model parameters, array elements and slash paths", "[hardware]") {
  GpuSpec g = load_gpu("h100-sxm",
                       {"model/gemm/ctas_per_sm=2", "model.gemm.tiles.shapes.0.efficiency=0.5"});
  CHECK(g.model.gemm.ctas_per_sm.value == 2);
  CHECK(g.model.gemm.tiles[0].efficiency == 0.5);
}

TEST_CASE("what-if: faster HBM makes a memory-bound op faster", "[hardware]") {
  Op op = test::elementwise(ElementwiseKind::Add, 1 << 26);
  double base = predict_op(op, test::h100()).time_us;
  double fast = predict_op(op, load_gpu("h100-sxm", {"memory.hbm.bandwidth_GBps=4355"})).time_us;
  CHECK(fast < base * 0.85);
}
