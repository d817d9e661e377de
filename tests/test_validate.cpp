// Validation: data-set loading keeps its split and leaves out what cannot be compared, and the
// scorecard's statistics are right.
#include "test_helpers.h"
#include "validate/dataset.h"
#include "validate/scorecard.h"

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

nlohmann::json sample() {
  return nlohmann::json::parse(R"({
    "meta": {"device": "test"},
    "records": [
      {"id": "g1", "op": "gemm", "m": 4096, "n": 4096, "k": 4096, "dtype": "bf16", "split": "fit", "measured_us": 180.0, "kernels": ["x"], "kernels_per_call": 1},
      {"id": "g2", "op": "gemm", "m": 8192, "n": 8192, "k": 8192, "dtype": "bf16", "split": "holdout", "measured_us": 1400.0, "kernels": ["x"], "kernels_per_call": 1},
      {"id": "n1", "op": "rmsnorm", "rows": 4096, "cols": 4096, "dtype": "bf16", "split": "holdout", "measured_us": 30.0, "kernels": ["a", "b", "c", "d"], "kernels_per_call": 4, "alt_measured_us": 25.0, "alt_impl": "triton"},
      {"id": "n2", "op": "rmsnorm", "rows": 4096, "cols": 4096, "dtype": "bf16", "split": "holdout", "measured_us": 30.0, "kernels": ["a", "b", "c", "d"], "kernels_per_call": 4},
      {"id": "bad", "op": "gemm", "m": 1, "n": 1, "k": 1, "dtype": "bf16", "split": "fit", "error": "OOM"}
    ]})");
}

}  // namespace

TEST_CASE("dataset: records keep their split, failed and multi-kernel records are listed",
          "[validate]") {
  Dataset d = parse_dataset(sample(), "sample.json");
  REQUIRE(d.records.size() == 3);
  CHECK(d.records[0].split == "fit");
  CHECK(d.records[2].measured_us == 25.0);
  CHECK(d.records[2].impl == "triton");
  REQUIRE(d.skipped.size() == 2);
  CHECK(d.skipped[0].find("n2: ran as 4 kernels") != std::string::npos);
  CHECK(d.skipped[1].find("bad: failed") != std::string::npos);
}

TEST_CASE("dataset error: a record without a split", "[validate][errors]") {
  auto doc = sample();
  doc["records"][0].erase("split");
  require_input_error([&] { parse_dataset(doc, "s.json"); },
                      {"s.json: /records/0/split: expected \"fit\" or \"holdout\""});
}

TEST_CASE("dataset error: a non-positive measurement", "[validate][errors]") {
  auto doc = sample();
  doc["records"][1]["measured_us"] = 0;
  require_input_error([&] { parse_dataset(doc, "s.json"); },
                      {"s.json: /records/1/measured_us: expected a positive number"});
}

TEST_CASE("dataset error: a bad op inside a record", "[validate][errors]") {
  auto doc = sample();
  doc["records"][0]["m"] = -1;
  require_input_error([&] { parse_dataset(doc, "s.json"); },
                      {"s.json: /records/0: /m: expected an integer >= 1"});
}

TEST_CASE("dataset error: no records", "[validate][errors]") {
  require_input_error([] { parse_dataset(nlohmann::json::object(), "s.json"); },
                      {"s.json: /records: missing"});
}

TEST_CASE("error statistics", "[validate]") {
  ErrorStats s = error_stats({0.1, -0.2, 0.3, -0.4});
  CHECK(s.count == 4);
  CHECK(s.mape == Approx(0.25));
  CHECK(s.median == Approx(0.25));
  CHECK(s.worst == Approx(0.4));
  CHECK(s.p90 == Approx(0.37));
  ErrorStats exact = error_stats({0, 0});
  CHECK(exact.bias == Approx(1.0));
}

TEST_CASE("scorecard: the holdout split never includes fit cases", "[validate]") {
  Dataset d = parse_dataset(sample(), "sample.json");
  Scorecard hold = score(d, test::h100(), "holdout");
  CHECK(hold.cases.size() == 2);
  for (const auto& c : hold.cases) CHECK(c.split == "holdout");
  Scorecard all = score(d, test::h100(), "all");
  CHECK(all.cases.size() == 3);
  CHECK(all.families.back().family == "all");
  CHECK(all.families.back().model.count == 3);
}

