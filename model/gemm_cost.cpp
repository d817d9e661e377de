// GEMM cost, the way a cuBLAS-class library runs it. For each CTA tile the architecture offers
// (hardware/arch/*.json), the output is cut into ceil(M/tm) x ceil(N/tn) tiles per batch; when
// that leaves SMs idle and K is long, K is split (split-K, with an fp32 workspace round trip).
// Tiles run in waves of SMs x CTAs-per-SM; a partial last wave or a partial edge tile costs as
// much as a full one (wave and tile quantization), K is padded to the main loop's step, and an
// operand whose rows are not 16-byte aligned loses the fast load path. Memory traffic: each
// operand once from HBM (at the weight-streaming efficiency), A re-read per column of tiles and B
// per row of tiles from L2 (less what a cluster's multicast shares), and staged through shared
// memory. The library is assumed to pick the fastest tile (in either orientation), so we do too.
// fp8 main loops run at fp8_efficiency of the bf16 efficiency, and so do NVFP4 ones (assumed: no
// Blackwell measurement yet). On a GPU without FP4 tensor cores an NVFP4 GEMM runs the
// dequantising path (Marlin-style W4A16, as vLLM runs NVFP4 checkpoints on Hopper): bf16
// activations against 4.5-bit weights expanded in the kernel. A grouped GEMM (groups > 0: an MoE
// layer's experts) is `groups` problems in one CUTLASS kernel: no split-K, weights streamed at
// grouped_hbm_efficiency, and a fixed setup cost. When its rows are routed tokens each expert's
// row count is a draw (GemmOp::routed_*), and each expert rounds its own rows up to whole tiles:
// the row tiles are the expectation of sum_e ceil(X_e / tm) = E sum_j P(X > j tm), so a mean load
// of exactly 2 tiles (256 rows, 128-row tiles) costs ~2.5 tiles an expert when the loads spread.
//
// Example (H100, bf16): 4096x4096x4096 with 128x256 tiles is 32x16 = 512 tiles, 3.9 waves of
// 132 SMs -> 4 waves; 4096x4097x4096 is 2-byte aligned and runs at align2_efficiency.
#include "common/errors.h"
#include "hardware/derived.h"
#include "model/cost_models.h"
#include "model/kernel_terms.h"
#include "workloads/op_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace ridgeline {

// Expected row tiles of a routed grouped GEMM: sum over its experts of E[ceil(X / tm)], X ~
// Binomial(routed.tokens, routed.p): E * sum_{j>=0} P(X > j tm), P(X > 0) exact, the tails by
// the normal approximation with continuity correction (a deterministic load where the variance
// is below one row).
double expected_routed_row_tiles(const GemmOp& g, double tm) {
  double n = g.routed.tokens, p = g.routed.p;
  double mu = n * p, var = n * p * (1 - p);
  double per_expert = 1 - std::pow(1 - p, n);
  double sd = std::sqrt(var);
  for (double j = 1;; ++j) {
    double x = j * tm;  // P(X > x)
    if (x >= n) break;
    double tail = var < 1 ? (mu > x ? 1.0 : 0.0) : 0.5 * std::erfc((x + 0.5 - mu) / (sd * M_SQRT2));
    if (x > mu && tail < 1e-9) break;
    per_expert += tail;
  }
  return (double)g.routed.experts * per_expert;
}

