// FlashAttention-2's decode on Hopper as PyTorch 2.11 runs it (model/attention_impl.cpp): its
// num_splits heuristic (both sides of each limit, and the split counts the H200 kernel runs
// recorded), the split-KV kernel's key tile by head_dim, and the forward kernel with its 128-row
// query tile when the heuristic keeps one split; and the memory-efficient kernel's lone CTAs.
#include "model/attention_impl.h"
#include "test_helpers.h"

using namespace ridgeline;

namespace {

const GpuSpec& h200() {
  static GpuSpec g = load_gpu("h200-sxm");
  return g;
}

OpCost fa2_decode(int64_t batch, int64_t kv_len, int64_t heads = 32, int64_t kv_heads = 8,
                  int64_t head_dim = 128) {
  Op op = test::attention(batch, heads, kv_heads, 1, kv_len, false, head_dim);
  std::get<AttentionOp>(op.shape).impl = AttentionImpl::Flash2;
  return predict_op(op, h200());
}

}  // namespace

TEST_CASE("fa2: one split once the items fill 0.8 of the SMs, else splits", "[impl][rule][fa2]") {
  // 79 items on 100 SMs: 5 splits of 5 key blocks reach 0.99 of a wave; 80 items: one split
  CHECK(fa2_num_splits(79, 100, 5, 128) == 5);
  CHECK(fa2_num_splits(80, 100, 5, 128) == 1);
}

TEST_CASE("fa2: a split count that does not change the blocks per split is skipped",
          "[impl][rule][fa2]") {
  // 8 items on 264: 33 splits would fill the SMs exactly, but 64 blocks in 33 splits are 2 a
  // split as in 32: 32 it is; with 66 blocks 33 splits (2 each, 32 would take 3) are eligible
  CHECK(fa2_num_splits(8, 264, 64, 128) == 32);
  CHECK(fa2_num_splits(8, 264, 66, 128) == 33);
}

TEST_CASE("fa2: the fewest splits within 0.85 of the best wave efficiency, up to the cap",
          "[impl][rule][fa2]") {
  // 32 items on 264: 7 splits (0.85 of a wave) are the first within 0.85 of 8's 0.97
  CHECK(fa2_num_splits(32, 264, 32, 128) == 7);
  CHECK(fa2_num_splits(32, 264, 32, 6) == 6);  // the cap
  CHECK(fa2_num_splits(8, 264, 4, 128) == 4);  // at most one split per key block
}

TEST_CASE("fa2: split counts of the H200 decode kernels recorded (twice the SMs)",
          "[impl][rule][fa2]") {
  // flash_fwd_splitkv_combine_kernel<..., 4, log2 max splits, ...> in
  // validate/data/h200-sxm-hf-kernels-2026-12-01{,b}.json (32/8/128 heads, 128 keys a block)
  CHECK(fa2_num_splits(8, 264, 4, 128) == 4);    // b1 kv512: log 2
  CHECK(fa2_num_splits(8, 264, 16, 128) == 16);  // b1 kv2048: log 4
  CHECK(fa2_num_splits(8, 264, 64, 128) == 32);  // b1 kv8192: log 5
  CHECK(fa2_num_splits(64, 264, 64, 128) == 4);  // b8 kv8192: log 2
  CHECK(fa2_num_splits(32, 264, 32, 128) == 7);  // b4 kv4096: log 3 (4 over 132 SMs: log 2)
  CHECK(fa2_num_splits(32, 132, 32, 128) == 4);
  CHECK(fa2_num_splits(128, 264, 8, 128) == 2);  // b16 kv1024: log 1
  CHECK(fa2_num_splits(256, 264, 4, 128) == 1);  // b32 kv512: flash_fwd_kernel, no combine
}

TEST_CASE("fa2: decode below the limit runs the split-KV kernel, at it the forward kernel",
          "[impl][rule][fa2]") {
  // 26 x 8 = 208 items < 0.8 x 264: 5 splits of 640 keys; 27 x 8 = 216: one split
  OpCost split = fa2_decode(26, 640);
  CHECK(split.detail.split == 5);
  CHECK(split.detail.kernels == 2);
  CHECK(split.detail.tile_m == 64);
  CHECK(split.detail.tile_n == 128);
  OpCost whole = fa2_decode(27, 640);
  CHECK(whole.detail.split == 1);
  CHECK(whole.detail.kernels == 1);
  CHECK(whole.detail.tile_m == 128);  // the 4 packed query heads in a 128-row tile
  CHECK(whole.detail.tile_n == 64);
  // the padded 128-row tile's MMAs, not the KV read, bound it
  CHECK(whole.bottleneck == Bottleneck::Compute);
}

TEST_CASE("fa2: the split-KV kernel's key tile is 256 to head_dim 64, 128 to 128, 64 above",
          "[impl][rule][fa2]") {
  CHECK(fa2_decode(1, 8192, 32, 8, 64).detail.tile_n == 256);
  CHECK(fa2_decode(1, 8192, 32, 8, 72).detail.tile_n == 128);
  CHECK(fa2_decode(1, 8192, 32, 8, 128).detail.tile_n == 128);
  CHECK(fa2_decode(1, 8192, 32, 8, 136).detail.tile_n == 64);
}

TEST_CASE("fa2: the forward kernel's key tile is 128 to head_dim 64, 64 above",
          "[impl][rule][fa2]") {
  CHECK(fa2_decode(64, 512, 32, 8, 64).detail.tile_n == 128);
  CHECK(fa2_decode(64, 512, 32, 8, 72).detail.tile_n == 64);
}

TEST_CASE("fa2: without GQA every query head is an item", "[impl][rule][fa2]") {
  // 8 x 32 = 256 items fill the SMs (one split); 8 x 8 packed GQA items do not
  CHECK(fa2_decode(8, 2048, 32, 32).detail.split == 1);
  CHECK(fa2_decode(8, 2048, 32, 8).detail.split > 1);
}

TEST_CASE("efficient: CTAs alone on their SMs pay each K/V block load, one more CTA hides it",
          "[impl][rule][efficient]") {
  // decode: one CTA per (batch, query head); 132 on the H200's 132 SMs are alone, 133 are not
  auto efficient = [](int64_t heads) {
    Op op = test::attention(1, heads, heads, 1, 1280, false);
    std::get<AttentionOp>(op.shape).impl = AttentionImpl::Efficient;
    return predict_op(op, h200());
  };
  OpCost lone = efficient(132), shared = efficient(133);
  CHECK(lone.detail.ctas == 132);
  CHECK(lone.overhead_us - shared.overhead_us == Approx(10 * 0.94));  // 10 blocks of 128 keys
}
