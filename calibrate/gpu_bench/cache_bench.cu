// Memory family, on-chip: shared-memory bandwidth and load latency by pointer chase.
//
// Shared memory: every resident block reads a 16 KiB table in a loop with conflict-free 4- or
// 16-byte loads (eight loads per address computation); bytes per clock per SM are derived with
// the SM clock from cudaDevAttrClockRate and, separately, with the clock measured in the kernel
// (block 0's clock64 cycles over its %globaltimer nanoseconds, read around its loop).
//
// Latency: one thread follows a random cyclic permutation of 128-byte lines (Sattolo's
// algorithm: every line is visited once per pass) at 16 KiB (L1, ld.global.ca, warmed in the
// same kernel since L1 is per SM), 4 MiB (L2, ld.global.cg) and 1 GiB (HBM, TLB misses
// included; each launch continues where the last stopped, so no line is revisited and none is
// in L2). The timed region is measured in the kernel with clock64 (cycles) and %globaltimer
// (ns); samples_us are the timed region's microseconds.
#include "bench.cuh"
#include "device_clock.cuh"

#include <algorithm>
#include <numeric>
#include <random>

namespace ridgeline::gpubench {

namespace {

constexpr int kSmemThreads = 256;
constexpr int kSmemTable = 16 << 10;  // bytes read by each block, indexes wrap within it

__device__ __forceinline__ void xor_into(uint32_t& acc, uint32_t v) {
  acc ^= v;
}
__device__ __forceinline__ void xor_into(uint4& acc, uint4 v) {
  acc.x ^= v.x;
  acc.y ^= v.y;
  acc.z ^= v.z;
  acc.w ^= v.w;
}
__device__ __forceinline__ uint32_t fold(uint32_t v) {
  return v;
}
__device__ __forceinline__ uint32_t fold(uint4 v) {
  return v.x ^ v.y ^ v.z ^ v.w;
}

// The table is 2 x kSmemTable so that base + 7 * 128 elements never needs a wrap.
template <typename V>
__global__ void smem_read(uint32_t iters, uint32_t* sink, long long* region) {
  extern __shared__ unsigned char raw[];
  V* table = reinterpret_cast<V*>(raw);
  constexpr uint32_t kElems = kSmemTable / sizeof(V);
  for (uint32_t i = threadIdx.x; i < 2 * kElems * sizeof(V) / 4; i += blockDim.x)
    reinterpret_cast<uint32_t*>(raw)[i] = i * 2654435761u + blockIdx.x;
  __syncthreads();
  Stamp t0 = stamp();
  V acc{};
  for (uint32_t it = 0; it < iters; ++it) {
    const V* p = table + ((threadIdx.x + it * 32) & (kElems - 1));
#pragma unroll
    for (int u = 0; u < 8; ++u) xor_into(acc, p[u * 128]);
  }
  Stamp t1 = stamp_after(fold(acc));
  if (fold(acc) == 0x9e3779b9u) sink[0] = fold(acc);
  record_region(t0, t1, region);
}

template <typename V>
void run_smem(Context& ctx, Json& out) {
  const DeviceInfo& d = ctx.dev();
  int smem = 2 * kSmemTable;
  int per_sm = std::min(d.max_threads_per_sm / kSmemThreads, d.smem_per_sm / (smem + 1024));
  int blocks = d.sm_count * per_sm;
  uint32_t iters = ctx.quick() ? 4096 : 16384;
  DeviceBuffer sink(64), region(2 * sizeof(long long));
  cudaStream_t s = ctx.stream();
  auto launch = [&](cudaStream_t st) {
    smem_read<V>
        <<<blocks, kSmemThreads, smem, st>>>(iters, sink.as<uint32_t>(), region.as<long long>());
    CK_LAUNCH();
  };
  launch(s);
  CK(cudaStreamSynchronize(s));
  std::vector<double> samples = time_each(s, ctx.samples(), 1.0, launch);
  RegionClock clock = read_region_clock(region);
  double mhz = clock.mhz();
  double bytes = static_cast<double>(blocks) * kSmemThreads * iters * 8 * sizeof(V);
  double t_us = median(samples);
  put_samples(out, samples);
  out["load_bytes"] = static_cast<int>(sizeof(V));
  out["blocks"] = blocks;
  out["blocks_per_sm"] = per_sm;
  out["bytes_per_call"] = bytes;
  out["GBps"] = bytes / (t_us * 1e3);
  double per_sm_per_us = bytes / d.sm_count / t_us;
  out["bytes_per_clk_per_sm"] = per_sm_per_us / (d.sm_clock_kHz * 1e-3);
  out["block0_cycles"] = clock.cycles;
  out["block0_ns"] = clock.ns;
  out["sm_clock_MHz_measured"] = mhz;
  out["bytes_per_clk_per_sm_measured_clock"] = per_sm_per_us / mhz;
}

// ---- pointer chase -------------------------------------------------------------------------

constexpr size_t kLine = 128;

// chase[line * 16] holds the address of the next line (16 x 8 bytes = one 128-byte line).
__global__ void build_chase(unsigned long long* chase, const uint32_t* next, size_t lines) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < lines;
       i += stride)
    chase[i * (kLine / 8)] = reinterpret_cast<unsigned long long>(chase + next[i] * (kLine / 8));
}

