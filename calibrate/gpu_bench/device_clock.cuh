// In-kernel timestamps: SM cycles (%clock64) and nanoseconds (%globaltimer) read together, so a
// kernel can report the clock it actually ran at (cycles / ns). The compiler may move arithmetic
// across a plain clock read; stamp() is a volatile asm with a memory clobber (memory accesses stay
// on their side) and stamp_after(v) also takes the work's result as an operand, so it cannot be
// read before that result exists. Work that is pure arithmetic should also start from a value
// that depends on the first stamp (see opaque_zero).
#pragma once

#include "cuda_util.cuh"

#include <algorithm>
#include <cstdint>

namespace ridgeline::gpubench {

struct Stamp {
  long long cycles;
  unsigned long long ns;
};

__device__ __forceinline__ Stamp stamp() {
  Stamp s;
  asm volatile("mov.u64 %0, %%clock64;\n\tmov.u64 %1, %%globaltimer;"
               : "=l"(s.cycles), "=l"(s.ns)::"memory");
  return s;
}

__device__ __forceinline__ Stamp stamp_after(uint32_t dep) {
  Stamp s;
  asm volatile("mov.u64 %0, %%clock64;\n\tmov.u64 %1, %%globaltimer;"
               : "=l"(s.cycles), "=l"(s.ns)
               : "r"(dep)
               : "memory");
  return s;
}

// 0.0f, but not known to the compiler until the stamp has been read.
__device__ __forceinline__ float opaque_zero(const Stamp& s) {
  return s.cycles == -1 ? 1.0f : 0.0f;
}

// Block 0, thread 0 writes {cycles, ns} of its timed region to out[0..1].
__device__ __forceinline__ void record_region(const Stamp& a, const Stamp& b, long long* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    out[0] = b.cycles - a.cycles;
    out[1] = static_cast<long long>(b.ns - a.ns);
  }
}

// Host side: the {cycles, ns} that record_region() wrote to `region`, and the SM clock they imply.
struct RegionClock {
  long long cycles = 0, ns = 1;
  double mhz() const { return 1e3 * static_cast<double>(cycles) / static_cast<double>(std::max(ns, 1LL)); }
};

inline RegionClock read_region_clock(const DeviceBuffer& region) {
  long long reg[2] = {0, 1};
  CK(cudaMemcpy(reg, region.as<void>(), sizeof reg, cudaMemcpyDeviceToHost));
  return {reg[0], reg[1]};
}

}  // namespace ridgeline::gpubench
