// Output-level interval quantiles (validate/intervals.h outputs, interval_build.h): the
// split-conformal ranks, the rules an output interval keeps (it contains the point, it widens with
// the quantile), the coverage count at a bound, the too-low check (and that it catches shrunk
// quantiles), the cluster and serving intervals' use of the entries, and one test per error
// message of a malformed outputs entry (each naming the file and JSON path).
#include "test_helpers.h"

#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "validate/interval_build.h"
#include "validate/output_intervals.h"
#include "workloads/model_config.h"

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

nlohmann::json table_doc() {
  return nlohmann::json::parse(R"({
    "about": "test", "provenance": {"split": "fit"}, "min_count": 5,
    "kernels": {"none": {"any": {"all": {"count": 60, "p10": 0.9, "p50": 1.0, "p90": 1.1},
                                 "collective": {"count": 60, "p10": 0.9, "p50": 1.0,
                                                "p90": 1.1}}}},
    "steps": {},
    "outputs": {"cluster_step": {"count": 40, "p10": 0.8, "p50": 1.1, "p90": 1.6,
                                 "data": ["runs.json"], "split": "fit", "method": "conformal"}}})");
}

IntervalTable table() {
  return parse_interval_table(table_doc(), "t.json");
}

std::vector<double> one_to(int n) {  // 1, 2, ..., n, shuffled
  std::vector<double> r;
  for (int i = n; i >= 1; --i) r.push_back(i);
  std::swap(r[0], r[n / 2]);
  return r;
}

}  // namespace

TEST_CASE("conformal quantiles take ranks floor(0.1(n+1)) and ceil(0.9(n+1))", "[intervals]") {
  RatioQuantiles q = conformal_quantiles(one_to(19));  // n + 1 = 20: ranks 2 and 18
  CHECK(q.count == 19);
  CHECK(q.p10 == 2);
  CHECK(q.p50 == 10);
  CHECK(q.p90 == 18);
  q = conformal_quantiles(one_to(18));  // n + 1 = 19: ranks floor(1.9) = 1, ceil(17.1) = 18
  CHECK(q.p10 == 1);
  CHECK(q.p90 == 18);
  q = conformal_quantiles(one_to(3));  // ranks clamp to the first and last
  CHECK(q.p10 == 1);
  CHECK(q.p90 == 3);
  // wider than the interpolated quantiles, never narrower
  RatioQuantiles i = ratio_quantiles(one_to(18));
  CHECK(q.p10 <= i.p10);
  CHECK(conformal_quantiles(one_to(18)).p90 >= i.p90);
}

TEST_CASE("an output interval contains its point and widens with the quantile", "[intervals]") {
  OutputQuantiles o = table().outputs.at(kClusterStep);
  PredictionInterval a = output_interval(o, "cluster step", 1000);
  CHECK(a.p10_us == Approx(800));
  CHECK(a.p90_us == Approx(1600));
  CHECK(a.p10_us <= 1000 * o.q.p50);
  CHECK(1000 * o.q.p50 <= a.p90_us);
  CHECK(a.calibration == "whole-output");
  CHECK(a.count == 40);
  CHECK(a.basis.find("40 fit rows of runs.json") != std::string::npos);
  OutputQuantiles wider = o;
  wider.q.p10 = 0.7, wider.q.p90 = 1.8;
  PredictionInterval b = output_interval(wider, "cluster step", 1000);
  CHECK(b.p10_us < a.p10_us);
  CHECK(b.p90_us > a.p90_us);
}

TEST_CASE("an output entry below min_count is not used", "[intervals]") {
  auto d = table_doc();
  d["outputs"]["cluster_step"]["count"] = 4;  // min_count 5
  CHECK_FALSE(output_quantiles(parse_interval_table(d, "t.json"), kClusterStep));
  d["outputs"]["cluster_step"]["count"] = 5;
  CHECK(output_quantiles(parse_interval_table(d, "t.json"), kClusterStep));
  CHECK_FALSE(output_quantiles(table(), kServingTtft));
}

TEST_CASE("coverage counts a value at a bound as inside", "[intervals]") {
  CoverageRow r;
  count_coverage(r, 0.8, 0.8, 1.2);
  count_coverage(r, 1.2, 0.8, 1.2);
  count_coverage(r, std::nextafter(0.8, 0.0), 0.8, 1.2);
  count_coverage(r, std::nextafter(1.2, 2.0), 0.8, 1.2);
  CHECK(r.count == 4);
  CHECK(r.inside == 2);
  CHECK(r.below == 1);
  CHECK(r.above == 1);
}

