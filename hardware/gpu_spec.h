// HardwareSpec: a plain, validated description of one GPU (Timeloop's "Specs" idea). It holds
// datasheet facts (SMs, clocks, per-unit ops/clock/SM, caches, memory, links, launch cost) and
// the few efficiency parameters of the kernel model, each a Fact with its provenance. Parsing
// lives in gpu_parse.cpp, derived figures (peaks, ridge points) in derived.cpp; model code reads
// this struct by const& and never sees JSON.
//
// Every scalar field is listed once, in visit_fields() below, with its JSON path and rule; the
// parser, the what-if overrides and `ridgeline gpus show` all walk that one list.
#pragma once

#include "hardware/provenance.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

// The arithmetic units a kernel can run on. Tensor units run at the tensor clock, vector (CUDA
// core) units at the max boost clock, as the datasheets' own peak figures do (gpu-facts A4).
enum class MathUnit {
  TensorTf32,
  TensorBf16,
  TensorFp16,
  TensorFp8,
  TensorFp4,  // NVFP4 (E2M1 values, an E4M3 scale a block of 16): Blackwell's 5th-gen tensor cores
  TensorInt8,
  VectorFp32,
  VectorFp64
};
constexpr int kMathUnitCount = 8;
constexpr std::array<MathUnit, kMathUnitCount> kAllMathUnits = {
    MathUnit::TensorTf32, MathUnit::TensorBf16, MathUnit::TensorFp16, MathUnit::TensorFp8,
    MathUnit::TensorFp4,  MathUnit::TensorInt8, MathUnit::VectorFp32, MathUnit::VectorFp64};
const char* math_unit_key(MathUnit u);  // "tf32", "bf16", ..., "fp32", "fp64"
bool is_tensor_unit(MathUnit u);

// How a field's value is checked.
enum class FieldRule { Positive, PositiveInteger, NonNegative, Fraction };

struct ComputeSpec {
  Fact sm_count;  // SMs (NVIDIA) or CUs (AMD)
  Fact max_clock_MHz;
  Fact tensor_clock_MHz;  // the clock behind the dense tensor peak
  Fact register_file_per_sm_bytes;
  Fact l1_smem_per_sm_bytes;
  Fact max_smem_per_sm_bytes;
  Fact sfu_ops_per_clk_per_sm;  // special functions (exp) per clock per SM
  // Per unit: dense ops per clock per SM, and the datasheet's dense peak it must reproduce.
  std::array<std::optional<Fact>, kMathUnitCount> ops_per_clk_per_sm;
  std::array<std::optional<Fact>, kMathUnitCount> stated_peak_tflops;
};

struct MemoryLevelSpec {
  Fact capacity_bytes;
  Fact bandwidth_GBps;
  Fact latency_ns;  // load-to-use, pointer chase
};

struct MemorySpec {
  MemoryLevelSpec hbm;  // device memory (HBM or GDDR)
  MemoryLevelSpec l2;   // last-level on-chip cache seen by all SMs
  Fact smem_bytes_per_clk_per_sm;
};

struct InterconnectSpec {
  Fact nvlink_GBps_per_direction;  // 0 where there is none
  Fact pcie_GBps_per_direction;
  Fact network_GBps_per_direction;  // scale-out NIC per GPU
};

struct LaunchSpec {
  Fact graph_us;         // per kernel, replayed back to back from a CUDA graph
  Fact stream_us;        // per kernel, launched one by one from C++
  Fact python_eager_us;  // per kernel, launched from a Python framework in eager mode
};

struct GemmTile {
  int m = 0;
  int n = 0;
  double efficiency = 0;  // fraction of the SM's tensor peak in the main loop
};