template <bool kL1>
__device__ __forceinline__ const unsigned long long* step(const unsigned long long* p) {
  return reinterpret_cast<const unsigned long long*>(kL1 ? __ldca(p) : __ldcg(p));
}

// One thread: `warm` untimed steps, then `steps` timed ones (both multiples of 8), starting
// where the previous launch stopped (*cursor), so successive launches walk new lines.
template <bool kL1>
__global__ void chase_kernel(unsigned long long* cursor, uint32_t warm, uint32_t steps,
                             long long* region) {
  const unsigned long long* p = reinterpret_cast<const unsigned long long*>(*cursor);
  for (uint32_t i = 0; i < warm; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) p = step<kL1>(p);
  }
  Stamp t0 = stamp_after(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p)));
  for (uint32_t i = 0; i < steps; i += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) p = step<kL1>(p);
  }
  Stamp t1 = stamp_after(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p)));
  *cursor = reinterpret_cast<unsigned long long>(p);
  record_region(t0, t1, region);
}

// A single random cycle through all lines (Sattolo), as next-line indices.
std::vector<uint32_t> random_cycle(size_t lines, uint64_t seed) {
  std::vector<uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(seed);
  for (size_t i = lines - 1; i > 0; --i) {
    size_t j = std::uniform_int_distribution<size_t>(0, i - 1)(rng);
    std::swap(order[i], order[j]);
  }
  return order;  // i -> order[i] is one cycle of length `lines`
}

struct ChaseLevel {
  const char* level;
  size_t bytes;
  bool l1;
};

void run_chase(Context& ctx, Json& out, ChaseLevel lv) {
  size_t lines = lv.bytes / kLine;
  std::vector<uint32_t> next = random_cycle(lines, 12345);
  DeviceBuffer chase(lv.bytes), next_d(lines * 4), cursor(8), region(16);
  cudaStream_t s = ctx.stream();
  CK(cudaMemcpyAsync(next_d.as<void>(), next.data(), lines * 4, cudaMemcpyHostToDevice, s));
  build_chase<<<1024, 256, 0, s>>>(chase.as<unsigned long long>(), next_d.as<uint32_t>(), lines);
  CK_LAUNCH();
  unsigned long long start = reinterpret_cast<unsigned long long>(chase.as<void>());
  CK(cudaMemcpyAsync(cursor.as<void>(), &start, 8, cudaMemcpyHostToDevice, s));
  CK(cudaStreamSynchronize(s));
  bool hbm = lv.bytes > 4 * ctx.dev().l2_bytes;  // far past L2: a fixed number of steps
  uint32_t passes_steps = static_cast<uint32_t>(round_up(lines * (ctx.quick() ? 2 : 8), 8));
  uint32_t steps = hbm ? (ctx.quick() ? 40000 : 160000) : std::max<uint32_t>(passes_steps, 65536);
  uint32_t warm = hbm ? 0 : static_cast<uint32_t>(round_up(2 * lines, 8));
  auto launch = [&](cudaStream_t st) {
    if (lv.l1) {
      chase_kernel<true>
          <<<1, 1, 0, st>>>(cursor.as<unsigned long long>(), warm, steps, region.as<long long>());
    } else {
      chase_kernel<false>
          <<<1, 1, 0, st>>>(cursor.as<unsigned long long>(), warm, steps, region.as<long long>());
    }
    CK_LAUNCH();
  };
  launch(s);  // warm-up (module load; HBM: TLB)
  CK(cudaStreamSynchronize(s));
  std::vector<double> region_us, event_us, cyc_per_step;
  for (int r = 0; r < ctx.samples(); ++r) {
    event_us.push_back(time_each(s, 1, 1.0, launch)[0]);
    long long reg[2] = {0, 0};
    CK(cudaMemcpy(reg, region.as<void>(), sizeof reg, cudaMemcpyDeviceToHost));
    region_us.push_back(static_cast<double>(reg[1]) * 1e-3);
    cyc_per_step.push_back(static_cast<double>(reg[0]) / steps);
  }
  out["level"] = lv.level;
  out["working_set_bytes"] = lv.bytes;
  out["stride_bytes"] = kLine;
  out["load"] = lv.l1 ? "ld.global.ca" : "ld.global.cg";
  out["steps"] = steps;
  out["warm_steps"] = warm;
  put_samples(out, region_us);
  out["event_samples_us"] = Json::array_of(event_us);
  double ns_per = median(region_us) * 1e3 / steps;
  double cyc = median(cyc_per_step);
  out["ns"] = ns_per;
  out["cycles"] = cyc;
  out["sm_clock_MHz_measured"] = cyc / ns_per * 1e3;
}

}  // namespace

void add_cache_benches(BenchList& list, const DeviceInfo&, bool) {
  list.push_back({"memory/smem_bandwidth/b32", "memory",
                  [](Context& c, Json& o) { run_smem<uint32_t>(c, o); }});
  list.push_back(
      {"memory/smem_bandwidth/b128", "memory", [](Context& c, Json& o) { run_smem<uint4>(c, o); }});
  const ChaseLevel levels[] = {{"l1", size_t{16} << 10, true},
                               {"l2", size_t{4} << 20, false},
                               {"hbm", size_t{1} << 30, false}};
  for (ChaseLevel lv : levels)
    list.push_back({std::string("memory/latency/") + lv.level, "memory",
                    [lv](Context& c, Json& o) { run_chase(c, o, lv); }});
}

}  // namespace ridgeline::gpubench
