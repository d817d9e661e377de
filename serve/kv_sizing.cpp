// KV pool sizing (see kv_sizing.h).
#include "serve/kv_sizing.h"

#include "common/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ridgeline {

namespace {

// Bytes in GiB, or in the largest binary unit below it that shows the value as non-zero
// (a 5 MiB block reads "5.00 MiB", not "0.00 GiB"); zero reads "0.00 GiB".
std::string binary_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 3;
  double scaled = bytes / (1024.0 * 1024 * 1024);
  while (u > 0 && bytes != 0 && std::fabs(scaled) < 1) {
    scaled *= 1024;
    --u;
  }
  char b[48];
  std::snprintf(b, sizeof b, "%.2f %s", scaled, units[u]);
  return b;
}

std::string fraction_text(double f) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", f);
  return b;
}

}  // namespace

KvSizing size_kv_cache(const EngineConfig& e, StepModel& model) {
  require_invariant(!e.limits_from_workload || e.max_num_seqs > 0,
                    "an engine sized for its workload first (trtllm_bench.h)");
  StepMemory m = model.memory();
  // where engine and model meet
  if (e.packed_attention && model.data_parallel_ranks() > 1)
    throw InputError(
        "--engine: a packed_masked attention layout with attention data parallelism "
        "(--ep) is not modelled");
  if (e.packed_attention && (model.sliding_window_tokens() > 0 || m.kv_window_tokens > 0))
    throw InputError(
        "--engine: a packed_masked attention layout with a sliding-window model is "
        "not modelled (its layers mask different keys)");
  KvSizing k;
  k.weights_bytes = m.weights_bytes;
  k.capacity_bytes = m.capacity_bytes;
  if (e.subtract_activation_peak)
    k.activation_peak_bytes = model.activation_peak_bytes(e.max_num_batched_tokens);
  double avail = 0;
  k.memory_fraction =
      e.memory_rule == KvMemoryRule::SglangReserved
          ? e.sglang_reserved.fraction(m.capacity_bytes, model.gpus(), model.pipeline_stages(),
                                       model.data_parallel_ranks())
          : e.memory_fraction;
  if (e.memory_rule != KvMemoryRule::FractionOfFree) {
    avail = k.memory_fraction * m.capacity_bytes - m.weights_bytes;
    if (e.subtract_activation_peak) avail -= k.activation_peak_bytes + m.reserved_bytes;
  } else {
    avail = k.memory_fraction *
            (m.capacity_bytes - m.weights_bytes - m.reserved_bytes - k.activation_peak_bytes);
  }
  double block_bytes = (double)e.block_size_tokens * m.kv_bytes_per_token;
  k.blocks = avail > 0 ? (int64_t)std::floor(avail / block_bytes) : 0;
  if (e.max_blocks > 0) k.blocks = std::min(k.blocks, e.max_blocks);
  if (k.blocks < 1)
    throw InputError(e.file +
                     (e.memory_rule == KvMemoryRule::SglangReserved
                          ? ": /kv_cache/reserved: SGLang's mem_fraction_static "
                          : ": /kv_cache/memory_fraction: ") +
                     fraction_text(k.memory_fraction) +
                     " leaves no KV block: " + binary_bytes(avail) + " for the cache (capacity " +
                     binary_bytes(m.capacity_bytes) + ", weights " + binary_bytes(m.weights_bytes) +
                     ", activation peak " + binary_bytes(k.activation_peak_bytes) + ", reserved " +
                     binary_bytes(m.reserved_bytes) + "); a block needs " +
                     binary_bytes(block_bytes));
  k.ranks = model.data_parallel_ranks();
  k.blocks *= k.ranks;
  k.kv_bytes = (double)k.blocks * block_bytes;
  return k;
}

}  // namespace ridgeline
