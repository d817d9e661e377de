// What a benchmark is and what it gets to run. A Bench has a deterministic name (which also
// picks its fit/holdout split), a family, and a function that fills its JSON entry with
// parameters, raw samples and derived figures. Families register their points up front
// (add_*_benches) so `--only REGEX` can select by name before anything runs. The Context holds
// the device's properties and what benchmarks share: a stream, a cuBLASLt handle and its 32 MiB
// workspace, created on first use and rebuilt if a benchmark left the device in an error state.
#pragma once

#include "cuda_util.cuh"
#include "json.cuh"
#include "timing.cuh"

#include <cublasLt.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ridgeline::gpubench {

struct DeviceInfo {
  int device = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  size_t l2_bytes = 0;
  size_t total_mem_bytes = 0;
  int sm_clock_kHz = 0;   // cudaDevAttrClockRate (peak)
  int mem_clock_kHz = 0;  // cudaDevAttrMemoryClockRate (peak)
  int bus_width_bits = 0;
  int max_threads_per_sm = 0;
  int smem_per_sm = 0;
  int smem_per_block_optin = 0;
};

class Context {
 public:
  Context(const DeviceInfo& dev, bool quick);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& dev() const { return dev_; }
  bool quick() const { return quick_; }
  cudaStream_t stream();
  cublasLtHandle_t lt();
  void* workspace();
  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;

  // The timing plan for this mode (quick: fewer samples, shorter batches).
  TimingPlan plan(int sets) const;
  int samples() const { return quick_ ? 10 : 30; }

  // After a sticky error: drops the handle, workspace and stream and resets the device.
  void reset_device();
  // Device memory free now, in bytes.
  size_t free_bytes() const;

 private:
  void release();
  DeviceInfo dev_;
  bool quick_;
  cudaStream_t stream_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  std::unique_ptr<DeviceBuffer> workspace_;
};

struct Bench {
  std::string name;    // e.g. "gemm/bf16/4096x4096x4096"
  std::string family;  // memory compute gemm launch kernels
  std::function<void(Context&, Json&)> run;
};
using BenchList = std::vector<Bench>;

// Each family registers its points; `quick` registers a smaller set.
void add_memory_benches(BenchList& list, const DeviceInfo& dev, bool quick);
void add_cache_benches(BenchList& list, const DeviceInfo& dev, bool quick);
void add_compute_benches(BenchList& list, const DeviceInfo& dev, bool quick);
void add_gemm_benches(BenchList& list, const DeviceInfo& dev, bool quick);
void add_launch_benches(BenchList& list, const DeviceInfo& dev, bool quick);
void add_kernel_benches(BenchList& list, const DeviceInfo& dev, bool quick);

// FNV-1a 64 of the name; "holdout" when hash % 10 < 3, else "fit".
const char* split_of(const std::string& name);

}  // namespace ridgeline::gpubench
