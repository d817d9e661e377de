// Levenberg-Marquardt fit of the model's parameters; see fit.h.
#include "calibrate/fit/fit.h"

#include "common/errors.h"
#include "model/op_cost.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

// How a fitted field's knob differs from plainly setting the field.
enum class Tie {
  None,
  NeutralLowerBound,  // ending at lo means "no such effect" (1 = no clock boost seen)
  Align4Follows,      // 8- and 4-byte aligned GEMMs run the same fallback kernel (seen on H100)
  PastKneeStart,      // the knee's end stays past its start (set after it)
};

// The fitted fields of the GPU description and their physical bounds, in fit order (the order
// of a profile's "parameters"). The path names the field, which visit_fields /
// visit_model_fields list once with its rule; only the bounds and ties are said here.
struct FittedField {
  const char* path;
  double lo, hi;
  Tie tie = Tie::None;
};
const FittedField kFitted[] = {
    {"model/power/few_sm_speedup", 1.0, 1.6, Tie::NeutralLowerBound},
    {"model/memory/hbm_efficiency", 0.5, 1.0},
    {"model/memory/l2_efficiency", 0.3, 1.0},
    {"model/memory/latency_round_trips", 0.0, 6.0},
    {"launch/graph_us", 0.2, 3.0},
    {"model/gemm/hbm_efficiency", 0.5, 1.0},
    {"model/gemm/grouped_hbm_efficiency", 0.2, 1.0},
    {"model/gemm/grouped_overhead_us", 0.0, 30.0},
    {"model/gemm/fp8_efficiency", 0.5, 1.0},
    {"model/gemm/align8_efficiency", 0.05, 1.0, Tie::Align4Follows},
    {"model/gemm/align2_efficiency", 0.05, 1.0},
    {"model/attention/mma_efficiency", 0.2, 1.0},
    {"model/attention/softmax_exposed_fraction", 0.0, 2.0},
    {"model/vector/row_reduce_us", 0.0, 5.0},
    {"model/vector/reduce_combine_us", 0.0, 20.0},
    {"model/vector/strided_elements_per_clk", 0.2, 16.0},
    {"model/memory/sm_bytes_per_clk", 8.0, 128.0},
    {"model/memory/l2_knee_start_fraction", 0.2, 1.0},
    {"model/memory/l2_knee_end_fraction", 0.5, 3.0, Tie::PastKneeStart},
    {"model/vector/reduce_cta_inflight_elements", 256.0, 16384.0},
};

// The knob of one fitted field: it reads and sets the field found by path, plus its tie.
FitKnob field_knob(const GpuSpec& gpu, const FittedField& f) {
  std::string path = f.path;
  require_invariant(find_field(gpu, path) != nullptr,
                    "every fitted field is a field of the GPU description");
  FitKnob k{path, f.lo, f.hi, [path](const GpuSpec& g) { return find_field(g, path)->value; },
            [path](GpuSpec& g, double v) { find_field(g, path)->value = v; }};
  k.lower_bound_is_neutral = f.tie == Tie::NeutralLowerBound;
  if (f.tie == Tie::Align4Follows) {
    k.set = [](GpuSpec& g, double v) {
      g.model.gemm.align8_efficiency.value = g.model.gemm.align4_efficiency.value = v;
    };
  } else if (f.tie == Tie::PastKneeStart) {
    k.set = [](GpuSpec& g, double v) {
      auto& m = g.model.memory;
      m.l2_knee_end_fraction.value = std::max(v, m.l2_knee_start_fraction.value + 0.05);
    };
  }
  return k;
}

std::vector<double> residuals(const GpuSpec& gpu, const Dataset& data) {
  std::vector<double> r;
  for (const auto& m : data.records) {
    if (m.split != "fit") continue;
    r.push_back(std::log(predict_op(m.op, gpu).time_us / m.measured_us));
  }
  return r;
}

double cost(const std::vector<double>& r) {
  double c = 0;
  for (double x : r) c += x * x;
  return c;
}

GpuSpec with(const GpuSpec& base, const std::vector<FitKnob>& knobs, const Eigen::VectorXd& x) {
  GpuSpec g = base;
  for (size_t i = 0; i < knobs.size(); ++i) knobs[i].set(g, x[(Eigen::Index)i]);
  return g;
}

