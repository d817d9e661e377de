// One GEMM through cuBLASLt, as `ridgeline op` defines it: C[m,n] = A[m,k] * B[n,k]^T with all
// three row-major (cuBLAS's "TN" case: column-major D[n,m] = op_T(B) * op_N(A), which fp8 needs).
// LtMatmul builds the descriptors, asks the heuristic for up to 8 candidates (32 MiB workspace),
// keeps the first that runs (normally the first) and reports its configuration; make_gemm_bench
// wraps one shape as a benchmark point timed over rotated A/B/C sets (more than 3x L2 in all)
// from CUDA-graph replay.
#pragma once

#include "bench.cuh"

#include <cublasLt.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ridgeline::gpubench {

struct GemmShape {
  Dtype dtype = Dtype::Bf16;
  int64_t m = 0, n = 0, k = 0;
  bool operator<(const GemmShape& o) const;
  bool operator==(const GemmShape& o) const;
};

std::string gemm_name(const GemmShape& g);  // "gemm/bf16/4096x4096x4096", sizes as m x n x k
size_t gemm_output_bytes(Dtype d);          // fp8 writes bf16

class LtMatmul {
 public:
  // Throws Unsupported when the heuristic offers no algorithm for this shape and type.
  LtMatmul(Context& ctx, const GemmShape& g);
  ~LtMatmul();
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // Tries the heuristic's candidates in its order on real operands and keeps the first that
  // runs (cuBLASLt can offer an algorithm that then reports NOT_SUPPORTED); throws Unsupported
  // when none does. Call once before run().
  void choose(cudaStream_t s, const void* a, const void* b, void* c);
  // a: A[m,k], b: B[n,k], c: C[m,n], all row-major and 256-byte aligned.
  void run(cudaStream_t s, const void* a, const void* b, void* c);
  // The chosen algorithm: ids, tile, stages, split-K, cluster shape, waves, workspace.
  Json algo_json() const;

 private:
  struct Handles;
  Context& ctx_;
  GemmShape g_;
  std::unique_ptr<Handles> h_;
  DeviceBuffer scales_;   // fp8: unit scales for A and B, 256 bytes apart
  int chosen_ = 0;        // index into the heuristic's results
  std::string rejected_;  // statuses of candidates that did not run
};

// The tensor-core peak points of the compute family (8192^3 per dtype); the GEMM grid leaves
// these shapes to that family rather than measuring them twice.
std::vector<GemmShape> tensor_peak_shapes();

// A benchmark point for one shape; `sweeps` names the grids it belongs to.
Bench make_gemm_bench(const GemmShape& g, const std::string& family,
                      std::vector<std::string> sweeps);

}  // namespace ridgeline::gpubench
