// KV pool sizing (see kv_sizing.h).
#include "serve/kv_sizing.h"

#include "common/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ridgeline {

namespace {

std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  return b;
}

}  // namespace

KvSizing size_kv_cache(const EngineConfig& e, StepModel& model) {
  StepMemory m = model.memory();
  KvSizing k;
  k.weights_bytes = m.weights_bytes;
  k.capacity_bytes = m.capacity_bytes;
  if (e.subtract_activation_peak)
    k.activation_peak_bytes = model.activation_peak_bytes(e.max_num_batched_tokens);
  double avail = 0;
  if (e.memory_rule == KvMemoryRule::FractionOfTotal) {
    avail = e.memory_fraction * m.capacity_bytes - m.weights_bytes;
    if (e.subtract_activation_peak) avail -= k.activation_peak_bytes + m.reserved_bytes;
  } else {
    avail = e.memory_fraction *
            (m.capacity_bytes - m.weights_bytes - m.reserved_bytes - k.activation_peak_bytes);
  }
  double block_bytes = (double)e.block_size_tokens * m.kv_bytes_per_token;
  k.blocks = avail > 0 ? (int64_t)std::floor(avail / block_bytes) : 0;
  if (e.max_blocks > 0) k.blocks = std::min(k.blocks, e.max_blocks);
  if (k.blocks < 1)
    throw InputError(e.file + ": /kv_cache/memory_fraction: " + std::to_string(e.memory_fraction) +
                     " leaves no KV block: " + gib(avail) + " for the cache (capacity " +
                     gib(m.capacity_bytes) + ", weights " + gib(m.weights_bytes) +
                     ", activation peak " + gib(k.activation_peak_bytes) + ", reserved " +
                     gib(m.reserved_bytes) + "); a block needs " + gib(block_bytes));
  k.kv_bytes = (double)k.blocks * block_bytes;
  return k;
}

}  // namespace ridgeline
