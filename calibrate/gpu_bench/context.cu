// The shared Context (bench.cuh): lazily created stream, cuBLASLt handle and workspace, the
// timing plan of each mode, and recovery after an error that poisoned the CUDA context.
#include "bench.cuh"

namespace ridgeline::gpubench {

Context::Context(const DeviceInfo& dev, bool quick) : dev_(dev), quick_(quick) {}

Context::~Context() {
  release();
}

void Context::release() {
  workspace_.reset();
  if (lt_) cublasLtDestroy(lt_);
  if (stream_) cudaStreamDestroy(stream_);
  lt_ = nullptr;
  stream_ = nullptr;
}

cudaStream_t Context::stream() {
  if (!stream_) CK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  return stream_;
}

cublasLtHandle_t Context::lt() {
  if (!lt_) CKB(cublasLtCreate(&lt_));
  return lt_;
}

void* Context::workspace() {
  if (!workspace_) workspace_ = std::make_unique<DeviceBuffer>(kWorkspaceBytes);
  return workspace_->as<void>();
}

TimingPlan Context::plan(int sets) const {
  TimingPlan p;
  p.sets = sets;
  p.min_samples = samples();
  p.min_calls = 20;
  p.target_batch_us = quick_ ? 1000 : 3000;
  return p;
}

void Context::reset_device() {
  release();
  cudaDeviceReset();
  cudaGetLastError();
  CK(cudaSetDevice(dev_.device));
}

size_t Context::free_bytes() const {
  size_t free_b = 0, total = 0;
  CK(cudaMemGetInfo(&free_b, &total));
  return free_b;
}

const char* split_of(const std::string& name) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h % 10 < 3 ? "holdout" : "fit";
}

}  // namespace ridgeline::gpubench
