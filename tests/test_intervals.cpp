// Prediction intervals (validate/intervals.h): quantiles, table errors (one test per message,
// each naming the file and JSON path), the lookup's walk from a GPU's own calibration to wider
// levels and to "all", and the combination of kernels over a step.
#include "test_helpers.h"

#include "validate/interval_build.h"
#include "validate/intervals.h"
#include "workloads/runtime_profile.h"

#include <cmath>

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

nlohmann::json table_doc() {
  return nlohmann::json::parse(R"({
    "about": "test", "provenance": {"split": "fit"}, "min_count": 5,
    "kernels": {
      "own": {"h100-sxm": {"gemm": {"count": 20, "p10": 0.95, "p50": 1.0, "p90": 1.05},
                           "rmsnorm": {"count": 4, "p10": 0.99, "p50": 1.0, "p90": 1.01},
                           "all": {"count": 30, "p10": 0.9, "p50": 1.0, "p90": 1.1}}},
      "architecture": {"hopper": {"rmsnorm": {"count": 10, "p10": 0.8, "p50": 1.0, "p90": 1.2}}},
      "none": {"any": {"gemm": {"count": 50, "p10": 0.7, "p50": 1.0, "p90": 1.4},
                       "all": {"count": 60, "p10": 0.6, "p50": 1.0, "p90": 1.5}}}},
    "steps": {"own": {"h100-sxm": {"pytorch-eager/decode-graph":
                                   {"count": 6, "p10": 0.97, "p50": 1.0, "p90": 1.03}}}},
    "outputs": {}})");
}

IntervalTable table() {
  return parse_interval_table(table_doc(), "t.json");
}

GpuSpec at(ProfileKind c) {
  GpuSpec g = test::h100();
  g.calibration = c;
  return g;
}

}  // namespace

TEST_CASE("ratio quantiles interpolate between ranks", "[intervals]") {
  std::vector<double> r;
  for (int i = 0; i <= 10; ++i) r.push_back(1 + 0.01 * i);  // 1.00 .. 1.10, shuffled below
  std::swap(r[0], r[7]);
  RatioQuantiles q = ratio_quantiles(r);
  CHECK(q.count == 11);
  CHECK(q.p10 == Approx(1.01));
  CHECK(q.p50 == Approx(1.05));
  CHECK(q.p90 == Approx(1.09));
}

TEST_CASE("a kernel's interval is its predicted time times p10 and p90", "[intervals]") {
  auto i = kernel_interval(table(), at(ProfileKind::Own), test::gemm(4096, 4096, 4096), 100);
  REQUIRE(i);
  CHECK(i->p10_us == Approx(95));
  CHECK(i->p90_us == Approx(105));
  CHECK(i->calibration == "own");
  CHECK(i->category == "gemm");
}

TEST_CASE("an entry below min_count is skipped for the next wider level", "[intervals]") {
  Op norm{"n",
          RowOp{RowOpKind::RmsNorm, 8, 4096, DType::Bf16, RowImpl::SinglePass,
                default_runtime().launch.rows},
          false};
  auto i = kernel_interval(table(), at(ProfileKind::Own), norm, 100);  // own has 4 < 5
  REQUIRE(i);
  CHECK(i->calibration == "architecture");
  CHECK(i->p90_us == Approx(120));
}

TEST_CASE("a GPU without its own profile never uses own entries", "[intervals]") {
  auto arch = kernel_interval(table(), at(ProfileKind::Architecture), test::gemm(64, 64, 64), 10);
  REQUIRE(arch);
  CHECK(arch->calibration == "none");  // hopper has no gemm entry: the none level's
  CHECK(arch->p10_us == Approx(7));
  auto none = kernel_interval(table(), at(ProfileKind::None), test::gemm(64, 64, 64), 10);
  REQUIRE(none);
  CHECK(none->calibration == "none");
}

TEST_CASE("a category no level has falls back to all", "[intervals]") {
  Op sm{"s",
        RowOp{RowOpKind::Softmax, 8, 4096, DType::Bf16, RowImpl::SinglePass,
              default_runtime().launch.rows},
        false};
  auto i = kernel_interval(table(), at(ProfileKind::Own), sm, 100);
  REQUIRE(i);
  CHECK(i->category == "all");
  CHECK(i->calibration == "own");
  CHECK(i->p10_us == Approx(90));
}

TEST_CASE("grouped GEMMs are their own category", "[intervals]") {
  Op g = test::gemm(64, 4096, 4096);
  CHECK(kernel_category(g) == "gemm");
  std::get<GemmOp>(g.shape).groups = 8;
  CHECK(kernel_category(g) == "grouped_gemm");
  CHECK(step_category("fused", "decode-graph", true) == "fused/decode-graph-moe");
}

TEST_CASE("kernels combine linearly within a category, in quadrature across", "[intervals]") {
  RatioQuantiles q{10, 0.9, 1.0, 1.2};
  PredictionInterval one = combine_kernels({{100, q}}, 100);
  CHECK(one.p10_us == Approx(90));
  CHECK(one.p90_us == Approx(120));
  // two independent halves: each deviation halves, their sum shrinks by sqrt(2)
  PredictionInterval two = combine_kernels({{50, q}, {50, q}}, 100);
  CHECK(two.p10_us == Approx(100 - 10 / std::sqrt(2.0)));
  CHECK(two.p90_us == Approx(100 + 20 / std::sqrt(2.0)));
  // a biased category moves the centre by its share
  PredictionInterval biased = combine_kernels({{50, {10, 1.1, 1.2, 1.3}}, {50, q}}, 200);
  CHECK(biased.p10_us == Approx(200 * (1.1 - std::sqrt(0.05 * 0.05 + 0.05 * 0.05))));
}