// The kernel model's parameters. Defaults come from hardware/arch/<architecture>.json (priors
// from shared/reference); a GPU file may override any of them; calibration fits them.
struct ModelParams {
  struct {
    Fact latency_us;  // fixed cost of a kernel on the GPU beyond its launch gap
  } kernel;
  // Clocks under a power limit: busy tensor cores on every SM pull the clock down (~1.4 GHz at
  // 700 W on H100/H200); with few SMs busy the GPU runs at its maximum clock. Efficiencies are
  // fitted mostly on full-chip kernels, so a kernel that keeps at most boost_below_fraction of
  // the SMs busy computes few_sm_speedup times faster, falling linearly to no speed-up at
  // boost_above_fraction.
  struct {
    Fact few_sm_speedup;
    Fact boost_below_fraction;
    Fact boost_above_fraction;
  } power;
  struct {
    Fact hbm_efficiency;          // achievable fraction of HBM bandwidth, streaming
    Fact l2_efficiency;           // achievable fraction of L2 bandwidth
    Fact sm_bytes_per_clk;        // most one SM pulls from memory (Little's law limit)
    Fact sm_l2_bytes_per_clk;     // most one SM pulls from L2
    Fact l2_knee_start_fraction;  // working set / L2 capacity where hits start to fall
    Fact l2_knee_end_fraction;    // ... and where they reach zero
    Fact latency_round_trips;     // memory latencies a kernel waits out (load, then store drain)
  } memory;
  struct {
    std::vector<GemmTile> tiles;  // CTA tiles the library picks among
    Provenance tiles_source;
    Fact k_tile_bytes;  // bytes of K per main-loop step (K is padded to this)
    Fact ctas_per_sm;
    Fact tile_overhead_cycles;  // prologue + epilogue of one tile
    Fact multicast_ctas;  // CTAs of a cluster sharing one operand load from L2 (TMA multicast)
    Fact max_split_k;
    Fact min_k_per_split;
    Fact align8_efficiency;  // main-loop efficiency when the worst operand is 8-byte aligned
    Fact align4_efficiency;
    Fact align2_efficiency;
    Fact align1_efficiency;
    Fact vector_efficiency;  // FP32 CUDA-core GEMM efficiency
    Fact fp8_efficiency;     // fp8 main loops reach this fraction of the bf16 efficiency
    Fact hbm_efficiency;     // achievable HBM fraction when streaming weights (skinny GEMMs)
    // Grouped GEMMs (an MoE layer's experts in one kernel, torch._grouped_mm's CUTLASS kernel):
    // the fixed cost beyond their two kernels' launch (problem setup), and the HBM fraction
    // they stream weights at. They never split K.
    Fact grouped_overhead_us;
    Fact grouped_hbm_efficiency;
  } gemm;
  struct {
    Fact block_m;         // query rows per CTA
    Fact decode_block_m;  // query rows per CTA of the split-KV (decode) kernel
    Fact block_n;         // keys per main-loop step
    Fact mma_efficiency;
    Fact softmax_exposed_fraction;  // share of exp() time not hidden behind the MMAs
    Fact item_overhead_cycles;      // per (head, query block): epilogue
    Fact prologue_cycles;           // once per kernel: setup before the first block
    Fact ctas_per_sm;
    Fact max_kv_splits;            // split-KV (flash-decoding) upper bound
    Fact decode_split_max_waves;   // the decode kernel splits keys only when batch x query heads
                                   // is at most this many waves of one CTA per SM ...
    Fact decode_split_min_kv_len;  // ... and there are at least this many keys
    Fact backward_mma_efficiency;  // the backward kernel's MMAs (5 per block instead of 2)
    Fact masked_block_slowdown;    // a key block's cycles with an additive mask, relative to none
  } attention;
  struct {
    Fact efficiency;  // elementwise math on CUDA cores, fraction of FP32 peak
    Fact cta_bytes;   // bytes one CTA of a memory-bound kernel moves (sets how many SMs work)
    Fact reduce_ctas_per_sm;            // ATen's target CTAs per SM when it splits a full reduction
    Fact reduce_cta_inflight_elements;  // loads one 512-thread reduction CTA keeps in flight
    Fact reduce_combine_us;             // combining partial sums across CTAs (a last-block pass)
    Fact row_reduce_us;                 // a row op's in-CTA reduction before its first store
    Fact strided_latency_us;  // extra cost of the generic (strided, broadcast) elementwise path
    Fact strided_elements_per_clk;        // elements per clock per SM of that generic path
    Fact pytorch_row_ns_per_col;          // ATen row kernels: serial time per element of a row
    Fact pytorch_row_bandwidth_fraction;  // ATen row kernels: share of achievable bandwidth
    Fact adamw_bandwidth_fraction;        // PyTorch's fused multi-tensor AdamW: share of achievable
                                          // bandwidth
  } vector;
};

// One what-if (`--set PATH=VALUE`) as the user wrote it and the value it resolved to: a relative
// value ("+30%", "1.3x") is applied to the figure after the profile.
struct WhatIf {
  std::string assignment;  // as written: "memory.hbm.bandwidth_GBps=+30%"
  std::string path;        // the field, as a JSON pointer without '/': "memory/hbm/bandwidth_GBps"
  std::string resolved;    // the value applied: "4355" (the JSON text of an absolute value)
};

// For views: "memory.hbm.bandwidth_GBps=+30% (4355)"; an absolute value is shown as written.
std::string what_if_label(const WhatIf& w);

// Whose calibrated profile a spec carries: its own GPU's, another GPU's of its architecture, or
// none (datasheet and architecture defaults only). Prediction intervals widen in that order.
enum class ProfileKind { Own, Architecture, None };
const char* profile_kind_name(ProfileKind k);  // "own", "architecture", "none"

