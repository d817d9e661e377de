// Text view of a prediction:
//
//   llama-3-8b decode, batch 32, kv 2048, pytorch-eager on h100-sxm, graph launch
//   step 12.41 ms   2579 tokens/s   1042 kernels   ...
//   time by bound   compute 3% | hbm 83% | l2 0% | smem 0% | latency 14% | launch 0%
//   sections, top kernels, memory
#include "cli/views/interval_views.h"
#include "cli/views/predict_views.h"
#include "cli/views/views.h"
#include "workloads/op.h"

#include <algorithm>
#include <iomanip>
#include <map>

namespace ridgeline {

namespace {

void print_sections(std::ostream& os, const Prediction& p) {
  os << "\nsection                repeat   each         total        share\n";
  for (const auto& s : p.sections) {
    double total = s.repeat * s.repeat_us;
    os << "  " << std::left << std::setw(22) << s.name << std::right << std::setw(5) << s.repeat
       << "   " << std::left << std::setw(13) << human_us(s.repeat_us) << std::setw(13)
       << human_us(total) << fixed(100 * total / p.total_us, 1) << "%\n";
  }
}

struct KernelTotal {
  double us = 0;
  int64_t count = 0;
  std::string bound, family;
};

void print_top_kernels(std::ostream& os, const Prediction& p, int top) {
  std::map<std::string, KernelTotal> by_name;
  for (const auto& s : p.sections) {
    for (const auto& k : s.kernels) {
      auto& t = by_name[k.name];
      t.us += s.repeat * k.device_us;
      t.count += s.repeat;
      t.bound = bottleneck_name(k.cost.bottleneck);
      t.family = k.family;
    }
  }
  std::vector<std::pair<std::string, KernelTotal>> sorted(by_name.begin(), by_name.end());
  std::sort(sorted.begin(), sorted.end(),
            [](auto& a, auto& b) { return a.second.us > b.second.us; });
  os << "\ntop kernels            op           count   each         total        share   bound\n";
  for (int i = 0; i < top && i < (int)sorted.size(); ++i) {
    const auto& [name, t] = sorted[i];
    os << "  " << std::left << std::setw(22) << name.substr(0, 21) << std::setw(12)
       << t.family.substr(0, 11) << std::right << std::setw(6) << t.count << "   " << std::left
       << std::setw(13) << human_us(t.us / t.count) << std::setw(13) << human_us(t.us)
       << std::setw(8) << (fixed(100 * t.us / p.total_us, 1) + "%") << t.bound << "\n";
  }
}

void print_memory(std::ostream& os, const Prediction& p) {
  const MemoryFootprint& m = p.memory;
  os << "\nmemory  weights " << human_bytes(m.weights_bytes) << " | KV cache "
     << human_bytes(m.kv_cache_bytes) << " | activations " << human_bytes(m.activation_bytes);
  if (m.gradient_bytes > 0) os << " | gradients " << human_bytes(m.gradient_bytes);
  if (m.optimizer_bytes > 0) os << " | optimizer " << human_bytes(m.optimizer_bytes);
  os << " | reserved " << human_bytes(m.reserved_bytes) << "\n        total "
     << human_bytes(m.total()) << " of " << human_bytes(m.capacity_bytes)
     << (m.fits() ? " (fits)" : " (DOES NOT FIT)") << "; largest batch that fits: " << m.max_batch
     << "\n";
}

}  // namespace

void print_prediction_table(std::ostream& os, const Prediction& p, int top) {
  os << p.description << " on " << p.gpu << ", " << launch_name(p.run.launch) << " launch (profile "
     << p.gpu_profile << ")\n";
  os << "precision  " << precision_line(p.run) << "\n";
  if (!p.what_ifs.empty()) os << "what-ifs   " << what_if_line(p.what_ifs) << "\n";
  os << "step " << human_us(p.total_us) << "   " << fixed(p.tokens_per_s, 0) << " tokens/s   "
     << p.kernels << " kernels   " << fixed(p.flops / p.total_us / 1e6, 1) << " TFLOP/s   "
     << fixed(p.hbm_bytes / p.total_us / 1e3, 0) << " GB/s HBM\n";
  if (p.interval) os << "     " << interval_line(*p.interval) << "\n";
  os << "time by bound  ";
  for (int i = 0; i < kTimeClasses; ++i) {
    if (!time_class_shown(p.time_by_class_us, i)) continue;
    os << (i ? " | " : " ") << time_class_name(i) << " "
       << fixed(100 * p.time_by_class_us[i] / p.total_us, 0) << "%";
  }
  os << "\n";
  print_sections(os, p);
  print_top_kernels(os, p, top);
  print_memory(os, p);
}

}  // namespace ridgeline