TEST_CASE("interval table: not an object", "[intervals][errors]") {
  require_input_error([] { parse_interval_table(nlohmann::json::array(), "t.json"); },
                      {"t.json", "expected an object (an interval table)"});
}

TEST_CASE("interval table: provenance must be an object", "[intervals][errors]") {
  auto d = table_doc();
  d["provenance"] = "yesterday";
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json: /provenance: expected an object (files, split, date)"});
}

TEST_CASE("interval table: unknown calibration level", "[intervals][errors]") {
  auto d = table_doc();
  d["kernels"]["own-ish"] = nlohmann::json::object();
  require_input_error(
      [&] { parse_interval_table(d, "t.json"); },
      {"t.json: /kernels/own-ish: unknown calibration level; expected own, architecture or none"});
}

TEST_CASE("interval table: p10 above p50", "[intervals][errors]") {
  auto d = table_doc();
  d["kernels"]["own"]["h100-sxm"]["gemm"]["p10"] = 1.01;
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json: /kernels/own/h100-sxm/gemm/p10: above p50"});
}

TEST_CASE("interval table: p90 below p50", "[intervals][errors]") {
  auto d = table_doc();
  d["steps"]["own"]["h100-sxm"]["pytorch-eager/decode-graph"]["p90"] = 0.99;
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json: /steps/own/h100-sxm/pytorch-eager~1decode-graph/p90: below p50"});
}

TEST_CASE("interval table: a quantile must be positive, a count an integer",
          "[intervals][errors]") {
  auto d = table_doc();
  d["kernels"]["none"]["any"]["gemm"]["p10"] = 0;
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json: /kernels/none/any/gemm/p10: expected a positive number"});
  d = table_doc();
  d["kernels"]["none"]["any"]["gemm"]["count"] = 0;
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json: /kernels/none/any/gemm/count"});
}

TEST_CASE("interval table: unknown keys are errors", "[intervals][errors]") {
  auto d = table_doc();
  d["kernels"]["own"]["h100-sxm"]["gemm"]["p95"] = 1.1;
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json", "/kernels/own/h100-sxm/gemm/p95"});
}

TEST_CASE("interval table: a step category with no kernel entries at all", "[intervals][errors]") {
  auto d = table_doc();
  d["kernels"] = nlohmann::json::object();
  IntervalTable t = parse_interval_table(d, "t.json");
  Prediction p;
  p.sections.resize(1);
  p.sections[0].kernels.resize(1);
  p.sections[0].kernels[0].device_us = 1;
  OpGraph g;
  g.sections.emplace_back();
  boost::add_vertex(GraphNode{}, g.sections[0].dag());
  require_input_error([&] { combined_step_interval(t, test::h100(), g, p); },
                      {"t.json: /kernels: no interval for", "or all at any level"});
}

TEST_CASE("the built-in table loads and covers every GPU preset", "[intervals]") {
  const IntervalTable& t = builtin_interval_table();
  for (const auto& name : gpu_preset_names()) {
    GpuSpec g = load_gpu(name);
    INFO(name);
    CHECK(kernel_interval(t, g, test::gemm(1024, 1024, 1024), 10));
  }
}

namespace {

// A table whose steps hold one category of `n` fit steps at the own level and 30 at architecture.
IntervalTable steps_table(int n) {
  nlohmann::json d = table_doc();
  d["steps"]["own"]["h100-sxm"] = {
      {"pytorch-eager/prefill-eager", {{"count", n}, {"p10", 0.98}, {"p50", 1.0}, {"p90", 1.02}}}};
  d["steps"]["architecture"]["hopper"] = {
      {"pytorch-eager/prefill-eager", {{"count", 30}, {"p10", 0.9}, {"p50", 1.0}, {"p90", 1.1}}}};
  return parse_interval_table(d, "t.json");
}

}  // namespace

TEST_CASE("a step entry needs 9 fit steps for its 90% rank: 8 is skipped, 9 is used",
          "[intervals]") {
  // min_count is 5: before, 8 steps gave p10/p90 = smallest/largest, (n-1)/(n+1) = 78% inside
  const char* cat = "pytorch-eager/prefill-eager";
  auto eight = find_step_quantiles(steps_table(8), at(ProfileKind::Own), cat);
  REQUIRE(eight);
  CHECK(eight->level == "architecture");
  CHECK(eight->q.p90 == Approx(1.1));
  auto nine = find_step_quantiles(steps_table(9), at(ProfileKind::Own), cat);
  REQUIRE(nine);
  CHECK(nine->level == "own");
  CHECK(nine->q.p90 == Approx(1.02));
  CHECK_FALSE(find_step_quantiles(steps_table(9), at(ProfileKind::Own), "fused/train-graph"));
}

TEST_CASE("conformal ranks of 9 ratios are the 1st and 9th, of 19 the 2nd and 18th",
          "[intervals]") {
  std::vector<double> r;
  for (int i = 1; i <= 19; ++i) r.push_back(1 + 0.01 * i);
  RatioQuantiles q19 = conformal_quantiles(r);
  CHECK(q19.p10 == Approx(1.02));
  CHECK(q19.p90 == Approx(1.18));
  r.resize(9);
  RatioQuantiles q9 = conformal_quantiles(r);
  CHECK(q9.p10 == Approx(1.01));
  CHECK(q9.p90 == Approx(1.09));
}
