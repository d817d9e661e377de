// Rules of `ridgeline runtime learn`'s matcher (validate/kernel_match.h, runtime_learn.h):
// kernel classes from names and from graph nodes, the weighted alignment (same class pairs,
// same family half-pairs, helpers join their kernel), the choice search recovering a runtime
// from its own kernel list, the refusal threshold on both sides, and SHA-256.
#include "test_helpers.h"
#include "validate/runtime_learn.h"
#include "validate/trace_file.h"
#include "workloads/graph_builder.h"

#include <catch2/catch.hpp>

using namespace ridgeline;

namespace {

TraceKernel kernel(const std::string& name, double start) {
  return {name, start, 1, kernel_family(name)};
}

// The trace a runtime's own step would give: one kernel a node, named as the real library names
// kernels of its class.
std::vector<TraceKernel> trace_of(const OpGraph& g) {
  std::vector<TraceKernel> out;
  double t = 0;
  for (const auto& s : step_kernels(g)) {
    const std::string& c = s.kernel_class;
    std::string name = c == "gemm"               ? "nvjet_sm90_tst_64x8"
                       : c == "attention"        ? "cudnn_generated_fort_native_sdpa_sm80_flash"
                       : c == "reduce"           ? "void at::native::reduce_kernel<512, 1>"
                       : c == "norm/aten"        ? "void at::native::vectorized_layer_norm_kernel"
                       : c == "norm/single_pass" ? "triton_red_fused_rms_norm_0"
                       : c == "elementwise/cat"  ? "void at::native::CatArrayBatchedCopy<>"
                       : c == "elementwise/copy" ? "void at::native::direct_copy_kernel_cuda"
                       : c == "softmax"          ? "softmax_warp_forward"
                                        : "void at::native::vectorized_elementwise_kernel<4>";
    out.push_back(kernel(name, t++));
  }
  return out;
}

LearnRequest request(const std::string& runtime_name, const std::string& base) {
  LearnRequest q;
  q.model = load_model("llama-3-8b");
  q.model.layers = 2;
  q.run.phase = Phase::Decode;
  q.run.kv_len = 512;
  q.run.runtime = load_runtime(runtime_name);
  q.kernels = trace_of(build_graph(q.model, q.run));
  q.trace_label = "t.json";
  q.base = runtime_document(base);
  q.base_name = base;
  q.run.runtime = load_runtime(base);
  return q;
}

std::string chosen(const LearnResult& r, const std::string& pointer) {
  for (const auto& c : r.choices)
    if (c.pointer == pointer) return c.chosen;
  FAIL("no choice " << pointer);
  return "";
}

}  // namespace

TEST_CASE("trace kernel classes come from the library's kernel names") {
  CHECK(trace_kernel_class("nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_TNT") == "gemm");
  CHECK(trace_kernel_class("void cublasLt::splitKreduce_kernel<32, 16>") == "aux");
  CHECK(trace_kernel_class("void at::native::CatArrayBatchedCopy<OpaqueType<2u>>") ==
        "elementwise/cat");
  CHECK(trace_kernel_class("void at::native::bfloat16_copy_kernel_cuda") == "elementwise/copy");
  CHECK(trace_kernel_class("void at::native::vectorized_elementwise_kernel<8, silu>") ==
        "elementwise/math");
  CHECK(trace_kernel_class("void at::native::vectorized_layer_norm_kernel<float>") == "norm/aten");
  CHECK(trace_kernel_class("triton_per_fused_rms_norm_0") == "norm/single_pass");
  CHECK(trace_kernel_class("my_fft_radix4_kernel") == "other");
}

TEST_CASE("a pair scores 1 for one class, 0.5 for one family, 0 across families or for helpers") {
  CHECK(class_similarity("elementwise/cat", "elementwise/cat") == 1);
  CHECK(class_similarity("elementwise/cat", "elementwise/copy") == 0.5);
  CHECK(class_similarity("norm/aten", "norm/single_pass") == 0.5);
  CHECK(class_similarity("gemm", "attention") == 0);
  CHECK(class_similarity("other", "other") == 0);
  CHECK(class_similarity("aux", "aux") == 0);
}

