// Flash-style fused attention (FlashAttention-2 forward, as PyTorch's SDPA runs it). Work items
// are (batch, head, block of block_m query rows); each walks the key/value blocks it can see,
// block_n keys at a time, doing two MMAs (Q.K^T, P.V) and block_m x block_n exp()s. Items
// are scheduled over SMs x CTAs-per-SM slots:
//  - non-causal: every item is equal, so time = ceil(items / slots) x item time;
//  - causal: item j sees (j+1) x block_m keys; the library starts the heaviest first, so the
//    kernel lasts max(total work / slots, heaviest item). Causal halves the work, not the time,
//    when there are few items.
// Decode (one query per sequence) packs the query heads that share a KV head into one item, as
// FlashAttention does for GQA, runs the split-KV kernel's smaller query tile (decode_block_m),
// and splits the keys when items would leave SMs idle, the (batch, query head) pairs are few and
// the cache is long (cuDNN's choice, as observed); it is then bound by reading the KV cache with
// the SMs it keeps busy.
// An additive mask (a bias tile loaded and added per key block) multiplies a block's cycles by
// masked_block_slowdown (measured on cuDNN's masked kernel). Each CTA pays item_overhead_cycles
// per item; the kernel pays prologue_cycles once, before its
// first key block, when there is no memory traffic yet to overlap it with.
// K/V blocks are re-read from L2 by each query block of a head; those reads go to HBM when
// the KV of the heads running at once outgrows L2.
#include "hardware/derived.h"
#include "model/cost_models.h"
#include "model/kernel_terms.h"
#include "workloads/op_math.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ridgeline {

namespace {

struct Layout {
  double block_m;     // query rows per item
  double head_items;  // (batch, head) groups that are scheduled independently
  double q_rows;      // query rows per group
  double m_blocks;
  double kv_blocks;  // key blocks of a full row
  int split;
};

// forced_splits > 0: the library's own split count (decode only) instead of the choice below.
Layout lay_out(const AttentionOp& a, const GpuSpec& gpu, double slots, int forced_splits) {
  const auto& p = gpu.model.attention;
  Layout l;
  double groups = (double)(a.heads / a.kv_heads);
  // The decode kernel (one query per sequence) packs the query heads of a KV head into one item,
  // runs a small query tile and may split the keys; any longer query runs the prefill kernel
  // with its full query tile, which walks all keys even when that leaves SMs idle (measured on
  // H200: 8 to 128 queries over 4096 keys all take ~53 us at batch 1).
  bool decode_kernel = a.q_len == 1;
  // CUTLASS's memory-efficient kernel packs nothing: every (batch, head) is its own 64-row tile.
  bool packs = !a.impl || *a.impl != AttentionImpl::Efficient;
  bool pack_gqa = decode_kernel && groups > 1 && packs;
  l.head_items = (double)a.batch * (double)(pack_gqa ? a.kv_heads : a.heads);
  l.q_rows = pack_gqa ? groups : (double)a.q_len;
  l.block_m = decode_kernel ? p.decode_block_m.value : p.block_m.value;
  l.m_blocks = ceil_div(l.q_rows, l.block_m);
  l.kv_blocks = ceil_div((double)a.kv_len, p.block_n.value);
  l.split = 1;
  double items = l.head_items * l.m_blocks;
  // cuDNN splits the keys only for few (batch, query head) CTAs and long enough caches.
  bool few = (double)a.batch * a.heads <= p.decode_split_max_waves.value * sm_count(gpu);
  bool long_kv = (double)a.kv_len >= p.decode_split_min_kv_len.value;
  if (forced_splits > 0) {
    if (decode_kernel && !a.causal && !a.backward)
      l.split = (int)std::min((double)forced_splits, l.kv_blocks);
  } else if (decode_kernel && !a.causal && !a.backward && items < slots && few && long_kv) {
    double s = std::min({std::floor(slots / items), p.max_kv_splits.value, l.kv_blocks});
    l.split = (int)std::max(1.0, s);
  }
  return l;
}

// Cycles until the last item finishes. Equal items run in whole waves; unequal (causal) items
// are placed head by head, heaviest query block first, on the slot that frees first (simulated
// while there are at most 4 waves of them). With more, the greedy schedule ends about half an
// average item after total / slots: within 7% of the simulation for 4 to 500 waves (checked
// against it for 1-512 heads of 1-256 blocks on 132 slots).
double schedule(const std::vector<double>& head, double head_items, double slots, bool causal) {
  double heaviest = *std::max_element(head.begin(), head.end());
  double n = head_items * head.size();
  if (!causal) return ceil_div(n, slots) * heaviest;
  if (n > 4 * slots) {
    double per_head = 0;
    for (double w : head) per_head += w;
    return std::max(per_head * head_items / slots + 0.5 * per_head / head.size(), heaviest);
  }
  std::vector<double> order(head.rbegin(), head.rend());
  std::vector<double> all;
  all.reserve((size_t)n);
  for (double h = 0; h < head_items; ++h) all.insert(all.end(), order.begin(), order.end());
  return list_schedule_cycles(all, slots);
}

// Key blocks that query block j (0-based) walks.
double blocks_for(const AttentionOp& a, const Layout& l, const GpuSpec& gpu, double j) {
  const auto& p = gpu.model.attention;
  if (!a.causal) return ceil_div(l.kv_blocks, l.split);
  double last_row = std::min(l.q_rows, (j + 1) * l.block_m);
  double visible = std::min((double)a.kv_len, (double)a.kv_len - l.q_rows + last_row);
  return ceil_div(std::max(0.0, visible), p.block_n.value);
}

}  // namespace