struct GpuSpec {
  std::string name;                       // preset key, e.g. "h100-sxm"
  std::string full_name;                  // "NVIDIA H100 SXM5 80GB"
  std::string vendor;                     // "nvidia" or "amd"
  std::string architecture;               // "hopper", ... (names hardware/arch/<architecture>.json)
  std::vector<std::string> device_names;  // what CUDA/ROCm call this card ("NVIDIA H200")
  std::string file;                       // where it was read from
  std::vector<WhatIf> what_ifs;           // overrides applied, in order
  std::string profile = "none";           // the calibrated profile applied, and whose
  ProfileKind calibration = ProfileKind::None;  // whose profile (for prediction intervals)
  ComputeSpec compute;
  MemorySpec memory;
  InterconnectSpec interconnect;
  LaunchSpec launch;
  ModelParams model;
};

// what_if_label() of each what-if of `s`, in the order applied.
std::vector<std::string> what_if_labels(const GpuSpec& s);

// Calls f(json_path, fact, rule) for every scalar Fact of the spec, in document order.
// Paths are JSON pointers without the leading '/', e.g. "memory/hbm/bandwidth_GBps".
template <class Spec, class F>
void visit_fields(Spec& s, F&& f) {
  auto& c = s.compute;
  f("compute/sm_count", c.sm_count, FieldRule::PositiveInteger);
  f("compute/max_clock_MHz", c.max_clock_MHz, FieldRule::Positive);
  f("compute/tensor_clock_MHz", c.tensor_clock_MHz, FieldRule::Positive);
  f("compute/register_file_per_sm_bytes", c.register_file_per_sm_bytes, FieldRule::PositiveInteger);
  f("compute/l1_smem_per_sm_bytes", c.l1_smem_per_sm_bytes, FieldRule::PositiveInteger);
  f("compute/max_smem_per_sm_bytes", c.max_smem_per_sm_bytes, FieldRule::PositiveInteger);
  f("compute/sfu_ops_per_clk_per_sm", c.sfu_ops_per_clk_per_sm, FieldRule::Positive);
  auto& m = s.memory;
  f("memory/hbm/capacity_bytes", m.hbm.capacity_bytes, FieldRule::PositiveInteger);
  f("memory/hbm/bandwidth_GBps", m.hbm.bandwidth_GBps, FieldRule::Positive);
  f("memory/hbm/latency_ns", m.hbm.latency_ns, FieldRule::Positive);
  f("memory/l2/capacity_bytes", m.l2.capacity_bytes, FieldRule::PositiveInteger);
  f("memory/l2/bandwidth_GBps", m.l2.bandwidth_GBps, FieldRule::Positive);
  f("memory/l2/latency_ns", m.l2.latency_ns, FieldRule::Positive);
  f("memory/smem_bytes_per_clk_per_sm", m.smem_bytes_per_clk_per_sm, FieldRule::Positive);
  auto& i = s.interconnect;
  f("interconnect/nvlink_GBps_per_direction", i.nvlink_GBps_per_direction, FieldRule::NonNegative);
  f("interconnect/pcie_GBps_per_direction", i.pcie_GBps_per_direction, FieldRule::Positive);
  f("interconnect/network_GBps_per_direction", i.network_GBps_per_direction,
    FieldRule::NonNegative);
  f("launch/graph_us", s.launch.graph_us, FieldRule::Positive);
  f("launch/stream_us", s.launch.stream_us, FieldRule::Positive);
  f("launch/python_eager_us", s.launch.python_eager_us, FieldRule::Positive);
}

