// Memory family, bandwidth: HBM read-only, write-only and copy over multi-GiB buffers, and
// bandwidth against working-set size (256 KiB to 4x L2, dense between 0.5x and 1.5x L2) where
// the same working set is read (or copied) again and again, so it stays in L2 when it fits.
// Kernels use 16-byte accesses, a grid that fills every SM at full occupancy, four independent
// loads in flight per thread, and ld.global.cg (L2, not L1) for reads. A copy counts the bytes
// read plus the bytes written.
#include "bench.cuh"

#include <algorithm>
#include <cmath>
#include <set>

namespace ridgeline::gpubench {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ uint32_t fold(uint4 v) {
  return v.x ^ v.y ^ v.z ^ v.w;
}

__global__ void hbm_read(const uint4* __restrict__ p, size_t n, uint32_t* sink) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  uint32_t acc = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint4 a = __ldcg(p + i), b = __ldcg(p + i + stride);
    uint4 c = __ldcg(p + i + 2 * stride), d = __ldcg(p + i + 3 * stride);
    acc ^= fold(a) ^ fold(b) ^ fold(c) ^ fold(d);
  }
  for (; i < n; i += stride) acc ^= fold(__ldcg(p + i));
  if (acc == 0x9e3779b9u) sink[0] = acc;  // keeps the loads; practically never true
}

__global__ void hbm_write(uint4* __restrict__ p, size_t n) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    uint32_t x = static_cast<uint32_t>(i);
    p[i] = make_uint4(x, x ^ 0x55555555u, ~x, x * 2654435761u);
  }
}

__global__ void hbm_copy(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint4 a = __ldcg(src + i), b = __ldcg(src + i + stride);
    uint4 c = __ldcg(src + i + 2 * stride), d = __ldcg(src + i + 3 * stride);
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) dst[i] = __ldcg(src + i);
}

// Each thread makes `iters` accesses (a multiple of 4) walking the n-element working set with
// the grid's stride, wrapping around, so any working set keeps every SM busy.
template <bool kCopy>
__global__ void working_set(uint4* __restrict__ buf, uint32_t n, uint32_t iters, uint32_t* sink) {
  uint32_t total = gridDim.x * blockDim.x;
  uint32_t idx = (blockIdx.x * blockDim.x + threadIdx.x) % n;
  uint32_t step = total % n == 0 ? 1 : total % n;
  uint32_t acc = 0;
  for (uint32_t it = 0; it < iters; it += 4) {
    uint32_t j[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      j[u] = idx;
      idx += step;
      idx = idx >= n ? idx - n : idx;
    }
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = __ldcg(buf + j[u]);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      if constexpr (kCopy) {
        buf[n + j[u]] = v[u];
      } else {
        acc ^= fold(v[u]);
      }
    }
  }
  if (!kCopy && acc == 0x9e3779b9u) sink[0] = acc;
}

// Largest size <= want (halving) that leaves 1 GiB free; at least `floor` bytes.
size_t affordable(Context& ctx, size_t want, size_t floor_bytes, int buffers) {
  size_t free_b = ctx.free_bytes();
  size_t reserve = size_t{1} << 30;
  while (want > floor_bytes && want * buffers + reserve > free_b) want /= 2;
  if (want * buffers > free_b) throw Unsupported("not enough free device memory");
  return want;
}

void put_bandwidth(Json& out, const Timing& t, double bytes) {
  put_timing(out, t);
  out["bytes_per_call"] = bytes;
  out["GBps"] = bytes / (median(t.samples_us) * 1e3);
}

enum class Stream { Read, Write, Copy };

void run_hbm(Context& ctx, Json& out, Stream kind) {
  const DeviceInfo& d = ctx.dev();
  size_t want = kind == Stream::Copy ? size_t{2} << 30 : size_t{4} << 30;
  size_t bytes = affordable(ctx, want, 8 * d.l2_bytes, kind == Stream::Copy ? 2 : 1);
  size_t n = bytes / 16;
  DeviceBuffer a(bytes), sink(64);
  DeviceBuffer b(kind == Stream::Copy ? bytes : 0);
  cudaStream_t s = ctx.stream();
  fill_random_words(a.as<void>(), bytes, 1, s);
  int blocks = full_grid(d.sm_count, d.max_threads_per_sm, kThreads);
  Call call = [&](cudaStream_t st, int) {
    if (kind == Stream::Read)
      hbm_read<<<blocks, kThreads, 0, st>>>(a.as<uint4>(), n, sink.as<uint32_t>());
    if (kind == Stream::Write) hbm_write<<<blocks, kThreads, 0, st>>>(a.as<uint4>(), n);
    if (kind == Stream::Copy)
      hbm_copy<<<blocks, kThreads, 0, st>>>(a.as<uint4>(), b.as<uint4>(), n);
    CK_LAUNCH();
  };
  TimingPlan plan = ctx.plan(1);
  plan.graph = false;
  Timing t = time_calls(s, call, plan);
  out["buffer_bytes"] = bytes;
  out["blocks"] = blocks;
  out["threads_per_block"] = kThreads;
  out["bytes_counted"] =
      kind == Stream::Copy ? "read+write" : (kind == Stream::Read ? "read" : "write");
  put_bandwidth(out, t, static_cast<double>(kind == Stream::Copy ? 2 * bytes : bytes));
}