TEST_CASE("coverage is too low below the binomial 5% tail of a true 80%", "[intervals]") {
  CHECK(coverage_too_low(17, 10));        // P(X <= 10) = 3.8%
  CHECK_FALSE(coverage_too_low(17, 11));  // 10.6%
  CHECK(coverage_too_low(34, 22));
  CHECK_FALSE(coverage_too_low(34, 23));
  CHECK(coverage_too_low(226, 170));
  CHECK_FALSE(coverage_too_low(226, 171));
  CHECK_FALSE(coverage_too_low(0, 0));
}

TEST_CASE("the coverage check fails when the quantiles are shrunk", "[intervals]") {
  // fit and held-out ratios from one spread: the conformal interval holds the held-out ones
  std::vector<double> fit, held;
  for (int i = 0; i < 200; ++i) (i % 2 ? fit : held).push_back(0.5 + 0.005 * i);
  OutputQuantiles o = output_entry(fit, {"runs.json"});
  auto coverage = [&](const OutputQuantiles& q) {
    CoverageRow r;
    for (double x : held) count_coverage(r, x, q.q.p10, q.q.p90);
    return r;
  };
  CoverageRow ok = coverage(o);
  CHECK(ok.coverage() >= 0.75);
  CHECK_FALSE(coverage_too_low(ok.count, ok.inside));
  OutputQuantiles shrunk = o;  // half the width about the median
  shrunk.q.p10 = (o.q.p10 + o.q.p50) / 2, shrunk.q.p90 = (o.q.p90 + o.q.p50) / 2;
  CoverageRow low = coverage(shrunk);
  CHECK(low.coverage() < 0.5);
  CHECK(coverage_too_low(low.count, low.inside));
}

TEST_CASE("a cluster step uses the cluster_step entry over its kernels", "[intervals][parallel]") {
  const ModelConfig m = load_model(RIDGELINE_SOURCE_DIR "/examples/models/tiny-llama.json");
  const ClusterSpec c = load_cluster("dgx-h100");
  const GpuSpec g = load_gpu(c.gpu);
  ParallelConfig p;
  p.tp = 2, p.dp = 4, p.gpus = 8, p.global_batch = 8;
  RunConfig run;
  run.phase = Phase::Train, run.seq = 128;
  ParallelPrediction pr = predict_parallel(m, run, p, c, g);
  PredictionInterval i = cluster_interval(table(), g, c, m, run, p, pr);
  CHECK(i.category == "cluster step");
  CHECK(i.p10_us == Approx(0.8 * pr.total_us));
  CHECK(i.p90_us == Approx(1.6 * pr.total_us));
  auto d = table_doc();
  d["outputs"] = nlohmann::json::object();
  CHECK(cluster_interval(parse_interval_table(d, "t.json"), g, c, m, run, p, pr).category ==
        "cluster step combined");
}

TEST_CASE("outputs: unknown output kind", "[intervals][errors]") {
  auto d = table_doc();
  d["outputs"]["serving_itl"] = d["outputs"]["cluster_step"];
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json: /outputs/serving_itl: unknown output kind; expected cluster_step, "
                       "serving_output_tokens_per_s, serving_ttft or serving_tpot"});
}

TEST_CASE("outputs: data must name the measurement files", "[intervals][errors]") {
  auto d = table_doc();
  d["outputs"]["cluster_step"]["data"] = nlohmann::json::array();
  require_input_error(
      [&] { parse_interval_table(d, "t.json"); },
      {"t.json: /outputs/cluster_step/data: expected an array of measurement files"});
  d["outputs"]["cluster_step"]["data"] = {"runs.json", 3};
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json: /outputs/cluster_step/data/1: expected a file name"});
}

TEST_CASE("outputs: quantiles come from the fit split only", "[intervals][errors]") {
  auto d = table_doc();
  d["outputs"]["cluster_step"]["split"] = "holdout";
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json: /outputs/cluster_step/split"});
}

TEST_CASE("outputs: an entry's quantiles are ordered", "[intervals][errors]") {
  auto d = table_doc();
  d["outputs"]["cluster_step"]["p90"] = 1.0;
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json: /outputs/cluster_step/p90: below p50"});
}

TEST_CASE("outputs: the section and an entry's method are required", "[intervals][errors]") {
  auto d = table_doc();
  d["outputs"]["cluster_step"].erase("method");
  require_input_error([&] { parse_interval_table(d, "t.json"); },
                      {"t.json: /outputs/cluster_step/method"});
  d = table_doc();
  d.erase("outputs");
  require_input_error([&] { parse_interval_table(d, "t.json"); }, {"t.json: /outputs"});
}

TEST_CASE("output entry: no fit rows", "[intervals][errors]") {
  require_input_error([] { output_entry({}, {"runs.json"}); },
                      {"runs.json: no fit rows to take quantiles of"});
}