namespace {

constexpr double kPaddedComputeShare = 0.05;

// Largest power of two (up to 16) dividing a row's byte length.
double row_alignment_bytes(double elements, double element_bytes) {
  double bytes = elements * element_bytes;
  for (double a : {16.0, 8.0, 4.0, 2.0}) {
    if (std::fmod(bytes, a) == 0) return a;
  }
  return 1;
}

double alignment_efficiency(const GpuSpec& gpu, double align) {
  const auto& g = gpu.model.gemm;
  if (align >= 16) return 1.0;
  if (align >= 8) return g.align8_efficiency.value;
  if (align >= 4) return g.align4_efficiency.value;
  if (align >= 2) return g.align2_efficiency.value;
  return g.align1_efficiency.value;
}

int choose_split_k(const GpuSpec& gpu, double mn_tiles, double slots, double k) {
  const auto& g = gpu.model.gemm;
  if (mn_tiles >= slots) return 1;
  double by_slots = std::floor(slots / mn_tiles);
  double by_k = std::floor(k / g.min_k_per_split.value);
  double s = std::min({g.max_split_k.value, by_slots, by_k});
  return (int)std::max(1.0, s);
}

// Bytes of one element's value in a tile's K step and a row's alignment: NVFP4's scales travel
// apart from its 4-bit values (in their own tensor), so a row is k / 2 bytes of values.
double value_bytes(DType d) {
  return d == DType::Fp4 ? 0.5 : dtype_bytes(d);
}

struct TileChoice {
  double tm, tn;      // the tile as laid over C: tm rows of M, tn columns of N
  double efficiency;  // main-loop fraction of the SM's peak
};

// The cost with one tile, or nothing when its compute time alone (plus the least overhead a
// kernel has) already exceeds `prune_above_us`: most tiles of a large GEMM stop there.
std::optional<OpCost> cost_with_tile(const GemmOp& g, const GpuSpec& gpu, MathUnit unit,
                                     const TileChoice& choice, double align,
                                     double prune_above_us) {
  const auto& p = gpu.model.gemm;
  double e_in = dtype_bytes(g.dtype), e_out = gemm_output_bytes(g.dtype);
  double tm = choice.tm, tn = choice.tn;
  double batch = g.problems(), m = (double)g.m, n = (double)g.n, k = (double)g.k;
  double tiles_m = ceil_div(m, tm), tiles_n = ceil_div(n, tn);
  double mn_tiles =
      g.routed.experts > 0 ? expected_routed_row_tiles(g, tm) * tiles_n : tiles_m * tiles_n * batch;
  double cta_per_sm = p.ctas_per_sm.value;
  double slots = sm_count(gpu) * cta_per_sm;
  bool grouped = g.groups > 0;
  int split = grouped ? 1 : choose_split_k(gpu, mn_tiles, slots, k);
  double ctas = mn_tiles * split;
  double waves = ceil_div(ctas, slots);
  double k_step = p.k_tile_bytes.value / value_bytes(g.dtype);
  double k_per_cta = ceil_div(ceil_div(k, split), k_step) * k_step;

  double ops_per_cycle = gpu.compute.ops_per_clk_per_sm[(int)unit]->value / cta_per_sm;
  double cycles_per_tile =
      2 * tm * tn * k_per_cta / (ops_per_cycle * choice.efficiency) + p.tile_overhead_cycles.value;
  OpCost c;
  double active_sms = std::min(sm_count(gpu), std::ceil(ctas / cta_per_sm));
  c.compute_us = waves * cycles_per_tile / (clock_MHz(gpu, unit) * clock_boost(gpu, active_sms));
  if (c.compute_us > prune_above_us) return std::nullopt;
  double workspace = split > 1 ? 2 * batch * m * n * 4 * split : 0;  // fp32 partials, out and back
  double e_b = g.weight_bits > 0 ? g.weight_bits / 8.0 : e_in;       // weight-only quantized B
  c.bytes.hbm = batch * (m * k * e_in + n * k * e_b) + batch * m * n * e_out + workspace;
  double a_reads = batch * m * k * e_in * tiles_n, b_reads = batch * n * k * e_b * tiles_m;
  // A cluster's CTAs share one L2 read of the operand they have in common (TMA multicast).
  double mc = p.multicast_ctas.value;
  double l2_operand_reads = std::min(a_reads / mc + b_reads, a_reads + b_reads / mc);
  c.bytes.l2 = l2_operand_reads + batch * m * n * e_out + workspace;
  c.bytes.smem = 2 * (a_reads + b_reads);  // staged in, read by the MMAs
  c.detail.tile_m = (int)tm;
  c.detail.tile_n = (int)tn;
  c.detail.split = split;
  c.detail.ctas = ctas;
  c.detail.waves = waves;
  c.detail.wave_efficiency = (m * n * batch * k) / (waves * slots * tm * tn * k_per_cta);
  c.detail.alignment_bytes = align;
  c.detail.active_sms = active_sms;
  c.detail.l2_hit_fraction = 1.0;
  // Split-K partials are summed by a second kernel; a grouped GEMM's problem table is written by
  // a kernel before it (prepare_grouped_gemm_data).
  c.detail.kernels = split > 1 || grouped ? 2 : 1;
  c.detail.hbm_efficiency = grouped ? p.grouped_hbm_efficiency.value : p.hbm_efficiency.value;
  finish(gpu, c);
  if (grouped) add_overhead(c, p.grouped_overhead_us.value);
  return c;
}

// Faster wins; within 0.5% (a memory-bound GEMM runs as fast with any tile) the tile that wastes
// the least work wins, as a library's heuristic would pick it.
bool better(const OpCost& a, const OpCost& b) {
  if (a.time_us < b.time_us * 0.995) return true;
  if (a.time_us > b.time_us * 1.005) return false;
  return a.detail.wave_efficiency > b.detail.wave_efficiency;
}

}  // namespace