TEST_CASE(
    "helpers join the kernel they serve: a split-K reduce the GEMM before, a memset the next") {
  std::vector<TraceKernel> k = {kernel("nvjet_a_splitK", 0),
                                kernel("void cublasLt::splitKreduce_kernel", 1),
                                kernel("Memset (Device)", 2), kernel("nvjet_b", 3)};
  k[2].family = "aux";
  auto g = group_trace_kernels(k);
  REQUIRE(g.size() == 2);
  CHECK(g[0].kernels == std::vector<size_t>{0, 1});
  CHECK(g[1].kernels == std::vector<size_t>{3, 2});
}

TEST_CASE("the alignment keeps order and counts both sides' extra kernels against the score") {
  std::vector<KernelGroup> g = {{"gemm", {0}}, {"elementwise/math", {1}}, {"gemm", {2}}};
  std::vector<StepKernel> same = {{"gemm", {}, 0}, {"elementwise/math", {}, 0}, {"gemm", {}, 0}};
  CHECK(match_kernels(g, same).score == Approx(1));
  std::vector<StepKernel> extra = same;
  extra.push_back({"elementwise/math", {}, 0});
  KernelMatch m = match_kernels(g, extra);
  CHECK(m.weight == 3);
  CHECK(m.unmatched_steps.size() == 1);
  CHECK(m.score == Approx(6.0 / 7));
  std::vector<StepKernel> half = {{"gemm", {}, 0}, {"elementwise/copy", {}, 0}, {"gemm", {}, 0}};
  CHECK(match_kernels(g, half).weight == 2.5);
}

TEST_CASE(
    "learning from hf-transformers' own kernel list, from pytorch-eager, recovers its choices") {
  LearnResult r = learn_runtime(request("hf-transformers", "pytorch-eager"));
  CHECK(r.match.score == Approx(1));
  CHECK(chosen(r, "/norm/impl") == "hf_fp32_decomposed");
  CHECK(chosen(r, "/attention/rope_tables") == "recomputed_per_forward");
  CHECK(chosen(r, "/kv_cache/update") == "dynamic_cat");
  CHECK(chosen(r, "/moe/impl") == "hf_grouped_mm");  // not seen in a dense model: the base's
  for (const auto& c : r.choices)
    if (c.pointer == "/moe/impl") CHECK_FALSE(c.observable);
}

TEST_CASE("learning from the fused runtime's kernel list recovers its fused kernels") {
  LearnResult r = learn_runtime(request("fused", "pytorch-eager"));
  CHECK(r.match.score == Approx(1));
  CHECK(chosen(r, "/attention/qkv_projection") == "fused");
  CHECK(chosen(r, "/mlp/activation") == "fused");
  CHECK(chosen(r, "/norm/impl") == "single_pass");
}

TEST_CASE("a trace is refused when less than half its kernels match, and taken at half") {
  LearnRequest q = request("pytorch-eager", "pytorch-eager");
  size_t n = q.kernels.size();
  // Unknown kernels appended until the matched share is just below, then exactly at, 50%.
  LearnRequest below = q, at = q;
  for (size_t i = 0; i < n + 1; ++i) below.kernels.push_back(kernel("my_fft_kernel", 1e6 + i));
  for (size_t i = 0; i < n; ++i) at.kernels.push_back(kernel("my_fft_kernel", 1e6 + i));
  test::require_input_error(
      [&] { learn_runtime(below); },
      {"t.json: only 49.", "% of its " + std::to_string(2 * n + 1) + " kernels match a part of"});
  CHECK_NOTHROW(learn_runtime(at));
}

TEST_CASE("SHA-256 of the FIPS 180-4 examples") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex(std::string(1000, 'a')).substr(0, 16) == "41edece42d63e8d9");
}
