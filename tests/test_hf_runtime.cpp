// The hf-transformers runtime launches the kernels transformers 5.17's own Llama code launched on
// the H200 (validate/data/h200-sxm-hf-2026-12-01.json): for prefill and decode, DynamicCache and
// StaticCache, several batches, lengths and 8 or 32 layers, the step's kernel count equals the
// profile's, leaving out the kernels libraries add inside one call (cuBLASLt's split-K reduce,
// cuDNN's lean reduction, memsets and copies of workspaces). Cases where ATen splits a copy over
// 2^31 bytes into 32-bit-indexable pieces (StaticCache b32 kv8192, b128 kv2048+) are not matched.
#include "hf_records.h"
#include "model/op_cost.h"
#include "model/prediction.h"
#include "model/timeline.h"
#include "test_helpers.h"
#include "validate/workload_dataset.h"
#include "workloads/graph_builder.h"

#include "common/json_reader.h"

#include <catch2/catch.hpp>

#include <string>

using namespace ridgeline;
using test::require_input_error;

namespace {

const nlohmann::json& record(const std::string& id) {
  return test::measured_record("/validate/data/h200-sxm-hf-2026-12-01.json", id);
}

int64_t profiled_kernels(const nlohmann::json& r) {
  return test::profiled_kernels(r, false);
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

TEST_CASE("a cat of a strided input copies element by element: slower than a strided copy",
          "[hf][rule]") {
  const GpuSpec& g = test::h100();
  int64_t n = int64_t(1) << 26;  // a DynamicCache's K at b8 kv8192
  Op strided = test::elementwise(ElementwiseKind::Copy, n);
  std::get<ElementwiseOp>(strided.shape).strided = true;
  Op strided_cat = test::elementwise(ElementwiseKind::Cat, n);
  std::get<ElementwiseOp>(strided_cat.shape).strided = true;
  OpCost cat = predict_op(strided_cat, g);
  OpCost generic = predict_op(strided, g);
  OpCost copy = predict_op(test::elementwise(ElementwiseKind::Copy, n), g);
  CHECK(cat.time_us > 2 * generic.time_us);  // 0.4 of the strided path's element rate
  CHECK(cat.time_us < 3 * generic.time_us);
  CHECK(cat.bytes.hbm == copy.bytes.hbm);  // the same bytes as a copy
  // Contiguous inputs: the vectorized copy.
  CHECK(predict_op(test::elementwise(ElementwiseKind::Cat, n), g).time_us == copy.time_us);
}

namespace {

nlohmann::json hf_doc() {
  return nlohmann::json::parse(R"({"meta": {"device_name": "NVIDIA H200"}, "records": [
    {"id": "d", "split": "holdout", "model": "hf-llama3-8b", "layers": 8, "phase": "decode",
     "batch": 8, "kv_len": 512, "cache": "static", "max_cache_len": 528, "launch": "graph",
     "device_median_ms": 5.0}]})");
}

}  // namespace

TEST_CASE("hf records: a StaticCache decode is read with its cache class and length", "[hf]") {
  WorkloadDataset d = parse_workload_dataset(hf_doc(), "h.json", load_runtime("hf-transformers"));
  REQUIRE(d.records.size() == 1);
  CHECK(d.records[0].run.cache_capacity == 528);
  CHECK(d.records[0].run.runtime.block.cache_update == CacheUpdate::StaticIndexCopy);
  CHECK(d.records[0].model.layers == 8);
  CHECK(d.records[0].category == "decode-graph");
  CHECK_FALSE(d.records[0].run.cache_cropped);  // a StaticCache is never cropped
  auto dyn = hf_doc();
  dyn["records"][0]["cache"] = "dynamic";
  dyn["records"][0].erase("max_cache_len");
  WorkloadDataset c = parse_workload_dataset(dyn, "h.json", load_runtime("hf-transformers"));
  CHECK(c.records[0].run.cache_cropped);  // measure_hf.py crops the DynamicCache each step
  // pytorch-eager has no cache class to take: the record runs as that runtime runs.
  WorkloadDataset p = parse_workload_dataset(hf_doc(), "h.json");
  CHECK(p.records[0].run.cache_capacity == 0);
}

TEST_CASE("hf records error: each field a prediction needs is required", "[hf][errors]") {
  for (const char* key : {"layers", "batch", "kv_len", "cache", "max_cache_len", "launch",
                          "device_median_ms", "phase", "model"}) {
    auto doc = hf_doc();
    doc["records"][0].erase(key);
    INFO(key);
    require_input_error(
        [&] { parse_workload_dataset(doc, "h.json", load_runtime("hf-transformers")); },
        {std::string("h.json: /records/0/") + key + ": missing"});
  }
}

TEST_CASE("hf records error: an unknown measured model", "[hf][errors]") {
  auto doc = hf_doc();
  doc["records"][0]["model"] = "hf-gpt5";
  require_input_error([&] { parse_workload_dataset(doc, "h.json"); },
                      {"h.json: /records/0/model: unknown measured model \"hf-gpt5\""});
}

TEST_CASE("hf records: Qwen1.5-MoE-A2.7B records read as qwen2_moe", "[hf]") {
  auto doc = hf_doc();
  doc["records"][0]["model"] = "hf-qwen2moe-a2.7b";
  doc["records"][0]["layers"] = 2;
  WorkloadDataset d = parse_workload_dataset(doc, "h.json");
  REQUIRE(d.records.size() == 1);
  const ModelConfig& m = d.records[0].model;
  CHECK(m.moe.experts == 60);
  CHECK(m.moe.top_k == 4);
  CHECK(m.moe.shared_intermediate == 5632);
  CHECK(m.layers == 2);
  CHECK(parameter_count(m) == 1763452928);  // what the measured records print as "params"
}

