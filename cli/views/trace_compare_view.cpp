// Text view of a trace comparison (validate/trace_compare.h):
//
//   shapes: aten::scaled_dot_product_attention (batch 8, 1 query and 2049 keys ...) match ...
//   matched 108 predicted ops to 128 of 128 kernels
//   kernel time  measured 1000.1 us   predicted 951.2 us (-4.9%)   MAPE over ops 14.2%
//   by family    gemm 701 / 683 us | attention ...
//   slowest relative to their bound (measured / plain roofline):
//     layer 0  input_norm  norm  7.49 us  predicted 4.50 us  bound 0.16 us  47x  latency: ...
#include "cli/views/trace_compare_view.h"
#include "cli/views/views.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>

namespace ridgeline {

namespace {

// Why a kernel runs far from its bound, from what it moved and computed in the measured time.
std::string why(const MatchedOp& m, const GpuSpec& gpu) {
  double gbps = m.hbm_bytes / m.measured_us / 1e3;
  double share = gbps / gpu.memory.hbm.bandwidth_GBps.value;
  double tflops = m.flops / m.measured_us / 1e6;
  if (m.measured_us < 5 && m.bottleneck == "latency") {
    return "latency-bound: a " + human_us(m.measured_us) + " kernel cannot reach bandwidth (" +
           fixed(gbps, 0) + " GB/s)";
  }
  if (m.bottleneck == "compute") return "compute-bound at " + fixed(tflops, 0) + " TFLOP/s";
  return m.bottleneck + "-bound, HBM at " + fixed(100 * share, 0) + "% of " +
         fixed(gpu.memory.hbm.bandwidth_GBps.value, 0) + " GB/s";
}

void print_op_line(std::ostream& os, const MatchedOp& m, const GpuSpec& gpu) {
  std::string where = m.layer >= 0 ? "layer " + std::to_string(m.layer) : m.section;
  os << "  " << std::left << std::setw(10) << where << std::setw(18) << m.name.substr(0, 17)
     << std::setw(12) << m.family << std::right << std::setw(10) << human_us(m.measured_us)
     << "  predicted " << std::setw(10) << human_us(m.predicted_us) << "  bound " << std::setw(9)
     << human_us(m.roofline_us) << std::setw(7)
     << (fixed(m.measured_us / std::max(m.roofline_us, 1e-9),
               m.measured_us < 10 * m.roofline_us ? 1 : 0) +
         "x")
     << "  " << why(m, gpu) << "\n";
}

}  // namespace

void print_trace_comparison(std::ostream& os, const TraceComparison& c, const Prediction& p,
                            const GpuSpec& gpu, int worst) {
  os << "ridgeline validate --trace: " << p.description << " on " << gpu.name << "\n";
  if (!c.shapes.empty()) os << c.shapes << "\n";
  int kernels_matched = 0;
  for (const auto& m : c.matched) kernels_matched += (int)m.kernels.size();
  os << "matched " << c.matched.size() << " predicted ops to " << kernels_matched << " of "
     << c.trace_kernels << " kernels; " << c.unmatched_ops.size() << " ops and "
     << c.unmatched_kernels.size() << " kernels unmatched\n";
  double ape = 0;
  for (const auto& m : c.matched) ape += std::fabs(m.predicted_us - m.measured_us) / m.measured_us;
  os << "kernel time  measured " << human_us(c.measured_total_us) << "   predicted "
     << human_us(c.predicted_total_us) << " ("
     << fixed(100 * (c.predicted_total_us / c.measured_total_us - 1), 1)
     << "%)   mean error per op " << fixed(100 * ape / std::max<size_t>(1, c.matched.size()), 1)
     << "%\n";
  std::map<std::string, std::pair<double, double>> by_family;
  for (const auto& m : c.matched) {
    by_family[m.family].first += m.measured_us;
    by_family[m.family].second += m.predicted_us;
  }
  os << "by family   ";
  for (const auto& [f, t] : by_family)
    os << " " << f << " " << human_us(t.first) << " / " << human_us(t.second) << " |";
  os << " (measured / predicted)\n";
  std::vector<const MatchedOp*> sorted;
  for (const auto& m : c.matched) sorted.push_back(&m);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) {
    return a->measured_us - a->roofline_us > b->measured_us - b->roofline_us;
  });
  os << "\nslowest kernels relative to their bound (time lost against the plain roofline):\n";
  for (int i = 0; i < worst && i < (int)sorted.size(); ++i) print_op_line(os, *sorted[i], gpu);
  for (size_t i = 0; i < c.unmatched_kernels.size() && i < 5; ++i) {
    os << "  unmatched kernel (" << c.unmatched_kernels[i].family
       << "): " << c.unmatched_kernels[i].name.substr(0, 90) << "\n";
  }
  for (size_t i = 0; i < c.unmatched_ops.size() && i < 5; ++i)
    os << "  predicted op with no kernel: " << c.unmatched_ops[i] << "\n";
}

}  // namespace ridgeline