OpCost gemm_cost(const GemmOp& g_in, const GpuSpec& gpu) {
  GemmOp g = g_in;
  if (fp4_dequantized(gpu, g.dtype)) {
    g.dtype = DType::Bf16;
    g.weight_bits = kNvfp4BitsPerElement;
  }
  MathUnit unit = matrix_unit(gpu, g.dtype);
  // A[m,k] and B[n,k] have rows of k elements (A's pitch may be wider); C[m,n] rows of n.
  double a_pitch = (double)(g.a_row_pitch > 0 ? g.a_row_pitch : g.k);
  double align = std::min({row_alignment_bytes((double)g.k, value_bytes(g.dtype)),
                           row_alignment_bytes(a_pitch, value_bytes(g.dtype)),
                           row_alignment_bytes((double)g.n, gemm_output_bytes(g.dtype))});
  double align_eff = alignment_efficiency(gpu, align);
  const auto& tiles = gpu.model.gemm.tiles;
  double best_tile_eff = 0;
  for (const auto& t : tiles) best_tile_eff = std::max(best_tile_eff, t.efficiency);

  OpCost best;
  best.time_us = std::numeric_limits<double>::infinity();
  double least_overhead = kernel_overhead_us(gpu, 1.0);
  double dtype_eff =
      g.dtype == DType::Fp8 || g.dtype == DType::Fp4 ? gpu.model.gemm.fp8_efficiency.value : 1.0;
  for (const auto& t : tiles) {
    double eff = is_tensor_unit(unit)
                     ? t.efficiency * dtype_eff
                     : gpu.model.gemm.vector_efficiency.value * t.efficiency / best_tile_eff;
    // Libraries instantiate tiles in both orientations (and swap A and B for skinny M).
    for (bool swap : {false, true}) {
      if (swap && t.m == t.n) continue;
      TileChoice choice{swap ? (double)t.n : (double)t.m, swap ? (double)t.m : (double)t.n,
                        eff * align_eff};
      auto c = cost_with_tile(g, gpu, unit, choice, align, best.time_us * 1.005 - least_overhead);
      if (c && better(*c, best)) best = *c;
    }
  }
  // A compute term that does less than kPaddedComputeShare of the peak's useful work is the
  // tile's fixed cycles and the MMAs on padded rows (an M=1 GEMM in a 64-row tile), not
  // arithmetic throughput: the kernel is latency-bound, and says so.
  double useful_s =
      2 * g.problems() * (double)g.m * (double)g.n * (double)g.k / peak_flops_per_s(gpu, unit);
  if (best.bottleneck == Bottleneck::Compute &&
      useful_s * 1e6 < kPaddedComputeShare * best.compute_us)
    best.bottleneck = Bottleneck::Latency;
  return best;
}

}  // namespace ridgeline
