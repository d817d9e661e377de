// Attention records against the head_dim their kernels were built for (kernel_shape_check.h).
#include "validate/kernel_shape_check.h"

#include "common/errors.h"

#include <regex>

namespace ridgeline {

std::optional<KernelHeadDim> kernel_head_dim(const std::string& name) {
  static const std::regex fa2(R"(Flash_fwd_kernel_traits<(\d+),)");
  static const std::regex cutlass(R"(AttentionKernel<[^,]+, [^,]+, [^,]+, \d+, \d+, (\d+),)");
  std::smatch m;
  if (std::regex_search(name, m, fa2)) {
    int d = std::stoi(m[1]);
    return KernelHeadDim{d, d - 32, m[0]};
  }
  if (std::regex_search(name, m, cutlass)) {
    int d = std::stoi(m[1]);
    int below = d <= 64 ? 0 : d <= 128 ? 64 : 128;
    return KernelHeadDim{d, below, m[0]};
  }
  return std::nullopt;
}

void check_attention_kernels(const nlohmann::json& record, const AttentionOp& a,
                             const JsonReader& rec) {
  if (!record.contains("kernels") || !record["kernels"].is_array()) return;
  const auto& names = record["kernels"];
  for (size_t j = 0; j < names.size(); ++j) {
    if (!names[j].is_string()) continue;
    auto d = kernel_head_dim(names[j].get<std::string>());
    if (!d || (a.head_dim > d->min && a.head_dim <= d->max)) continue;
    rec.fail_at("kernels/" + std::to_string(j),
                "the kernel (" + d->what + ") runs head_dim " + std::to_string(d->min + 1) +
                    " to " + std::to_string(d->max) + ", the record says " +
                    std::to_string(a.head_dim) + ": it did not run the record's shape");
  }
}

}  // namespace ridgeline
