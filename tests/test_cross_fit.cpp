// Cross-fitted residuals for prediction intervals (calibrate/fit/cross_fit.h): folds are a fixed
// function of the id, a kernel's cross-fitted prediction never comes from a fit that saw it, and
// on noisy data the cross-fitted residuals are wider than the in-sample ones a fit leaves on its
// own points (the reason intervals take them).
#include "calibrate/fit/cross_fit.h"

#include "test_helpers.h"

#include <algorithm>
#include <cmath>

using namespace ridgeline;

namespace {

// Memory-bound kernels of many sizes timed as the profile predicts them times a fixed, uneven
// noise (+-12%), all in the fit split: a data set a fit over-explains.
Dataset noisy_kernels(const GpuSpec& gpu) {
  Dataset d{"noisy.json", nlohmann::json::object(), {}, {}};
  const double noise[] = {1.12, 0.9, 1.05, 0.88, 1.1, 0.95, 1.08, 0.92, 1.0, 0.89, 1.11, 0.97};
  for (int i = 0; i < 24; ++i) {
    Op op = i % 2 ? test::elementwise(ElementwiseKind::Add, (int64_t)1 << (12 + i / 2))
                  : test::row_op(RowOpKind::RmsNorm, (int64_t)16 << (i / 2), 4096);
    op.id = std::string(1, (char)('a' + i));  // a..x (GCC 12's -Wrestrict misfires on to_string)
    double us = predict_op(op, gpu).time_us * noise[i % 12];
    d.records.push_back({op, "fit", us, "", 1, ""});
  }
  return d;
}

double spread(const std::vector<double>& ratios) {  // mean |log ratio|
  double s = 0;
  for (double r : ratios) s += std::fabs(std::log(r));
  return s / (double)ratios.size();
}

}  // namespace

TEST_CASE("cross-fitting: a fold is a fixed function of the id", "[intervals][cross-fit]") {
  CHECK(fold_of("gemm-bf16-4096x4096x4096", 5) == fold_of("gemm-bf16-4096x4096x4096", 5));
  std::vector<int> count(5, 0);
  for (int i = 0; i < 500; ++i) {
    std::string id{(char)('a' + i % 26), (char)('a' + i / 26)};
    int f = fold_of(id, 5);
    REQUIRE(f >= 0);
    REQUIRE(f < 5);
    ++count[(size_t)f];
  }
  for (int c : count) CHECK(c > 60);  // about 100 each
}

TEST_CASE("cross-fitting: a kernel is never predicted by a fit that saw it",
          "[intervals][cross-fit]") {
  const GpuSpec& gpu = test::h100();
  Dataset d = noisy_kernels(gpu);
  Dataset planted = d;
  planted.records[3].measured_us *= 3;  // only its own fold's refit must not react to it
  CrossFitted a = cross_fit_kernels(gpu, d, 4), b = cross_fit_kernels(gpu, planted, 4);
  const Measurement& m = d.records[3];
  double before = a.predicted_us.at({m.op.id, m.measured_us});
  double after = b.predicted_us.at({m.op.id, planted.records[3].measured_us});
  CHECK(after == Approx(before).epsilon(1e-12));
  // the in-sample fit does react: that is what made the old residuals too narrow
  FitResult all = fit_parameters(gpu, d, default_knobs(gpu));
  FitResult all_planted = fit_parameters(gpu, planted, default_knobs(gpu));
  CHECK(predict_op(m.op, all_planted.fitted).time_us > 1.01 * predict_op(m.op, all.fitted).time_us);
  REQUIRE(a.folds.size() == 4);
  int predicted = 0;
  for (const FoldFit& f : a.folds) predicted += f.predicted_cases;
  CHECK(predicted == (int)d.records.size());
}

TEST_CASE("cross-fitting: out-of-sample residuals are wider than in-sample ones",
          "[intervals][cross-fit]") {
  const GpuSpec& gpu = test::h100();
  Dataset d = noisy_kernels(gpu);
  FitResult fit = fit_parameters(gpu, d, default_knobs(gpu));
  CrossFitted cross = cross_fit_kernels(gpu, d, 4);
  std::vector<double> in_sample, cross_fitted;
  for (const auto& m : d.records) {
    in_sample.push_back(m.measured_us / predict_op(m.op, fit.fitted).time_us);
    cross_fitted.push_back(m.measured_us / cross.predicted_us.at({m.op.id, m.measured_us}));
  }
  CHECK(spread(cross_fitted) > spread(in_sample));
  RatioQuantiles q_in = conformal_quantiles(in_sample), q_cross = conformal_quantiles(cross_fitted);
  CHECK(q_cross.p90 / q_cross.p10 > q_in.p90 / q_in.p10);
}

TEST_CASE("cross-fitting error: fewer than two folds", "[intervals][cross-fit][errors]") {
  test::require_input_error([] { cross_fit_kernels(test::h100(), Dataset{}, 1); },
                            {"--folds: cross-fitting needs at least 2 folds, got 1"});
}

TEST_CASE("cross-fitting error: a file the profile was not fitted on",
          "[intervals][cross-fit][errors]") {
  test::require_input_error(
      [] { cross_fit_profiles({"h100-sxm=validate/data/h200-sxm-ops-2026-11-29.json"}, 5); },
      {"--cross-fit h100-sxm=validate/data/h200-sxm-ops-2026-11-29.json: ",
       "h100-sxm.json was not fitted on it"});
}

TEST_CASE("cross-fitting error: not GPU=FILE, or a GPU without a profile",
          "[intervals][cross-fit][errors]") {
  test::require_input_error([] { cross_fit_profiles({"h100-sxm"}, 5); },
                            {"--cross-fit h100-sxm: expected GPU=FILE"});
  test::require_input_error([] { cross_fit_profiles({"b200=x.json"}, 5); },
                            {"--cross-fit b200: has no calibrated profile of its own"});
}