// Whether knob i moves any fit case by more than 1% when it moves a tenth of its range from x
// (inward at a bound). A knob no case depends on (attention's when the data hold no attention)
// cannot be identified: it keeps its prior. One case is enough: misaligned GEMMs are few in any
// grid, and their knobs still matter.
bool identifiable(const GpuSpec& gpu, const std::vector<FitKnob>& knobs, const Eigen::VectorXd& x,
                  Eigen::Index i, const std::vector<double>& r, const Dataset& data) {
  Eigen::VectorXd xp = x;
  double h = 0.1 * (knobs[i].hi - knobs[i].lo);
  xp[i] = x[i] + h <= knobs[i].hi ? x[i] + h : x[i] - h;
  std::vector<double> rp = residuals(with(gpu, knobs, xp), data);
  for (size_t k = 0; k < r.size(); ++k) {
    if (std::fabs(rp[k] - r[k]) > 0.01) return true;
  }
  return false;
}

}  // namespace

std::vector<FitKnob> default_knobs(const GpuSpec& gpu) {
  std::vector<FitKnob> k;
  for (const auto& f : kFitted) k.push_back(field_knob(gpu, f));
  // All tile efficiencies move together: one scale over the architecture's table.
  std::vector<GemmTile> base = gpu.model.gemm.tiles;
  double top = 0;
  for (const auto& t : base) top = std::max(top, t.efficiency);
  k.push_back(FitKnob{
      "model/gemm/tiles", 0.3, 1.0 / top,
      [base](const GpuSpec& g) { return g.model.gemm.tiles[0].efficiency / base[0].efficiency; },
      [base](GpuSpec& g, double s) {
        for (size_t i = 0; i < base.size(); ++i)
          g.model.gemm.tiles[i].efficiency = std::min(1.0, base[i].efficiency * s);
      }});
  return k;
}

FitScore score_errors(const std::vector<std::pair<std::string, double>>& split_errors) {
  FitScore s;
  double fit = 0, hold = 0;
  for (const auto& [split, e] : split_errors) {
    if (split == "fit")
      fit += e, ++s.fit_cases;
    else
      hold += e, ++s.holdout_cases;
  }
  s.fit_mape = s.fit_cases ? fit / s.fit_cases : 0;
  s.holdout_mape = s.holdout_cases ? hold / s.holdout_cases : 0;
  return s;
}

FitScore score_fit(const GpuSpec& gpu, const Dataset& data) {
  std::vector<std::pair<std::string, double>> errors;
  for (const auto& m : data.records)
    errors.emplace_back(m.split, std::fabs(predict_op(m.op, gpu).time_us / m.measured_us - 1));
  return score_errors(errors);
}

namespace {

// Levenberg-Marquardt over `knobs` (all identifiable), starting from and updating x; fills
// fitted and iterations.
FitResult levenberg_marquardt(const GpuSpec& gpu, const Dataset& data,
                              const std::vector<FitKnob>& knobs, Eigen::VectorXd& x) {
  const Eigen::Index n = (Eigen::Index)knobs.size();
  Eigen::VectorXd lo(n), hi(n);
  for (Eigen::Index i = 0; i < n; ++i) lo[i] = knobs[i].lo, hi[i] = knobs[i].hi;
  FitResult result;
  std::vector<double> r = residuals(with(gpu, knobs, x), data);
  double c = cost(r), lambda = 1e-2;
  for (int it = 0; it < 40 && n > 0; ++it) {
    result.iterations = it + 1;
    Eigen::Index m = (Eigen::Index)r.size();
    Eigen::MatrixXd J(m, n);
    Eigen::VectorXd rv = Eigen::Map<Eigen::VectorXd>(r.data(), m);
    for (Eigen::Index j = 0; j < n; ++j) {  // forward differences, stepping inward at a bound
      double h = 1e-3 * (hi[j] - lo[j]);
      Eigen::VectorXd xp = x;
      xp[j] = x[j] + h <= hi[j] ? x[j] + h : x[j] - h;
      std::vector<double> rp = residuals(with(gpu, knobs, xp), data);
      J.col(j) = (Eigen::Map<Eigen::VectorXd>(rp.data(), m) - rv) / (xp[j] - x[j]);
    }
    Eigen::MatrixXd A = J.transpose() * J;
    Eigen::VectorXd g = J.transpose() * rv;
    bool improved = false;
    for (int tries = 0; tries < 8 && !improved; ++tries) {
      Eigen::MatrixXd damped = A;
      damped.diagonal() += lambda * (A.diagonal().array() + 1e-9).matrix();
      Eigen::VectorXd step = damped.ldlt().solve(-g);
      Eigen::VectorXd xn = (x + step).cwiseMax(lo).cwiseMin(hi);
      std::vector<double> rn = residuals(with(gpu, knobs, xn), data);
      double cn = cost(rn);
      if (cn < c) {
        improved = true;
        bool converged = (c - cn) < 1e-9 * std::max(1.0, c);
        x = xn, r = rn, c = cn;
        lambda = std::max(1e-7, lambda / 3);
        if (converged) it = 40;
      } else {
        lambda *= 4;
      }
    }
    if (!improved) break;
  }
  result.fitted = with(gpu, knobs, x);
  return result;
}

}  // namespace

