// Error checking, RAII owners and random fills declared in cuda_util.cuh.
#include "cuda_util.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

namespace ridgeline::gpubench {

namespace {

std::string where(const char* expr, const char* file, int line) {
  std::string f = file;
  size_t slash = f.find_last_of('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return std::string(expr) + " (" + f + ":" + std::to_string(line) + ")";
}

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorAssert:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

}  // namespace

void check_cuda(cudaError_t e, const char* expr, const char* file, int line) {
  if (e == cudaSuccess) return;
  if (!is_sticky(e)) cudaGetLastError();  // clear a non-sticky error so later calls start clean
  throw CudaError(
      where(expr, file, line) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e),
      is_sticky(e));
}

void check_cublas(cublasStatus_t s, const char* expr, const char* file, int line) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  throw CudaError(
      where(expr, file, line) + ": cuBLAS status " + std::to_string(static_cast<int>(s)),
      s == CUBLAS_STATUS_EXECUTION_FAILED);
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  CK(cudaMalloc(&ptr_, std::max<size_t>(bytes, 256)));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);  // failures here (after a sticky error) have nowhere to go
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
  }
  return *this;
}

Event::Event() {
  CK(cudaEventCreate(&e_));
}
Event::~Event() {
  if (e_) cudaEventDestroy(e_);
}

float elapsed_ms(const Event& start, const Event& stop) {
  CK(cudaEventSynchronize(stop.get()));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

GraphExec::GraphExec(cudaGraph_t graph) {
  CK(cudaGraphInstantiate(&exec_, graph, 0));
}
GraphExec::~GraphExec() {
  if (exec_) cudaGraphExecDestroy(exec_);
}
Graph::~Graph() {
  if (g_) cudaGraphDestroy(g_);
}

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::F32:
      return "fp32";
    case Dtype::Tf32:
      return "tf32";
    case Dtype::Bf16:
      return "bf16";
    case Dtype::Fp16:
      return "fp16";
    case Dtype::Fp8:
      return "fp8";
  }
  return "?";
}

size_t dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::F32:
    case Dtype::Tf32:
      return 4;
    case Dtype::Bf16:
    case Dtype::Fp16:
      return 2;
    case Dtype::Fp8:
      return 1;
  }
  return 1;
}

namespace {

__device__ __forceinline__ uint64_t mix64(uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [-scale, scale), never exactly zero in practice (24 random bits).
__device__ __forceinline__ float hash_float(uint64_t i, uint64_t seed, float scale) {
  uint32_t bits = static_cast<uint32_t>(mix64(i ^ (seed * 0xd1b54a32d192ed03ull)) >> 40);
  return (static_cast<float>(bits) * (1.0f / 16777216.0f) * 2.0f - 1.0f) * scale;
}

template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half(v);
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float v) {
  return __nv_fp8_e4m3(v);
}

template <typename T>
__global__ void fill_kernel(T* p, size_t n, uint64_t seed, float scale) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    p[i] = from_float<T>(hash_float(i, seed, scale));
}

__global__ void fill_words_kernel(uint32_t* p, size_t n, uint64_t seed) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    p[i] = static_cast<uint32_t>(mix64(i ^ (seed << 40)) >> 17) | 1u;
}

template <typename T>
void launch_fill(void* p, size_t n, uint64_t seed, float scale, cudaStream_t s) {
  if (n == 0) return;
  unsigned blocks = static_cast<unsigned>(std::min<size_t>(ceil_div(n, 256), 4096));
  fill_kernel<T><<<blocks, 256, 0, s>>>(static_cast<T*>(p), n, seed, scale);
  CK_LAUNCH();
}

}  // namespace

void fill_random(void* p, size_t count, Dtype d, uint64_t seed, float scale, cudaStream_t s) {
  switch (d) {
    case Dtype::F32:
    case Dtype::Tf32:
      launch_fill<float>(p, count, seed, scale, s);
      break;
    case Dtype::Bf16:
      launch_fill<__nv_bfloat16>(p, count, seed, scale, s);
      break;
    case Dtype::Fp16:
      launch_fill<__half>(p, count, seed, scale, s);
      break;
    case Dtype::Fp8:
      launch_fill<__nv_fp8_e4m3>(p, count, seed, scale, s);
      break;
  }
}

void fill_random_words(void* p, size_t bytes, uint64_t seed, cudaStream_t s) {
  size_t n = bytes / 4;
  if (n == 0) return;
  unsigned blocks = static_cast<unsigned>(std::min<size_t>(ceil_div(n, 256), 4096));
  fill_words_kernel<<<blocks, 256, 0, s>>>(static_cast<uint32_t*>(p), n, seed);
  CK_LAUNCH();
}

int full_grid(int sm_count, int max_threads_per_sm, int threads) {
  return sm_count * std::max(1, max_threads_per_sm / threads);
}

}  // namespace ridgeline::gpubench
