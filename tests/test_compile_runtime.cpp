// The torch-compile runtime launches the kernels TorchInductor generated for transformers 5.17's
// Llama code on the H200 (validate/data/h200-sxm-hf-compile-2026-12-01.json, both modes): for
// prefill and StaticCache decode at several batches and cache lengths, the step's kernel count
// equals the profile's, leaving out the kernels libraries add inside one call (cuBLASLt's split-K
// reduce, cuDNN's lean reduction, memsets) and, in mode reduce-overhead, the CUDA-graph tree's
// own input copies and fills (ATen's multi_tensor_apply and fill kernels outside the model).
// A reduce-overhead step also waits the runtime's graph replay lead before its first kernel.
#include "hardware/gpu_load.h"
#include "hf_records.h"
#include "model/prediction.h"
#include "test_helpers.h"
#include "validate/workload_dataset.h"
#include "workloads/graph_builder.h"

#include "common/json_reader.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

using namespace ridgeline;
using test::require_input_error;

namespace {

const nlohmann::json& record(const std::string& id) {
  return test::measured_record("/validate/data/h200-sxm-hf-compile-2026-12-01.json", id);
}

int64_t profiled_kernels(const nlohmann::json& r) {
  return test::profiled_kernels(r, true);
}

RunConfig compile_run(const nlohmann::json& r) {
  RunConfig run;
  run.runtime = load_runtime("torch-compile");
  run.batch = r["batch"];
  if (r["phase"] == "decode") {
    run.phase = Phase::Decode;
    run.kv_len = r["kv_len"];
    run.cache_capacity = r["max_cache_len"];
  } else {
    run.phase = Phase::Prefill;
    run.seq = r["seq"];
  }
  return run;
}

int64_t built_kernels(const nlohmann::json& r) {
  ModelConfig m = load_model("llama-3-8b");
  m.layers = r["layers"];
  OpGraph g = build_graph(m, compile_run(r));
  int64_t n = 0;
  for (const auto& s : g.sections) n += s.repeat * (int64_t)boost::num_vertices(s.dag());
  return n;
}

std::string runtime_text() {
  std::ifstream in(std::string(RIDGELINE_SOURCE_DIR) + "/workloads/runtimes/torch-compile.json");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("torch-compile launches the kernels Inductor generated for transformers' Llama code",
          "[compile]") {
  auto id = GENERATE(as<std::string>{}, "hf-llama3-8b-L8-decode-b1-kv2048-static-compile",
                     "hf-llama3-8b-L8-decode-b8-kv2048-static-compile",
                     "hf-llama3-8b-L8-decode-b32-kv2048-static-compile",
                     "hf-llama3-8b-L8-prefill-b1-s2048-dynamic-compile",
                     "hf-llama3-8b-L8-decode-b1-kv2048-static-compile-ro",
                     "hf-llama3-8b-L8-decode-b1-kv512-static-compile-ro",
                     "hf-llama3-8b-L8-decode-b8-kv512-static-compile-ro",
                     "hf-llama3-8b-L8-prefill-b1-s2048-dynamic-compile-ro");
  const nlohmann::json& r = record(id);
  INFO(id);
  CHECK(built_kernels(r) == profiled_kernels(r));
}

TEST_CASE("torch-compile launches fewer kernels than transformers' eager code", "[compile]") {
  const nlohmann::json& r = record("hf-llama3-8b-L8-decode-b1-kv2048-static-compile");
  ModelConfig m = load_model("llama-3-8b");
  m.layers = 8;
  RunConfig hf = compile_run(r);
  hf.runtime = load_runtime("hf-transformers");
  select_cache_impl(hf.runtime, "static", "cache");
  OpGraph eager = build_graph(m, hf);
  int64_t n = 0;
  for (const auto& s : eager.sections) n += s.repeat * (int64_t)boost::num_vertices(s.dag());
  CHECK(built_kernels(r) < n);
}

TEST_CASE("torch-compile: a StaticCache decode attends over the whole cache with every head",
          "[compile][rule]") {
  ModelConfig m = load_model("llama-3-8b");
  RunConfig run = compile_run(record("hf-llama3-8b-L8-decode-b1-kv512-static-compile-ro"));
  run.blocks = 1;
  auto attention = [&](const RunConfig& r) {
    OpGraph g = build_graph(m, r);
    for (OpVertex v = 0; v < boost::num_vertices(g.sections[0].dag()); ++v)
      if (auto* a = std::get_if<AttentionOp>(&g.sections[0].dag()[v].op.shape)) return *a;
    FAIL("no attention");
    throw;
  };
  AttentionOp a = attention(run);
  CHECK(a.kv_len == 528);  // max_cache_len, not the 513 positions reached
  CHECK(a.kv_heads == m.heads);
  CHECK_FALSE(a.causal);
  run.cache_capacity = 0;  // no cache length given: exactly the positions the step reaches
  CHECK(attention(run).kv_len == 513);
}

TEST_CASE("torch-compile error: Inductor's RoPE, tables and mask go together",
          "[compile][errors]") {
  std::string t = runtime_text();
  t.replace(t.find("\"inline_per_forward\""), 20, "\"cached\"");
  require_input_error([&] { load_runtime_text(t, "t.json"); },
                      {"t.json: /attention: rope \"inductor\", rope_tables \"inline_per_forward\" "
                       "and mask \"inductor_sdpa\" are TorchInductor's compiled set"});
}

TEST_CASE("torch-compile error: Inductor's RoPE writes the cache itself", "[compile][errors]") {
  std::string t = runtime_text();
  t.replace(t.find("\"update\": \"none\""), 16, "\"update\": \"copy_per_kv\"");
  require_input_error([&] { load_runtime_text(t, "t.json"); },
                      {"t.json: /kv_cache/update: rope \"inductor\" writes the cache itself"});
}

TEST_CASE("torch-compile: a CUDA-graph step waits the graph replay lead, counted as launch",
          "[compile][rule]") {
  ModelConfig m = load_model("llama-3-8b");
  m.layers = 8;
  RunConfig run = compile_run(record("hf-llama3-8b-L8-decode-b1-kv512-static-compile-ro"));
  GpuSpec gpu = load_gpu("h200-sxm");
  REQUIRE(run.runtime.graph_replay_us > 0);
  Prediction with = predict_workload(build_graph(m, run), m, run, gpu);
  run.runtime.graph_replay_us = 0;
  Prediction without = predict_workload(build_graph(m, run), m, run, gpu);
  CHECK(with.total_us == Approx(without.total_us + 536));
  CHECK(with.time_by_class_us[kLaunchClass] ==
        Approx(without.time_by_class_us[kLaunchClass] + 536));
  run.launch = LaunchMode::Eager;  // mode "default": the host launches every kernel, no lead
  run.runtime.graph_replay_us = 536;
  Prediction eager = predict_workload(build_graph(m, run), m, run, gpu);
  run.runtime.graph_replay_us = 0;
  CHECK(eager.total_us == Approx(predict_workload(build_graph(m, run), m, run, gpu).total_us));
}

TEST_CASE("torch-compile error: a negative graph replay lead", "[compile][errors]") {
  std::string t = runtime_text();
  t.replace(t.find("\"graph_replay_us\": 536"), 22, "\"graph_replay_us\": -1");
  require_input_error([&] { load_runtime_text(t, "t.json"); },
                      {"t.json: /host/graph_replay_us: expected a number >= 0, got -1"});
}