TEST_CASE("hf records: what cannot be predicted is skipped with its reason", "[hf]") {
  auto doc = hf_doc();
  doc["records"][0]["phase"] = "optimizer";
  WorkloadDataset d = parse_workload_dataset(doc, "h.json");
  CHECK(d.records.empty());
  REQUIRE(d.skipped.size() == 1);
  CHECK(d.skipped[0] == "d: an optimizer step alone is not a predicted workload");
}

TEST_CASE("cache class: --kv-cache-impl only with a runtime of transformers' caches",
          "[hf][errors]") {
  RuntimeProfile eager = load_runtime("pytorch-eager");
  require_input_error([&] { select_cache_impl(eager, "static", "--kv-cache-impl"); },
                      {"--kv-cache-impl: runtime pytorch-eager does not use transformers' cache"});
  RuntimeProfile hf = load_runtime("hf-transformers");
  select_cache_impl(hf, "static", "--kv-cache-impl");
  CHECK(hf.block.cache_update == CacheUpdate::StaticIndexCopy);
}

TEST_CASE("timeline: a host table's launches and lead time set an eager repeat", "[hf][timeline]") {
  ModelConfig m = load_model("llama-3-8b");
  RunConfig run;
  run.phase = Phase::Decode;
  run.kv_len = 512;
  run.blocks = 1;
  run.launch = LaunchMode::Eager;
  run.runtime = load_runtime("hf-transformers");
  OpGraph g = build_graph(m, run);
  const GraphSection& s = g.sections[0];
  size_t n = boost::num_vertices(s.dag());
  // Host-bound: a lead of 100 us and 10 us a launch against 1 us a kernel.
  SectionTimeline slow =
      schedule_section(s, 0, std::vector<double>(n, 1.0), 100, std::vector<double>(n, 10.0));
  CHECK(slow.host_end_us == Approx(100 + 10.0 * (double)n));
  CHECK(slow.repeat_us == slow.host_end_us);
  // GPU-bound: the device's time.
  SectionTimeline fast =
      schedule_section(s, 0, std::vector<double>(n, 50.0), 0, std::vector<double>(n, 1.0));
  CHECK(fast.repeat_us == fast.device_end_us);
  CHECK(fast.repeat_us > fast.host_end_us);
}

namespace {

int64_t block_nodes(const std::string& model, DType act) {
  ModelConfig m = load_model(model);
  RunConfig run;
  run.phase = Phase::Decode;
  run.kv_len = 16;
  run.blocks = 1;
  run.activations = act;
  run.kv_cache = act;  // transformers' cache holds K and V in their own dtype
  run.runtime = load_runtime("hf-transformers");
  return (int64_t)boost::num_vertices(build_graph(m, run).sections[0].dag());
}

}  // namespace

TEST_CASE("hf norm: eight kernels for an RMSNorm, six in fp32, one for a LayerNorm", "[hf]") {
  // Llama's block: 2 norms of 8, the rest 30; in fp32 the two casts of each norm launch nothing.
  CHECK(block_nodes("llama-3-8b", DType::Bf16) == 46 - 5 - 1);  // less split-K and lean reduce
  CHECK(block_nodes("llama-3-8b", DType::Fp32) == 46 - 5 - 1 - 4);
  RuntimeProfile eager = load_runtime("pytorch-eager");
  ModelConfig gpt2 = load_model("gpt2-xl");
  RunConfig run;
  run.phase = Phase::Decode;
  run.kv_len = 16;
  run.blocks = 1;
  run.runtime = load_runtime("hf-transformers");
  OpGraph g = build_graph(gpt2, run);
  int norms = 0;
  for (OpVertex v = 0; v < boost::num_vertices(g.sections[0].dag()); ++v) {
    const GraphNode& n = g.sections[0].dag()[v];
    if (n.role.kind == RoleKind::Norm) {
      ++norms;
      CHECK(std::holds_alternative<RowOp>(n.op.shape));  // nn.LayerNorm: ATen's one kernel
    }
  }
  CHECK(norms == 2);
}

TEST_CASE("memory: a StaticCache holds its whole length from the start", "[hf][memory]") {
  ModelConfig m = load_model("llama-3-8b");
  RunConfig run;
  run.phase = Phase::Decode;
  run.kv_len = 1023;  // 1024 positions
  run.runtime = load_runtime("hf-transformers");
  select_cache_impl(run.runtime, "static", "cache");
  const GpuSpec& g = test::h100();
  double exact = memory_footprint(build_graph(m, run), m, run, g).kv_cache_bytes;
  run.cache_capacity = 2048;
  double longer = memory_footprint(build_graph(m, run), m, run, g).kv_cache_bytes;
  CHECK(longer == Approx(2 * exact));
}

TEST_CASE("hf records as measured: each with the runtime it ran under", "[hf]") {
  auto doc = hf_doc();
  doc["records"].push_back(doc["records"][0]);
  doc["records"][1]["id"] = "c";
  doc["records"][1]["launch"] = "compile-ro";
  WorkloadDataset d = parse_workload_dataset_as_measured(doc, "h.json");
  REQUIRE(d.records.size() == 2);
  CHECK(d.records[0].run.runtime.name == "hf-transformers");
  CHECK(d.records[0].run.cache_capacity == 528);  // the record's StaticCache, as measured
  CHECK(d.records[1].run.runtime.name == "torch-compile");
  // Given one, every record takes it (a compiled record is then skipped with its reason).
  WorkloadDataset e = parse_workload_dataset(doc, "h.json", load_runtime("hf-transformers"));
  REQUIRE(e.records.size() == 1);
  CHECK(e.skipped.size() == 1);
}
