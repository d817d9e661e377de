// Text table of `ridgeline op` results, for people:
//
//   ridgeline op on h100-sxm (NVIDIA H100 SXM5 80GB)
//   id            op         time        80% interval        bound    TFLOP/s   HBM GB/s  launch
//   gemm-4k       gemm       169.0 us    163.2-178.5 us      compute  813.2     595       128x256
//   tiles, 4 waves (97% full)
//   attn          attention   88.7 us     81.1-97.4 us        compute  390.5     473       35.0 us
//   cudnn: 128x128 tiles, 2.7 waves (77% full)
// An op kind with implementations names the one that ran at the start of its launch column.
#include "cli/views/interval_views.h"
#include "cli/views/views.h"

#include <iomanip>

namespace ridgeline {

namespace {

std::string launch_text(const OpCost& c) {
  const LaunchShape& d = c.detail;
  std::string s = c.impl ? std::string(c.impl) + ": " : "";
  if (d.tile_m > 0) {
    s += std::to_string(d.tile_m) + "x" + std::to_string(d.tile_n) + " tiles, " +
         fixed(d.waves, d.waves < 10 ? 1 : 0) + " waves (" + fixed(100 * d.wave_efficiency, 0) +
         "% full)";
    if (d.split > 1) s += ", split " + std::to_string(d.split);
    if (d.alignment_bytes < 16) s += ", " + fixed(d.alignment_bytes, 0) + "-byte aligned";
  } else {
    s += fixed(d.active_sms, 0) + " SMs busy";
  }
  if (d.l2_hit_fraction > 0 && d.tile_m == 0)
    s += ", " + fixed(100 * d.l2_hit_fraction, 0) + "% L2 hits";
  return s;
}

}  // namespace

void print_op_table(std::ostream& os, const GpuSpec& gpu, const std::vector<OpResult>& results) {
  os << "ridgeline op on " << gpu.name << " (" << gpu.full_name << "), profile " << gpu.profile;
  for (const auto& w : what_if_labels(gpu)) os << " [what-if " << w << "]";
  os << "\n";
  size_t id_w = 4;
  for (const auto& r : results) id_w = std::max(id_w, std::min<size_t>(r.id.size(), 40));
  os << std::left << std::setw((int)id_w + 2) << "id" << std::setw(12) << "op" << std::setw(12)
     << "time" << std::setw(20) << "80% interval" << std::setw(9) << "bound" << std::setw(10)
     << "TFLOP/s" << std::setw(10) << "HBM GB/s" << std::setw(12) << "roofline"
     << "launch\n";
  for (const auto& r : results) {
    os << std::setw((int)id_w + 2) << r.id.substr(0, 40);
    if (!r.cost) {
      os << "error: " << r.error << "\n";
      continue;
    }
    const OpCost& c = *r.cost;
    os << std::setw(12) << op_family(*r.op) << std::setw(12) << human_us(c.time_us) << std::setw(20)
       << (r.interval ? interval_range(*r.interval) : "-") << std::setw(9)
       << bottleneck_name(c.bottleneck) << std::setw(10) << fixed(c.flops() / c.time_us / 1e6, 1)
       << std::setw(10) << fixed(c.bytes.hbm / c.time_us / 1e3, 0) << std::setw(12)
       << human_us(c.roofline_us) << launch_text(c) << "\n";
  }
}

}  // namespace ridgeline