FitResult fit_parameters(const GpuSpec& gpu, const Dataset& data,
                         const std::vector<FitKnob>& knobs) {
  const Eigen::Index n = (Eigen::Index)knobs.size();
  Eigen::VectorXd start(n);
  for (Eigen::Index i = 0; i < n; ++i)
    start[i] = std::clamp(knobs[i].get(gpu), knobs[i].lo, knobs[i].hi);
  std::vector<double> r0 = residuals(with(gpu, knobs, start), data);
  std::vector<FitKnob> active;
  std::vector<Eigen::Index> active_index;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (identifiable(gpu, knobs, start, i, r0, data))
      active.push_back(knobs[i]), active_index.push_back(i);
  }
  Eigen::VectorXd x((Eigen::Index)active.size());
  for (size_t j = 0; j < active.size(); ++j) x[(Eigen::Index)j] = start[active_index[j]];
  FitResult result = levenberg_marquardt(with(gpu, knobs, start), data, active, x);
  result.before = score_fit(gpu, data);
  result.after = score_fit(result.fitted, data);
  for (Eigen::Index i = 0; i < n; ++i) {
    auto it = std::find(active_index.begin(), active_index.end(), i);
    double value = it == active_index.end() ? start[i] : x[it - active_index.begin()];
    double span = knobs[i].hi - knobs[i].lo;
    bool unconstrained = it == active_index.end();
    bool at_lo = std::fabs(value - knobs[i].lo) < 1e-6 * span;
    bool at_bound = !unconstrained && ((at_lo && !knobs[i].lower_bound_is_neutral) ||
                                       std::fabs(value - knobs[i].hi) < 1e-6 * span);
    result.params.push_back({knobs[i].path, knobs[i].get(gpu), value, at_bound, unconstrained});
    if (at_bound)
      result.warnings.push_back(knobs[i].path +
                                " ended at its bound; the model may miss an effect");
  }
  if (result.after.fit_mape > 0.15) {
    result.warnings.push_back(
        "the fit leaves " + std::to_string((int)std::round(100 * result.after.fit_mape)) +
        "% mean error on the fit split: the measurements or the model are off");
  }
  return result;
}

std::vector<std::string> suspicious_measurements(const GpuSpec& gpu, const Dataset& data) {
  std::vector<std::string> out;
  for (const auto& m : data.records) {
    // Warm inputs come from L2, so their bound is the L2 bandwidth, not the HBM roofline.
    double roof = m.op.warm_l2 ? 0 : plain_roofline_us(m.op, gpu);
    if (m.measured_us < 0.5)
      out.push_back(m.op.id + ": " + std::to_string(m.measured_us) +
                    " us is below any kernel's launch cost");
    else if (m.spread > kMaxSpread)
      out.push_back(m.op.id + ": its slowest samples (p90) took " +
                    std::to_string(m.spread).substr(0, 4) +
                    "x its fastest (p10): a busy or throttling GPU?");
    else if (m.measured_us < 0.7 * roof)
      out.push_back(m.op.id +
                    ": faster than the datasheet roofline allows (clocks or data wrong?)");
  }
  return out;
}

}  // namespace ridgeline
