// Levenberg-Marquardt fit of the model's parameters; see fit.h.
#include "calibrate/fit/fit.h"

#include "model/op_cost.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

// A knob on a Fact reached by a member-pointer chain, written as a lambda pair.
template <class Get>
FitKnob knob(const std::string& path, double lo, double hi, Get fact_of) {
  return FitKnob{path, lo, hi,
                 [fact_of](const GpuSpec& g) { return fact_of(const_cast<GpuSpec&>(g)).value; },
                 [fact_of](GpuSpec& g, double v) { fact_of(g).value = v; }};
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
  k.push_back(knob("model/power/few_sm_speedup", 1.0, 1.6,
                   [](GpuSpec& g) -> Fact& { return g.model.power.few_sm_speedup; }));
  k.back().lower_bound_is_neutral = true;  // 1 = no clock boost seen
  k.push_back(knob("model/memory/hbm_efficiency", 0.5, 1.0,
                   [](GpuSpec& g) -> Fact& { return g.model.memory.hbm_efficiency; }));
  k.push_back(knob("model/memory/l2_efficiency", 0.3, 1.0,
                   [](GpuSpec& g) -> Fact& { return g.model.memory.l2_efficiency; }));
  k.push_back(knob("model/memory/latency_round_trips", 0.0, 6.0,
                   [](GpuSpec& g) -> Fact& { return g.model.memory.latency_round_trips; }));
  k.push_back(
      knob("launch/graph_us", 0.2, 3.0, [](GpuSpec& g) -> Fact& { return g.launch.graph_us; }));
  k.push_back(knob("model/gemm/hbm_efficiency", 0.5, 1.0,
                   [](GpuSpec& g) -> Fact& { return g.model.gemm.hbm_efficiency; }));
  k.push_back(knob("model/gemm/grouped_hbm_efficiency", 0.2, 1.0,
                   [](GpuSpec& g) -> Fact& { return g.model.gemm.grouped_hbm_efficiency; }));
  k.push_back(knob("model/gemm/grouped_overhead_us", 0.0, 30.0,
                   [](GpuSpec& g) -> Fact& { return g.model.gemm.grouped_overhead_us; }));
  k.push_back(knob("model/gemm/fp8_efficiency", 0.5, 1.0,
                   [](GpuSpec& g) -> Fact& { return g.model.gemm.fp8_efficiency; }));
  // 8- and 4-byte aligned GEMMs run the same fallback kernel (seen on H100): one knob for both.
  k.push_back(FitKnob{"model/gemm/align8_efficiency", 0.05, 1.0,
                      [](const GpuSpec& g) { return g.model.gemm.align8_efficiency.value; },
                      [](GpuSpec& g, double v) {
                        g.model.gemm.align8_efficiency.value =
                            g.model.gemm.align4_efficiency.value = v;
                      }});
  k.push_back(knob("model/gemm/align2_efficiency", 0.05, 1.0,
                   [](GpuSpec& g) -> Fact& { return g.model.gemm.align2_efficiency; }));
  k.push_back(knob("model/attention/mma_efficiency", 0.2, 1.0,
                   [](GpuSpec& g) -> Fact& { return g.model.attention.mma_efficiency; }));
  k.push_back(knob("model/attention/softmax_exposed_fraction", 0.0, 2.0,
                   [](GpuSpec& g) -> Fact& { return g.model.attention.softmax_exposed_fraction; }));
  k.push_back(knob("model/vector/row_reduce_us", 0.0, 5.0,
                   [](GpuSpec& g) -> Fact& { return g.model.vector.row_reduce_us; }));
  k.push_back(knob("model/vector/reduce_combine_us", 0.0, 20.0,
                   [](GpuSpec& g) -> Fact& { return g.model.vector.reduce_combine_us; }));
  k.push_back(knob("model/vector/strided_elements_per_clk", 0.2, 16.0,
                   [](GpuSpec& g) -> Fact& { return g.model.vector.strided_elements_per_clk; }));
  k.push_back(knob("model/memory/sm_bytes_per_clk", 8.0, 128.0,
                   [](GpuSpec& g) -> Fact& { return g.model.memory.sm_bytes_per_clk; }));
  k.push_back(knob("model/memory/l2_knee_start_fraction", 0.2, 1.0,
                   [](GpuSpec& g) -> Fact& { return g.model.memory.l2_knee_start_fraction; }));
  // The knee's end stays past its start (set after it): the hit fraction falls between the two.
  k.push_back(FitKnob{"model/memory/l2_knee_end_fraction", 0.5, 3.0,
                      [](const GpuSpec& g) { return g.model.memory.l2_knee_end_fraction.value; },
                      [](GpuSpec& g, double v) {
                        auto& m = g.model.memory;
                        m.l2_knee_end_fraction.value =
                            std::max(v, m.l2_knee_start_fraction.value + 0.05);
                      }});
  k.push_back(
      knob("model/vector/reduce_cta_inflight_elements", 256.0, 16384.0,
           [](GpuSpec& g) -> Fact& { return g.model.vector.reduce_cta_inflight_elements; }));
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