OpCost attention_cost(const AttentionOp& a, const GpuSpec& gpu) {
  return attention_cost(a, gpu, 0);
}

OpCost attention_cost(const AttentionOp& a, const GpuSpec& gpu, int kv_splits) {
  const auto& p = gpu.model.attention;
  MathUnit unit = matrix_unit(gpu, a.dtype);
  double cta_per_sm = p.ctas_per_sm.value;
  double slots = sm_count(gpu) * cta_per_sm;
  Layout l = lay_out(a, gpu, slots, kv_splits);
  double bm = l.block_m, bn = p.block_n.value, d = (double)a.head_dim;

  double ops_per_cycle = gpu.compute.ops_per_clk_per_sm[(int)unit]->value / cta_per_sm;
  double sfu_per_cycle = gpu.compute.sfu_ops_per_clk_per_sm.value / cta_per_sm;
  double mma_cycles = 4 * bm * bn * d / ops_per_cycle;
  double exp_cycles = bm * bn / sfu_per_cycle * p.softmax_exposed_fraction.value;
  double block_cycles = a.backward
                            ? 2.5 * mma_cycles / p.backward_mma_efficiency.value + 2 * exp_cycles
                            : mma_cycles / p.mma_efficiency.value + exp_cycles;
  if (a.additive_mask) block_cycles *= p.masked_block_slowdown.value;  // the bias tile each block
  double overhead = p.item_overhead_cycles.value;

  std::vector<double> head;  // cycles of one head's items, in launch order
  double total_cycles = 0, max_item = 0, total_blocks = 0;
  for (double j = 0; j < l.m_blocks; ++j) {  // one pass over the query blocks of a head
    double blocks = blocks_for(a, l, gpu, j);
    double item = blocks * block_cycles + overhead;
    total_blocks += blocks * l.split;
    total_cycles += item * l.split;
    max_item = std::max(max_item, item);
    for (int s = 0; s < l.split; ++s) head.push_back(item);
  }
  total_cycles *= l.head_items;
  total_blocks *= l.head_items;
  double items = l.head_items * l.m_blocks * l.split;
  double cycles = schedule(head, l.head_items, slots, a.causal);

  OpCost c;
  double active_sms = std::min(sm_count(gpu), std::ceil(items / cta_per_sm));
  double clock = clock_MHz(gpu, unit) * clock_boost(gpu, active_sms);
  c.compute_us = cycles / clock;
  double e = dtype_bytes(a.kv_storage());  // K/V tiles as stored
  OpWork w = op_work(Op{"", a, false});
  double kv_tile_reads = total_blocks * bn * d * e * 2;
  double unique_kv = 2 * (double)a.batch * a.kv_heads * a.kv_len * d * e;
  // The items that share a KV head run side by side when one wave holds them all, and then
  // re-read each K/V block moments apart: L2 hits. Otherwise a KV head is re-read wave after
  // wave, and its K/V (with those of the heads beside it in the wave) must stay in L2.
  double kv_per_head = unique_kv / ((double)a.batch * a.kv_heads);
  double items_per_kv_head = items / ((double)a.batch * a.kv_heads);
  double hit = 1.0;
  if (items_per_kv_head > slots) hit = l2_hit_fraction(gpu, kv_per_head);
  double rereads = std::max(0.0, kv_tile_reads - unique_kv);
  double workspace =
      l.split > 1 ? 2 * (double)a.batch * a.heads * a.q_len * (d + 2) * 4 * l.split : 0;
  // An additive mask is read once from HBM and by every head's query blocks through L2.
  double mask = a.additive_mask ? (double)a.batch * a.q_len * a.kv_len * dtype_bytes(a.dtype) : 0;
  c.bytes.hbm = w.unique_bytes() + (1 - hit) * rereads + workspace + mask;
  c.bytes.l2 = w.unique_bytes() - unique_kv + kv_tile_reads + workspace + mask * a.heads;
  c.bytes.smem = 2 * kv_tile_reads;
  c.detail.tile_m = (int)bm;
  c.detail.tile_n = (int)bn;
  c.detail.split = l.split;
  c.detail.ctas = items;
  c.detail.waves = cycles / max_item;
  c.detail.wave_efficiency = total_cycles / (slots * cycles);
  c.detail.active_sms = active_sms;
  c.detail.l2_hit_fraction = hit;
  // Split-KV partials are merged by a second kernel; the backward pass runs a preprocessing
  // kernel (rowsum of dO * O) and a dQ conversion (fp32 to 16-bit) around its main kernel, and
  // with GQA one reduction each for dK and dV over the query heads that share a KV head.
  bool gqa = a.heads != a.kv_heads;
  c.detail.kernels = a.backward ? (gqa ? 5 : 3) : (l.split > 1 ? 2 : 1);
  finish(gpu, c);
  add_overhead(c, p.prologue_cycles.value / clock);  // setup before the first key block
  if (a.backward) {  // those small kernels stream their bytes after the main one
    double q = (double)a.batch * a.heads * a.q_len * d;
    double dq = q * (4 + 4 + 2);  // fp32 accumulate written, read back, 16-bit written
    double dkv = gqa ? 2 * (double)a.batch * a.heads * a.kv_len * d * (4 + 2) : 0;
    double extra_us = (dq + dkv) / achievable_hbm_bytes_per_s(gpu, sm_count(gpu)) * 1e6;
    c.bytes.hbm += dq + dkv;
    add_overhead(c, extra_us);
  }
  return c;
}

}  // namespace ridgeline
