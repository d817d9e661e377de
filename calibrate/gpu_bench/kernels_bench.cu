// Kernels family: memory-bound kernels of transformer sizes, written here (not library calls),
// each point also described in `ridgeline op` terms so the file can be scored directly:
//   elementwise  copy, add, silu_mul (silu(a) * b) over bf16 numel 2^16 .. 2^28 (x4 steps);
//                16-byte vectors, grid-stride over at most a full-occupancy grid, 4 in flight
//   rmsnorm      one block per row, the row held in registers (two 16-byte vectors a thread),
//                single pass: sum of squares, block reduction, y = x * rsqrt(mean + eps) * w;
//                rows x cols in {8, 128, 2048, 16384} x {4096, 8192}
//   reduce       full sum of bf16 numel 2^16 .. 2^28: per-block fp32 sums, one atomicAdd each
// Inputs and outputs rotate over enough sets to exceed 3x L2, timed by CUDA-graph replay.
#include "bench.cuh"

#include <cuda_bf16.h>

#include <algorithm>

namespace ridgeline::gpubench {

namespace {

constexpr int kThreads = 256;

enum class Ew { Copy, Add, SiluMul };
const char* ew_name(Ew k) {
  return k == Ew::Copy ? "copy" : (k == Ew::Add ? "add" : "silu_mul");
}
int ew_inputs(Ew k) {
  return k == Ew::Copy ? 1 : 2;
}

template <Ew kKind>
__device__ __forceinline__ uint4 combine(uint4 a, uint4 b) {
  if constexpr (kKind == Ew::Copy) {
    return a;
  } else {
    const __nv_bfloat162* x = reinterpret_cast<const __nv_bfloat162*>(&a);
    const __nv_bfloat162* y = reinterpret_cast<const __nv_bfloat162*>(&b);
    uint4 r;
    __nv_bfloat162* z = reinterpret_cast<__nv_bfloat162*>(&r);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 u = __bfloat1622float2(x[i]), v = __bfloat1622float2(y[i]);
      if constexpr (kKind == Ew::Add) {
        z[i] = __floats2bfloat162_rn(u.x + v.x, u.y + v.y);
      } else {
        z[i] = __floats2bfloat162_rn(u.x / (1.0f + __expf(-u.x)) * v.x,
                                     u.y / (1.0f + __expf(-u.y)) * v.y);
      }
    }
    return r;
  }
}

template <Ew kKind>
__global__ void elementwise(const uint4* __restrict__ a, const uint4* __restrict__ b,
                            uint4* __restrict__ out, size_t nvec) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < nvec; i += 4 * stride) {
    uint4 va[4], vb[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      va[u] = a[i + u * stride];
      vb[u] = kKind == Ew::Copy ? va[u] : b[i + u * stride];
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) out[i + u * stride] = combine<kKind>(va[u], vb[u]);
  }
  for (; i < nvec; i += stride) out[i] = combine<kKind>(a[i], kKind == Ew::Copy ? a[i] : b[i]);
}

__device__ __forceinline__ float block_sum(float v, float* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? scratch[lane] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) scratch[32] = v;
  }
  __syncthreads();
  return scratch[32];
}

constexpr int kRmsVec = 2;  // 16-byte vectors held per thread: blockDim = cols / 16

__global__ void rmsnorm(const uint4* __restrict__ x, const uint4* __restrict__ w,
                        uint4* __restrict__ y, int cols, float eps) {
  __shared__ float scratch[33];
  size_t row = static_cast<size_t>(blockIdx.x) * (cols / 8);
  uint4 v[kRmsVec];
  float ss = 0;
#pragma unroll
  for (int j = 0; j < kRmsVec; ++j) {
    v[j] = x[row + threadIdx.x + j * blockDim.x];
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v[j]);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 f = __bfloat1622float2(h[i]);
      ss += f.x * f.x + f.y * f.y;
    }
  }
  float r = rsqrtf(block_sum(ss, scratch) / cols + eps);
#pragma unroll
  for (int j = 0; j < kRmsVec; ++j) {
    uint4 wv = w[threadIdx.x + j * blockDim.x], o;
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v[j]);
    const __nv_bfloat162* g = reinterpret_cast<const __nv_bfloat162*>(&wv);
    __nv_bfloat162* z = reinterpret_cast<__nv_bfloat162*>(&o);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 f = __bfloat1622float2(h[i]), s = __bfloat1622float2(g[i]);
      z[i] = __floats2bfloat162_rn(f.x * r * s.x, f.y * r * s.y);
    }
    y[row + threadIdx.x + j * blockDim.x] = o;
  }
}

__global__ void reduce_sum(const uint4* __restrict__ x, size_t nvec, float* out) {
  __shared__ float scratch[33];
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  float s = 0;
  for (; i < nvec; i += stride) {
    uint4 v = x[i];
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float2 f = __bfloat1622float2(h[j]);
      s += f.x + f.y;
    }
  }
  s = block_sum(s, scratch);
  if (threadIdx.x == 0) atomicAdd(out, s);
}

// `roles` buffers of `bytes` each per set, over `sets` sets (one allocation per role).
struct Rotation {
  Rotation(Context& ctx, size_t bytes_per_role, int roles) : stride(round_up(bytes_per_role, 256)) {
    sets = sets_to_exceed_l2(stride * roles, ctx.dev().l2_bytes);
    for (int r = 0; r < roles; ++r) {
      bufs.emplace_back(stride * sets);
      fill_random(bufs.back().as<void>(), stride * sets / 2, Dtype::Bf16, 21 + r, 1.0f,
                  ctx.stream());
    }
  }
  char* at(int role, int i) const {
    return bufs[role].bytes_ptr(stride * static_cast<size_t>(i % sets));
  }
  size_t stride;
  int sets = 1;
  std::vector<DeviceBuffer> bufs;
};

