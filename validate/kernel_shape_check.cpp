// Attention records against the head_dim their kernels were built for (kernel_shape_check.h).
#include "validate/kernel_shape_check.h"

#include "common/errors.h"

#include <regex>
#include <vector>

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

namespace {

std::string dims(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// The shape measure_hf.py handed to SDPA ("ran_q_shape", "ran_kv_shape"), when recorded, must be
// the record's: queries [batch, heads, q_len, head_dim], K/V [batch, kv_heads, kv_len, head_dim]
// (heads in place of kv_heads where K/V were expanded for a backend that refused GQA).
void check_ran_shape(const nlohmann::json& record, const JsonReader& rec, const std::string& key,
                     const std::vector<std::vector<int64_t>>& allowed) {
  if (!record.contains(key)) return;
  const auto& v = record[key];
  std::vector<int64_t> got;
  if (v.is_array())
    for (const auto& x : v)
      if (x.is_number_integer()) got.push_back(x.get<int64_t>());
  if (!v.is_array() || got.size() != v.size() || got.size() != 4)
    rec.fail(key, "expected 4 integers (batch, heads, length, head_dim)");
  for (const auto& want : allowed)
    if (got == want) return;
  rec.fail(key, "SDPA ran " + dims(got) + ", the record says " + dims(allowed.front()) +
                    ": it did not run the record's shape");
}

}  // namespace

void check_attention_kernels(const nlohmann::json& record, const AttentionOp& a,
                             const JsonReader& rec) {
  check_ran_shape(record, rec, "ran_q_shape", {{a.batch, a.heads, a.q_len, a.head_dim}});
  check_ran_shape(
      record, rec, "ran_kv_shape",
      {{a.batch, a.kv_heads, a.kv_len, a.head_dim}, {a.batch, a.heads, a.kv_len, a.head_dim}});
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