// The same for the model parameters, with paths relative to the "model" object.
template <class Params, class F>
void visit_model_fields(Params& p, F&& f) {
  f("kernel/latency_us", p.kernel.latency_us, FieldRule::NonNegative);
  f("power/few_sm_speedup", p.power.few_sm_speedup, FieldRule::Positive);
  f("power/boost_below_fraction", p.power.boost_below_fraction, FieldRule::Fraction);
  f("power/boost_above_fraction", p.power.boost_above_fraction, FieldRule::Fraction);
  f("memory/hbm_efficiency", p.memory.hbm_efficiency, FieldRule::Fraction);
  f("memory/l2_efficiency", p.memory.l2_efficiency, FieldRule::Fraction);
  f("memory/sm_bytes_per_clk", p.memory.sm_bytes_per_clk, FieldRule::Positive);
  f("memory/sm_l2_bytes_per_clk", p.memory.sm_l2_bytes_per_clk, FieldRule::Positive);
  f("memory/l2_knee_start_fraction", p.memory.l2_knee_start_fraction, FieldRule::Positive);
  f("memory/l2_knee_end_fraction", p.memory.l2_knee_end_fraction, FieldRule::Positive);
  f("memory/latency_round_trips", p.memory.latency_round_trips, FieldRule::NonNegative);
  f("gemm/k_tile_bytes", p.gemm.k_tile_bytes, FieldRule::PositiveInteger);
  f("gemm/ctas_per_sm", p.gemm.ctas_per_sm, FieldRule::PositiveInteger);
  f("gemm/tile_overhead_cycles", p.gemm.tile_overhead_cycles, FieldRule::NonNegative);
  f("gemm/multicast_ctas", p.gemm.multicast_ctas, FieldRule::PositiveInteger);
  f("gemm/max_split_k", p.gemm.max_split_k, FieldRule::PositiveInteger);
  f("gemm/min_k_per_split", p.gemm.min_k_per_split, FieldRule::PositiveInteger);
  f("gemm/align8_efficiency", p.gemm.align8_efficiency, FieldRule::Fraction);
  f("gemm/align4_efficiency", p.gemm.align4_efficiency, FieldRule::Fraction);
  f("gemm/align2_efficiency", p.gemm.align2_efficiency, FieldRule::Fraction);
  f("gemm/align1_efficiency", p.gemm.align1_efficiency, FieldRule::Fraction);
  f("gemm/vector_efficiency", p.gemm.vector_efficiency, FieldRule::Fraction);
  f("gemm/fp8_efficiency", p.gemm.fp8_efficiency, FieldRule::Fraction);
  f("gemm/hbm_efficiency", p.gemm.hbm_efficiency, FieldRule::Fraction);
  f("gemm/grouped_overhead_us", p.gemm.grouped_overhead_us, FieldRule::NonNegative);
  f("gemm/grouped_hbm_efficiency", p.gemm.grouped_hbm_efficiency, FieldRule::Fraction);
  f("attention/block_m", p.attention.block_m, FieldRule::PositiveInteger);
  f("attention/decode_block_m", p.attention.decode_block_m, FieldRule::PositiveInteger);
  f("attention/block_n", p.attention.block_n, FieldRule::PositiveInteger);
  f("attention/mma_efficiency", p.attention.mma_efficiency, FieldRule::Fraction);
  f("attention/softmax_exposed_fraction", p.attention.softmax_exposed_fraction,
    FieldRule::NonNegative);
  f("attention/item_overhead_cycles", p.attention.item_overhead_cycles, FieldRule::NonNegative);
  f("attention/prologue_cycles", p.attention.prologue_cycles, FieldRule::NonNegative);
  f("attention/ctas_per_sm", p.attention.ctas_per_sm, FieldRule::PositiveInteger);
  f("attention/max_kv_splits", p.attention.max_kv_splits, FieldRule::PositiveInteger);
  f("attention/decode_split_max_waves", p.attention.decode_split_max_waves, FieldRule::Positive);
  f("attention/decode_split_min_kv_len", p.attention.decode_split_min_kv_len,
    FieldRule::PositiveInteger);
  f("attention/backward_mma_efficiency", p.attention.backward_mma_efficiency, FieldRule::Fraction);
  f("attention/masked_block_slowdown", p.attention.masked_block_slowdown, FieldRule::Positive);
  f("vector/efficiency", p.vector.efficiency, FieldRule::Fraction);
  f("vector/cta_bytes", p.vector.cta_bytes, FieldRule::PositiveInteger);
  f("vector/reduce_ctas_per_sm", p.vector.reduce_ctas_per_sm, FieldRule::PositiveInteger);
  f("vector/reduce_cta_inflight_elements", p.vector.reduce_cta_inflight_elements,
    FieldRule::Positive);
  f("vector/reduce_combine_us", p.vector.reduce_combine_us, FieldRule::NonNegative);
  f("vector/row_reduce_us", p.vector.row_reduce_us, FieldRule::NonNegative);
  f("vector/strided_latency_us", p.vector.strided_latency_us, FieldRule::NonNegative);
  f("vector/strided_elements_per_clk", p.vector.strided_elements_per_clk, FieldRule::Positive);
  f("vector/pytorch_row_ns_per_col", p.vector.pytorch_row_ns_per_col, FieldRule::NonNegative);
  f("vector/pytorch_row_bandwidth_fraction", p.vector.pytorch_row_bandwidth_fraction,
    FieldRule::Fraction);
  f("vector/adamw_bandwidth_fraction", p.vector.adamw_bandwidth_fraction, FieldRule::Fraction);
}

// The Fact at a GPU description path such as "memory/hbm/bandwidth_GBps" or
// "model/gemm/fp8_efficiency" (Fact* or const Fact*, as the spec is); null for any other path.
template <class Spec>
auto* find_field(Spec& gpu, const std::string& path) {
  decltype(&gpu.compute.sm_count) found = nullptr;
  visit_fields(gpu, [&](const char* p, auto& f, FieldRule) {
    if (path == p) found = &f;
  });
  visit_model_fields(gpu.model, [&](const char* p, auto& f, FieldRule) {
    if (path == std::string("model/") + p) found = &f;
  });
  return found;
}

}  // namespace ridgeline