void run_working_set(Context& ctx, Json& out, size_t ws, bool copy) {
  const DeviceInfo& d = ctx.dev();
  uint32_t n = static_cast<uint32_t>(ws / 16 / (copy ? 2 : 1));  // elements read per pass
  DeviceBuffer buf(ws), sink(64);
  cudaStream_t s = ctx.stream();
  fill_random_words(buf.as<void>(), ws, 2, s);
  int blocks = full_grid(d.sm_count, d.max_threads_per_sm, kThreads);
  size_t threads = static_cast<size_t>(blocks) * kThreads;
  size_t accesses =
      std::max<size_t>(4 * static_cast<size_t>(n), size_t{32} << 20);  // >= 512 MiB read
  uint32_t iters = static_cast<uint32_t>(round_up(ceil_div(accesses, threads), 4));
  Call call = [&](cudaStream_t st, int) {
    if (copy) {
      working_set<true>
          <<<blocks, kThreads, 0, st>>>(buf.as<uint4>(), n, iters, sink.as<uint32_t>());
    } else {
      working_set<false>
          <<<blocks, kThreads, 0, st>>>(buf.as<uint4>(), n, iters, sink.as<uint32_t>());
    }
    CK_LAUNCH();
  };
  Timing t = time_calls(s, call, ctx.plan(1));
  out["working_set_bytes"] = ws;
  out["working_set_over_l2"] = static_cast<double>(ws) / static_cast<double>(d.l2_bytes);
  out["iters_per_thread"] = iters;
  out["bytes_counted"] = copy ? "read+write" : "read";
  double bytes = static_cast<double>(threads) * iters * 16 * (copy ? 2 : 1);
  put_bandwidth(out, t, bytes);
}

// 256 KiB .. 4x L2: x sqrt(2) steps below 0.5x L2, 0.1x L2 steps to 1.5x L2, then 1.75..4x L2.
std::vector<size_t> working_sets(size_t l2, bool quick) {
  const size_t grain = 64 << 10;
  std::set<size_t> s;
  double factor = quick ? 2.0 : std::sqrt(2.0);
  for (double b = 256 << 10; b < 0.45 * static_cast<double>(l2); b *= factor)
    s.insert(round_up(static_cast<size_t>(b), grain));
  std::vector<double> mult = quick ? std::vector<double>{0.5, 0.8, 1.0, 1.2, 1.5, 2, 4}
                                   : std::vector<double>{0.5, 0.6, 0.7, 0.8,  0.9, 1.0, 1.1, 1.2,
                                                         1.3, 1.4, 1.5, 1.75, 2,   2.5, 3,   4};
  for (double m : mult) s.insert(round_up(static_cast<size_t>(m * static_cast<double>(l2)), grain));
  return {s.begin(), s.end()};
}

}  // namespace

void add_memory_benches(BenchList& list, const DeviceInfo& dev, bool quick) {
  list.push_back(
      {"memory/hbm_read", "memory", [](Context& c, Json& o) { run_hbm(c, o, Stream::Read); }});
  list.push_back(
      {"memory/hbm_write", "memory", [](Context& c, Json& o) { run_hbm(c, o, Stream::Write); }});
  list.push_back(
      {"memory/hbm_copy", "memory", [](Context& c, Json& o) { run_hbm(c, o, Stream::Copy); }});
  for (bool copy : {false, true}) {
    for (size_t ws : working_sets(dev.l2_bytes, quick)) {
      std::string name = std::string("memory/working_set_") + (copy ? "copy" : "read") + "/" +
                         std::to_string(ws >> 10) + "KiB";
      list.push_back(
          {name, "memory", [ws, copy](Context& c, Json& o) { run_working_set(c, o, ws, copy); }});
    }
  }
}

}  // namespace ridgeline::gpubench