void finish(Context& ctx, Json& out, const Call& call, const Rotation& rot, double bytes) {
  Timing t = time_calls(ctx.stream(), call, ctx.plan(rot.sets));
  out["sets"] = rot.sets;
  out["rotation_bytes"] = rot.stride * rot.sets * rot.bufs.size();
  put_timing(out, t);
  out["bytes"] = bytes;
  out["GBps"] = bytes / (median(t.samples_us) * 1e3);
}

int grid_for(const DeviceInfo& d, size_t nvec) {
  return static_cast<int>(std::min<size_t>(ceil_div(nvec, kThreads),
                                           full_grid(d.sm_count, d.max_threads_per_sm, kThreads)));
}

void run_elementwise(Context& ctx, Json& out, Ew kind, size_t numel) {
  out["op"] = "elementwise";
  out["kind"] = ew_name(kind);
  out["numel"] = numel;
  out["dtype"] = "bf16";
  int inputs = ew_inputs(kind);
  Rotation rot(ctx, numel * 2, inputs + 1);
  size_t nvec = numel / 8;
  int blocks = grid_for(ctx.dev(), nvec);
  Call call = [&](cudaStream_t s, int i) {
    auto a = reinterpret_cast<const uint4*>(rot.at(0, i));
    auto b = reinterpret_cast<const uint4*>(rot.at(inputs == 2 ? 1 : 0, i));
    auto o = reinterpret_cast<uint4*>(rot.at(inputs, i));
    if (kind == Ew::Copy) elementwise<Ew::Copy><<<blocks, kThreads, 0, s>>>(a, b, o, nvec);
    if (kind == Ew::Add) elementwise<Ew::Add><<<blocks, kThreads, 0, s>>>(a, b, o, nvec);
    if (kind == Ew::SiluMul) elementwise<Ew::SiluMul><<<blocks, kThreads, 0, s>>>(a, b, o, nvec);
    CK_LAUNCH();
  };
  out["blocks"] = blocks;
  finish(ctx, out, call, rot, static_cast<double>((inputs + 1) * numel * 2));
}

void run_rmsnorm(Context& ctx, Json& out, int rows, int cols) {
  out["op"] = "rmsnorm";
  out["rows"] = rows;
  out["cols"] = cols;
  out["dtype"] = "bf16";
  size_t bytes = static_cast<size_t>(rows) * cols * 2;
  Rotation rot(ctx, bytes, 2);
  DeviceBuffer weight(static_cast<size_t>(cols) * 2);
  fill_random(weight.as<void>(), cols, Dtype::Bf16, 31, 1.0f, ctx.stream());
  int threads = cols / (8 * kRmsVec);
  Call call = [&](cudaStream_t s, int i) {
    rmsnorm<<<rows, threads, 0, s>>>(reinterpret_cast<const uint4*>(rot.at(0, i)),
                                     weight.as<uint4>(), reinterpret_cast<uint4*>(rot.at(1, i)),
                                     cols, 1e-6f);
    CK_LAUNCH();
  };
  out["threads_per_block"] = threads;
  finish(ctx, out, call, rot, static_cast<double>(2 * bytes + static_cast<size_t>(cols) * 2));
}

void run_reduce(Context& ctx, Json& out, size_t numel) {
  out["op"] = "reduce";
  out["kind"] = "sum";
  out["numel"] = numel;
  out["dtype"] = "bf16";
  Rotation rot(ctx, numel * 2, 1);
  DeviceBuffer sums(static_cast<size_t>(rot.sets) * sizeof(float));
  CK(cudaMemsetAsync(sums.as<void>(), 0, sums.bytes(), ctx.stream()));
  size_t nvec = numel / 8;
  int blocks = grid_for(ctx.dev(), nvec);
  Call call = [&](cudaStream_t s, int i) {
    reduce_sum<<<blocks, kThreads, 0, s>>>(reinterpret_cast<const uint4*>(rot.at(0, i)), nvec,
                                           sums.as<float>() + i % rot.sets);
    CK_LAUNCH();
  };
  out["blocks"] = blocks;
  finish(ctx, out, call, rot, static_cast<double>(numel * 2 + 2));
}

std::string pow2_name(size_t n) {
  int e = 0;
  while ((size_t{1} << e) < n) ++e;
  return "2^" + std::to_string(e);
}

}  // namespace

void add_kernel_benches(BenchList& list, const DeviceInfo&, bool quick) {
  std::vector<size_t> sizes;
  for (int e = 16; e <= 28; e += quick ? 4 : 2) sizes.push_back(size_t{1} << e);
  for (Ew k : {Ew::Copy, Ew::Add, Ew::SiluMul})
    for (size_t n : sizes)
      list.push_back({std::string("kernels/elementwise/") + ew_name(k) + "/" + pow2_name(n),
                      "kernels", [k, n](Context& c, Json& o) { run_elementwise(c, o, k, n); }});
  std::vector<int> rows = quick ? std::vector<int>{8, 2048} : std::vector<int>{8, 128, 2048, 16384};
  for (int r : rows)
    for (int cols : {4096, 8192})
      list.push_back({"kernels/rmsnorm/" + std::to_string(r) + "x" + std::to_string(cols),
                      "kernels", [r, cols](Context& c, Json& o) { run_rmsnorm(c, o, r, cols); }});
  for (size_t n : sizes)
    list.push_back({"kernels/reduce/sum/" + pow2_name(n), "kernels",
                    [n](Context& c, Json& o) { run_reduce(c, o, n); }});
}

}  // namespace ridgeline::gpubench
