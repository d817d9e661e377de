// GEMM family: the grid of cuBLASLt GEMMs (bf16 unless named) that calibrates tile and wave
// quantization, misalignment and the bandwidth-bound skinny case:
//   square    m = n = k from 256 to 16384 in powers of two and 1.5x steps
//   wave      m = k = 4096, n from 256 to 8192 in steps of 256 (the sawtooth)
//   align     m = k = 4096, n in {4095, 4096, 4097, 4098, 4100, 4104}
//   skinny    m in {1 .. 128} x (n, k) in {(4096, 4096), (14336, 4096), (4096, 14336)}
//   fp8/tf32  a few square and skinny shapes
// A shape in several grids is measured once and lists them all in "sweeps"; shapes measured by
// the compute family's tensor-core peaks are left to it.
#include "gemm_lt.cuh"

#include <algorithm>
#include <map>

namespace ridgeline::gpubench {

namespace {

class Grid {
 public:
  void add(Dtype t, int64_t m, int64_t n, int64_t k, const std::string& sweep) {
    GemmShape g{t, m, n, k};
    auto it = index_.find(g);
    if (it == index_.end()) {
      index_.emplace(g, shapes_.size());
      shapes_.push_back({g, {sweep}});
    } else {
      auto& sw = shapes_[it->second].second;
      if (std::find(sw.begin(), sw.end(), sweep) == sw.end()) sw.push_back(sweep);
    }
  }
  const std::vector<std::pair<GemmShape, std::vector<std::string>>>& shapes() const {
    return shapes_;
  }

 private:
  std::map<GemmShape, size_t> index_;
  std::vector<std::pair<GemmShape, std::vector<std::string>>> shapes_;
};

void add_square(Grid& grid, bool quick) {
  std::vector<int64_t> sizes = quick
                                   ? std::vector<int64_t>{256, 1024, 2048, 4096}
                                   : std::vector<int64_t>{256,  384,  512,  768,  1024,  1536, 2048,
                                                          3072, 4096, 6144, 8192, 12288, 16384};
  for (int64_t s : sizes) grid.add(Dtype::Bf16, s, s, s, "square");
}

void add_wave_and_align(Grid& grid, bool quick) {
  for (int64_t n = quick ? 1024 : 256; n <= 8192; n += quick ? 1024 : 256)
    grid.add(Dtype::Bf16, 4096, n, 4096, "wave");
  for (int64_t n : {4095, 4096, 4097, 4098, 4100, 4104})
    grid.add(Dtype::Bf16, 4096, n, 4096, "align");
}

void add_skinny(Grid& grid, bool quick) {
  std::vector<int64_t> ms =
      quick ? std::vector<int64_t>{1, 16, 128} : std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128};
  const int64_t nk[3][2] = {{4096, 4096}, {14336, 4096}, {4096, 14336}};
  for (const auto& p : nk)
    for (int64_t m : ms) grid.add(Dtype::Bf16, m, p[0], p[1], "skinny");
}

void add_other_dtypes(Grid& grid, bool quick) {
  for (Dtype t : {Dtype::Fp8, Dtype::Tf32}) {
    std::string sweep = std::string(dtype_name(t));
    std::vector<int64_t> sizes =
        quick ? std::vector<int64_t>{2048} : std::vector<int64_t>{1024, 2048, 4096};
    for (int64_t s : sizes) grid.add(t, s, s, s, sweep + "_square");
    grid.add(t, 16, 4096, 4096, sweep + "_skinny");
    if (!quick) grid.add(t, 128, 14336, 4096, sweep + "_skinny");
  }
}

}  // namespace

void add_gemm_benches(BenchList& list, const DeviceInfo&, bool quick) {
  Grid grid;
  add_square(grid, quick);
  add_wave_and_align(grid, quick);
  add_skinny(grid, quick);
  add_other_dtypes(grid, quick);
  std::vector<GemmShape> peaks = tensor_peak_shapes();
  for (const auto& [g, sweeps] : grid.shapes()) {
    if (std::find(peaks.begin(), peaks.end(), g) != peaks.end()) continue;
    list.push_back(make_gemm_bench(g, "gemm", sweeps));
  }
}

}  // namespace ridgeline::gpubench
