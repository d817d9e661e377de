// Runtime profiles as data: the two presets load, a third runtime from a JSON file alone changes
// the kernels a step launches (and its prediction), and each way a runtime file can be wrong
// gets one error naming the file and the JSON path.
#include "model/prediction.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

const std::string kSource = RIDGELINE_SOURCE_DIR;

ModelConfig tiny() {
  return load_model(kSource + "/examples/models/tiny-llama.json");
}

RunConfig decode(const RuntimeProfile& rt) {
  RunConfig r;
  r.phase = Phase::Decode;
  r.batch = 8;
  r.kv_len = 512;
  r.runtime = rt;
  return r;
}

std::vector<std::string> block_kernels(const OpGraph& g) {
  std::vector<std::string> out;
  for (const auto& s : g.sections) {
    if (s.kind != SectionKind::DecoderBlock) continue;
    for (OpVertex v : launch_order(s)) out.push_back(s.dag()[v].name);
  }
  return out;
}

// The fused preset's text with `from` replaced by `to`, written to a file; returns its path.
std::string edited_fused(const std::string& file, const std::string& from, const std::string& to) {
  std::ifstream in(kSource + "/workloads/runtimes/fused.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::string path = (std::filesystem::temp_directory_path() / file).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("runtimes: the presets are built in and read strictly", "[runtimes]") {
  CHECK(runtime_preset_names() ==
        std::vector<std::string>{"fused", "hf-transformers", "pytorch-eager", "torch-compile"});
  RuntimeProfile eager = load_runtime("pytorch-eager"), fused = load_runtime("fused");
  CHECK(eager.name == "pytorch-eager");
  CHECK(eager.block.rope == RopeImpl::HfRotateHalf);
  CHECK(eager.learned_positions.cache_update == CacheUpdate::None);
  CHECK(fused.block.cache_update == CacheUpdate::FusedWithRope);
  CHECK(fused.learned_positions == fused.block);
  CHECK(default_runtime().name == "pytorch-eager");
  CHECK(RunConfig{}.runtime.name == "pytorch-eager");
}

TEST_CASE("runtimes: a third runtime from a JSON file alone launches its kernels", "[runtimes]") {
  RuntimeProfile hf = load_runtime(kSource + "/examples/runtimes/hf-fused-rope-norm.json");
  CHECK(hf.name == "hf-fused-rope-norm");
  OpGraph g = build_graph(tiny(), decode(hf));
  std::vector<std::string> expected = {"fused_add_input_norm",
                                       "q_proj",
                                       "k_proj",
                                       "v_proj",
                                       "rope",
                                       "k_cache_write",
                                       "v_cache_write",
                                       "attention",
                                       "o_proj",
                                       "fused_add_post_norm",
                                       "gate_proj",
                                       "up_proj",
                                       "silu_mul",
                                       "down_proj"};
  CHECK(block_kernels(g) == expected);
  const GpuSpec& gpu = test::h100();
  double own = predict_workload(g, tiny(), decode(hf), gpu).total_us;
  for (const std::string preset : {"pytorch-eager", "fused"}) {
    RunConfig r = decode(load_runtime(preset));
    CHECK(predict_workload(build_graph(tiny(), r), tiny(), r, gpu).total_us != own);
  }
  // Training derives the fused RoPE kernel's backward from its role.
  RunConfig train = decode(hf);
  train.phase = Phase::Train;
  train.kv_len = 0;
  train.seq = 64;
  OpGraph t = build_graph(tiny(), train);
  bool rope_backward = false;
  for (const auto& s : t.sections)
    for (OpVertex v : launch_order(s)) rope_backward |= s.dag()[v].name == "rope.backward";
  CHECK(rope_backward);
}

TEST_CASE("runtimes: an unknown key is an error naming the file and path", "[runtimes]") {
  std::string top = edited_fused("rt_unknown_top.json", "\"memory\"", "\"fusions\": 1, \"memory\"");
  require_input_error([&] { load_runtime(top); }, {top, "/fusions: unknown key"});
  std::string nested = edited_fused("rt_unknown_nested.json", "\"rope\": \"fused\"",
                                    "\"rope\": \"fused\", \"rope_kernel\": \"triton\"");
  require_input_error([&] { load_runtime(nested); },
                      {nested, "/attention/rope_kernel: unknown key"});
}

TEST_CASE("runtimes: a choice of the wrong type is an error", "[runtimes]") {
  std::string p = edited_fused("rt_type.json", "\"rope\": \"fused\"", "\"rope\": 5");
  require_input_error([&] { load_runtime(p); }, {p, "/attention/rope: expected a string, got 5"});
  std::string r = edited_fused("rt_reserved.json", "1073741824", "\"1 GiB\"");
  require_input_error([&] { load_runtime(r); }, {r, "/memory/reserved_bytes: expected a number"});
}

TEST_CASE("runtimes: an unknown choice is an error listing the choices", "[runtimes]") {
  std::string p = edited_fused("rt_choice.json", "\"rope\": \"fused\"", "\"rope\": \"triton\"");
  require_input_error(
      [&] { load_runtime(p); },
      {p, "/attention/rope: expected one of hf_rotate_half, fused, inductor; got \"triton\""});
}

TEST_CASE("runtimes: a missing choice is an error", "[runtimes]") {
  std::string p = edited_fused("rt_missing.json", ", \"read\": \"in_kernel\"", "");
  require_input_error([&] { load_runtime(p); }, {p, "/kv_cache/read: missing"});
}

TEST_CASE("runtimes: a cache written by a RoPE kernel that does not exist is an error",
          "[runtimes]") {
  std::string p =
      edited_fused("rt_combo.json", "\"rope\": \"fused\"", "\"rope\": \"hf_rotate_half\"");
  require_input_error([&] { load_runtime(p); },
                      {p,
                       "/kv_cache/update: \"fused_with_rope\" writes the cache from the fused "
                       "RoPE kernel"});
}

TEST_CASE("runtimes: overrides for learned-position models are read as strictly", "[runtimes]") {
  std::string p = edited_fused("rt_override.json", "\"memory\"",
                               "\"learned_position_models\": {\"mlp\": {\"act\": \"fused\"}}, "
                               "\"memory\"");
  require_input_error([&] { load_runtime(p); },
                      {p, "/learned_position_models/mlp/act: unknown key"});
}

TEST_CASE("runtimes: an unknown preset lists the presets", "[runtimes]") {
  require_input_error([] { load_runtime("vllm"); },
                      {"--runtime: unknown runtime \"vllm\"; presets: fused, hf-transformers, "
                       "pytorch-eager, torch-compile"});
}

TEST_CASE("runtimes: the reduction and row-kernel launches are the file's", "[runtimes]") {
  RuntimeProfile fused = load_runtime("fused");
  CHECK(fused.launch.reduction == ReduceLaunch{512, 16, 256});
  CHECK(fused.launch.rows.blocks_per_sm == 8);
  std::string p = edited_fused("rt_launch.json", "\"blocks_per_sm\": 8", "\"blocks_per_sm\": 6");
  CHECK(load_runtime(p).launch.rows.blocks_per_sm == 6);
  // The builders hand the runtime's launch to the kernels they emit.
  RunConfig r = decode(load_runtime(p));
  r.runtime.block.norm_impl = RowImpl::PyTorch;
  r.runtime.block.residual_add = ResidualAdd::Separate;
  OpGraph g = build_graph(tiny(), r);
  int rows = 0;
  for (const auto& s : g.sections)
    for (OpVertex v : launch_order(s))
      if (auto* row = std::get_if<RowOp>(&s.dag()[v].op.shape)) {
        CHECK(row->launch.blocks_per_sm == 6);
        ++rows;
      }
  CHECK(rows > 0);
}

TEST_CASE("runtimes: a missing launch is an error", "[runtimes]") {
  std::string p =
      edited_fused("rt_launch_missing.json", ", \"row_kernels\": {\"blocks_per_sm\": 8}", "");
  require_input_error([&] { load_runtime(p); }, {p, "/launch/row_kernels: missing"});
}

TEST_CASE("runtimes: a launch that is not a whole positive number is an error", "[runtimes]") {
  std::string p =
      edited_fused("rt_launch_int.json", "\"threads_per_block\": 512", "\"threads_per_block\": 0");
  require_input_error([&] { load_runtime(p); },
                      {p, "/launch/reduction/threads_per_block: expected an integer >= 1, got 0"});
}

TEST_CASE("runtimes: a reduction that splits below its one-block limit is an error", "[runtimes]") {
  std::string p = edited_fused("rt_launch_order.json", "\"max_values_per_thread\": 256",
                               "\"max_values_per_thread\": 8");
  require_input_error([&] { load_runtime(p); },
                      {p,
                       "/launch/reduction/max_values_per_thread: must be at least "
                       "/launch/reduction/min_values_per_thread (16)"});
}
