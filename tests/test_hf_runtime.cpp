// The hf-transformers runtime launches the kernels transformers 5.17's own Llama code launched on
// the H200 (validate/data/h200-sxm-hf-2026-12-01.json): for prefill and decode, DynamicCache and
// StaticCache, several batches, lengths and 8 or 32 layers, the step's kernel count equals the
// profile's, leaving out the kernels libraries add inside one call (cuBLASLt's split-K reduce,
// cuDNN's lean reduction, memsets and copies of workspaces). Cases where ATen splits a copy over
// 2^31 bytes into 32-bit-indexable pieces (StaticCache b32 kv8192, b128 kv2048+) are not matched.
#include "model/op_cost.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"

#include "common/json_reader.h"

#include <catch2/catch.hpp>

#include <string>

using namespace ridgeline;

namespace {

const nlohmann::json& hf_data() {
  static const nlohmann::json d = read_json_file(std::string(RIDGELINE_SOURCE_DIR) +
                                                 "/validate/data/h200-sxm-hf-2026-12-01.json");
  return d;
}

const nlohmann::json& record(const std::string& id) {
  for (const auto& r : hf_data()["records"])
    if (r["id"] == id) return r;
  FAIL("no record " << id);
  throw;
}

int64_t profiled_kernels(const nlohmann::json& r) {
  double n = 0;
  for (const auto& k : r["kernels"]) {
    std::string name = k["name"];
    bool library = name.find("splitKreduce") != std::string::npos ||
                   name.find("lean_reduction") != std::string::npos ||
                   name.rfind("Memset", 0) == 0 || name.rfind("Memcpy", 0) == 0;
    if (!library) n += k["count"].get<double>();
  }
  return (int64_t)n;
}

int64_t built_kernels(const nlohmann::json& r) {
  ModelConfig m = load_model("llama-3-8b");
  m.layers = r["layers"];
  m.max_positions = 16384;
  RunConfig run;
  run.runtime = load_runtime("hf-transformers");
  select_cache_impl(run.runtime, r["cache"], "cache");
  run.batch = r["batch"];
  if (r["phase"] == "decode") {
    run.phase = Phase::Decode;
    run.kv_len = r["kv_len"];
  } else {
    run.phase = Phase::Prefill;
    run.seq = r["seq"];
  }
  if (r["cache"] == "static") run.cache_capacity = r["max_cache_len"];
  OpGraph g = build_graph(m, run);
  int64_t n = 0;
  for (const auto& s : g.sections) n += s.repeat * (int64_t)boost::num_vertices(s.dag());
  return n;
}

}  // namespace

TEST_CASE("hf-transformers launches the kernels of transformers' own Llama code", "[hf]") {
  auto id = GENERATE(as<std::string>{}, "hf-llama3-8b-L8-decode-b1-kv512-dynamic-eager",
                     "hf-llama3-8b-L8-decode-b128-kv8192-dynamic-eager",
                     "hf-llama3-8b-L8-decode-b1-kv512-static-eager",
                     "hf-llama3-8b-L8-decode-b8-kv8192-static-graph",
                     "hf-llama3-8b-L8-prefill-b1-s2048-dynamic-eager",
                     "hf-llama3-8b-L8-prefill-b4-s512-static-eager",
                     "hf-llama3-8b-L32-decode-b8-kv2048-dynamic-eager",
                     "hf-llama3-8b-L32-decode-b1-kv512-static-graph",
                     "hf-llama3-8b-L32-prefill-b4-s2048-dynamic-eager");
  const nlohmann::json& r = record(id);
  INFO(id);
  CHECK(built_kernels(r) == profiled_kernels(r));
}

TEST_CASE("pytorch-eager launches fewer kernels than transformers' code", "[hf]") {
  const nlohmann::json& r = record("hf-llama3-8b-L8-decode-b1-kv512-dynamic-eager");
  ModelConfig m = load_model("llama-3-8b");
  m.layers = 8;
  RunConfig run;
  run.phase = Phase::Decode;
  run.kv_len = 512;
  OpGraph g = build_graph(m, run);
  int64_t n = 0;
  for (const auto& s : g.sections) n += s.repeat * (int64_t)boost::num_vertices(s.dag());
  CHECK(n < profiled_kernels(r));
}

TEST_CASE("a cat copies element by element: slower than a strided copy, not below its bytes",
          "[hf][rule]") {
  const GpuSpec& g = test::h100();
  int64_t n = int64_t(1) << 26;  // a DynamicCache's K at b8 kv8192
  Op strided = test::elementwise(ElementwiseKind::Copy, n);
  std::get<ElementwiseOp>(strided.shape).strided = true;
  OpCost cat = predict_op(test::elementwise(ElementwiseKind::Cat, n), g);
  OpCost generic = predict_op(strided, g);
  OpCost copy = predict_op(test::elementwise(ElementwiseKind::Copy, n), g);
  CHECK(cat.time_us > 2 * generic.time_us);  // 0.4 of the strided path's element rate
  CHECK(cat.time_us < 3 * generic.time_us);
  CHECK(cat.bytes.hbm == copy.bytes.hbm);  // the same bytes as a copy
}
