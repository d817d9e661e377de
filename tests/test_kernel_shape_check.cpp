// A measured attention record must name the shape its profiled kernels ran
// (validate/kernel_shape_check.h): FA2's kHeadDim and CUTLASS's kMaxK bound the record's head_dim
// on both sides, names that say nothing of it pass, and a record outside the bounds is an error
// at its kernel's JSON path.
#include "test_helpers.h"
#include "validate/dataset.h"
#include "validate/kernel_shape_check.h"

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

const std::string kFa2 =
    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false,";
const std::string kCutlass =
    "fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::"
    "bfloat16_t, cutlass::arch::Sm80, true, 64, 128, 128, true, true>::Params)";

nlohmann::json doc(int head_dim, const std::string& kernel) {
  nlohmann::json r = {{"kind", "op"},
                      {"id", "a"},
                      {"split", "fit"},
                      {"op", "attention"},
                      {"batch", 1},
                      {"heads", 32},
                      {"kv_heads", 8},
                      {"head_dim", head_dim},
                      {"q_len", 512},
                      {"kv_len", 512},
                      {"causal", true},
                      {"dtype", "bf16"},
                      {"impl", "flash_attention"},
                      {"measured_us", 20.0},
                      {"kernels_per_call", 1},
                      {"kernels", {kernel}}};
  return {{"meta", nlohmann::json::object()}, {"records", {r}}};
}

}  // namespace

TEST_CASE("kernel shape: FA2's kHeadDim takes head_dim above the next multiple of 32 down",
          "[validate][rule]") {
  auto d = kernel_head_dim(kFa2);
  REQUIRE(d);
  CHECK(d->max == 128);
  CHECK(d->min == 96);
  CHECK_NOTHROW(parse_dataset(doc(128, kFa2), "k.json"));
  CHECK_NOTHROW(parse_dataset(doc(97, kFa2), "k.json"));
  require_input_error([&] { parse_dataset(doc(96, kFa2), "k.json"); },
                      {"k.json: /records/0/kernels/0: the kernel (Flash_fwd_kernel_traits<128,) "
                       "runs head_dim 97 to 128, the record says 96: it did not run the "
                       "record's shape"});
  require_input_error([&] { parse_dataset(doc(136, kFa2), "k.json"); }, {"the record says 136"});
}

TEST_CASE("kernel shape: CUTLASS's kMaxK 128 takes head_dim 65 to 128", "[validate][rule]") {
  auto d = kernel_head_dim(kCutlass);
  REQUIRE(d);
  CHECK(d->max == 128);
  CHECK(d->min == 64);
  CHECK_NOTHROW(parse_dataset(doc(65, kCutlass), "k.json"));
  require_input_error([&] { parse_dataset(doc(64, kCutlass), "k.json"); },
                      {"/records/0/kernels/0", "runs head_dim 65 to 128, the record says 64"});
}

TEST_CASE("kernel shape: a name that says nothing of head_dim passes", "[validate][rule]") {
  std::string cudnn =
      "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_"
      "64x128x128_4x1x1_cga1x1x1_kernel0_0";
  CHECK_FALSE(kernel_head_dim(cudnn));
  CHECK_NOTHROW(parse_dataset(doc(64, cudnn), "k.json"));
}

TEST_CASE("kernel shape: the shapes SDPA was handed must be the record's", "[validate][rule]") {
  std::string cudnn =
      "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_"
      "64x128x128_4x1x1_cga1x1x1_kernel0_0";
  nlohmann::json d = doc(128, cudnn);
  auto& r = d["records"][0];
  r["ran_q_shape"] = {1, 32, 512, 128};
  r["ran_kv_shape"] = {1, 8, 512, 128};
  CHECK_NOTHROW(parse_dataset(d, "k.json"));
  r["ran_kv_shape"] = {1, 32, 512, 128};  // K/V expanded to every query head
  CHECK_NOTHROW(parse_dataset(d, "k.json"));
  r["ran_kv_shape"] = {1, 16, 512, 128};
  require_input_error([&] { parse_dataset(d, "k.json"); },
                      {"k.json: /records/0/ran_kv_shape: SDPA ran [1, 16, 512, 128], the record "
                       "says [1, 8, 512, 128]: it did not run the record's shape"});
  r["ran_kv_shape"] = {1, 8, 512, 128};
  r["ran_q_shape"] = {1, 64, 512, 128};
  require_input_error([&] { parse_dataset(d, "k.json"); },
                      {"/records/0/ran_q_shape: SDPA ran [1, 64, 512, 128], the record says "
                       "[1, 32, 512, 128]"});
  r["ran_q_shape"] = {1, 32, 512};
  require_input_error([&] { parse_dataset(d, "k.json"); },
                      {"/records/0/ran_q_shape: expected 4 integers (batch, heads, length, "
                       "head_dim)"});
}
