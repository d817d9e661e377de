// Checked CUDA and cuBLAS calls, and RAII owners for device memory, events, streams and graphs.
// Every runtime and library call in the suite goes through CK/CKB, which throw CudaError with
// the failing expression and its source line; the runner catches it, records the message in the
// benchmark's JSON entry and moves on. Kernel launches are checked with CK_LAUNCH right after.
// Also: random fills (a counter hash, never zeros) for every element type the suite uses.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ridgeline::gpubench {

// A failed CUDA runtime or cuBLAS call. `sticky` marks errors that poison the context
// (illegal address, launch failure...), after which the device must be reset.
class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& what, bool sticky) : std::runtime_error(what), sticky_(sticky) {}
  bool sticky() const { return sticky_; }

 private:
  bool sticky_;
};

// The benchmark cannot run here (no cuBLASLt algorithm, not enough memory...): recorded and
// skipped.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check_cuda(cudaError_t e, const char* expr, const char* file, int line);
void check_cublas(cublasStatus_t s, const char* expr, const char* file, int line);

#define CK(call) ::ridgeline::gpubench::check_cuda((call), #call, __FILE__, __LINE__)
#define CKB(call) ::ridgeline::gpubench::check_cublas((call), #call, __FILE__, __LINE__)
#define CK_LAUNCH() \
  ::ridgeline::gpubench::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

// Owns one cudaMalloc allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  char* bytes_ptr(size_t offset) const { return static_cast<char*>(ptr_) + offset; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) { CK(cudaEventRecord(e_, s)); }

 private:
  cudaEvent_t e_ = nullptr;
};

// Milliseconds between two recorded events, after waiting for the second.
float elapsed_ms(const Event& start, const Event& stop);

// An instantiated CUDA graph.
class GraphExec {
 public:
  GraphExec() = default;
  explicit GraphExec(cudaGraph_t graph);  // instantiates; the caller keeps `graph`
  ~GraphExec();
  GraphExec(GraphExec&& o) noexcept : exec_(o.exec_) { o.exec_ = nullptr; }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  void launch(cudaStream_t s) { CK(cudaGraphLaunch(exec_, s)); }
  void upload(cudaStream_t s) { CK(cudaGraphUpload(exec_, s)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

class Graph {
 public:
  Graph() = default;
  explicit Graph(cudaGraph_t g) : g_(g) {}
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  cudaGraph_t get() const { return g_; }

 private:
  cudaGraph_t g_ = nullptr;
};

enum class Dtype { F32, Tf32, Bf16, Fp16, Fp8 };
const char* dtype_name(Dtype d);  // the `ridgeline op` spelling: fp32 tf32 bf16 fp16 fp8
size_t dtype_bytes(Dtype d);      // storage bytes of one input element

// Fills `count` elements of type `d` with hash-derived values in [-scale, scale) (words: any bits).
void fill_random(void* p, size_t count, Dtype d, uint64_t seed, float scale, cudaStream_t s);
void fill_random_words(void* p, size_t bytes, uint64_t seed, cudaStream_t s);

// Blocks that fill the GPU with `threads`-thread blocks at full occupancy.
int full_grid(int sm_count, int max_threads_per_sm, int threads);

inline size_t round_up(size_t x, size_t to) {
  return (x + to - 1) / to * to;
}
inline size_t ceil_div(size_t x, size_t y) {
  return (x + y - 1) / y;
}

}  // namespace ridgeline::gpubench