TEST_CASE("dataset: row ops are compared with their single-pass kernel", "[validate]") {
  auto doc = nlohmann::json::parse(R"({"meta": {"l2_cache_bytes": 52428800}, "records": [
    {"id": "ln-torch", "op": "layernorm", "rows": 64, "cols": 4096, "dtype": "bf16", "split": "fit", "measured_us": 8.0,
     "kernels": ["k"], "kernels_per_call": 1},
    {"id": "ln-both", "op": "layernorm", "rows": 64, "cols": 4096, "dtype": "bf16", "split": "fit", "measured_us": 8.0,
     "kernels": ["k"], "kernels_per_call": 1, "alt_impl": "triton_layernorm", "alt_measured_us": 3.0},
    {"id": "tiny", "op": "elementwise", "kind": "copy", "numel": 4096, "dtype": "bf16", "split": "fit", "measured_us": 1.2,
     "kernels": ["k"], "kernels_per_call": 1, "rotation_bytes": 4194304},
    {"id": "big", "op": "elementwise", "kind": "copy", "numel": 67108864, "dtype": "bf16", "split": "fit", "measured_us": 90,
     "kernels": ["k"], "kernels_per_call": 1, "rotation_bytes": 268435456}]})");
  Dataset d = parse_dataset(doc, "s.json");
  REQUIRE(d.records.size() == 3);
  CHECK(d.records[0].op.id == "ln-both");
  CHECK(d.records[0].measured_us == 3.0);
  CHECK(d.skipped[0].find("ln-torch: only PyTorch's multi-pass layernorm") != std::string::npos);
  CHECK(d.records[1].op.warm_l2);  // its rotated inputs fit in L2: measured warm
  CHECK(d.records[1].op.l2_working_set_bytes == 4194304);  // ... all of them, not one set
  CHECK(!d.records[2].op.warm_l2);                         // rotated through 5x L2: cold
}

TEST_CASE("dataset: ridgeline-gpu-bench files load their kernel points", "[validate]") {
  Dataset d = load_dataset(std::string(RIDGELINE_SOURCE_DIR) +
                           "/validate/data/h100-sxm-gpubench-2026-11-29.json");
  int gemms = 0;
  for (const auto& m : d.records) gemms += std::string(op_family(m.op)) == "gemm";
  CHECK(gemms >= 80);
  CHECK(d.meta.value("device_name", "") == "NVIDIA H100 80GB HBM3");
  bool raw_left_out = false;
  for (const auto& s : d.skipped)
    raw_left_out |= s.find("a raw microbenchmark") != std::string::npos;
  CHECK(raw_left_out);
}

TEST_CASE("dataset: PyTorch's causal chunked attention (top-left mask) is left out",
          "[validate][dataset]") {
  auto causal_attention = [](const char* id, int q_len, double us) {
    return nlohmann::json{{"id", id},         {"op", "attention"},    {"batch", 1},
                          {"heads", 32},      {"kv_heads", 8},        {"head_dim", 128},
                          {"q_len", q_len},   {"kv_len", 4096},       {"causal", true},
                          {"dtype", "bf16"},  {"split", "fit"},       {"measured_us", us},
                          {"kernels", {"k"}}, {"kernels_per_call", 1}};
  };
  nlohmann::json bottom_right = causal_attention("chunk-bottom-right", 128, 60.0);
  bottom_right["mask"] = "bottom_right";
  nlohmann::json doc = {{"meta", nlohmann::json::object()},
                        {"records",
                         {causal_attention("chunk-causal", 128, 10.8), bottom_right,
                          causal_attention("prefill-causal", 4096, 400.0)}}};
  Dataset d = parse_dataset(doc, "t.json");
  REQUIRE(d.records.size() == 2);
  CHECK(d.records[0].op.id == "chunk-bottom-right");
  REQUIRE(d.skipped.size() == 1);
  CHECK(d.skipped[0].rfind("chunk-causal: PyTorch's is_causal masks top-left", 0) == 0);
}
