// Rules of the small machinery each part of ridgeline shares once: the JSON-path walker, preset
// lookup among the embedded files, enum name tables, view sets and the fit knobs that come from
// the GPU description's field list.
#include "calibrate/fit/fit.h"
#include "cli/views/report_views.h"
#include "common/json_path.h"
#include "common/presets.h"
#include "test_helpers.h"
#include "workloads/op.h"
#include "workloads/op_parse.h"

#include <sstream>

using namespace ridgeline;
using ridgeline::test::require_input_error;

TEST_CASE("json path: splits at the separators asked for, keeping empty keys", "[twins]") {
  CHECK(split_json_path("memory.hbm/bandwidth_GBps", "./") ==
        std::vector<std::string>{"memory", "hbm", "bandwidth_GBps"});
  CHECK(split_json_path("memory.hbm", "/") == std::vector<std::string>{"memory.hbm"});
  CHECK(split_json_path("a//b", "/") == std::vector<std::string>{"a", "", "b"});
}

TEST_CASE("json path: walks objects and array indices, stops at the first missing key", "[twins]") {
  auto doc = nlohmann::json::parse(R"({"gemm": {"tiles": [{"e": 1}, {"e": 2}]}})");
  JsonWalk ok = walk_json_path(doc, {"gemm", "tiles", "1", "e"});
  REQUIRE(ok.node != nullptr);
  CHECK(*ok.node == 2);
  JsonWalk past_end = walk_json_path(doc, {"gemm", "tiles", "2", "e"});
  CHECK(past_end.node == nullptr);
  CHECK(past_end.walked == "/gemm/tiles/2");
  CHECK(walk_json_path(doc, {"gemm", "tiles", "000000001", "e"}).node == nullptr);  // 9 digits
  CHECK(walk_json_path(doc, {"gemm", "tiles", "00000001", "e"}).node != nullptr);   // 8 digits
  CHECK(walk_json_path(doc, {"gemm", "tile"}).walked == "/gemm/tile");
}

TEST_CASE("presets: found by folder and name, listed sorted, a path is not a name", "[twins]") {
  REQUIRE(find_preset("hardware/gpus/", "h100-sxm") != nullptr);
  CHECK(find_preset("hardware/gpus/", "h100-sxm")->path == "hardware/gpus/h100-sxm.json");
  CHECK(find_preset("hardware/gpus/", "h300-sxm") == nullptr);
  CHECK(find_preset("workloads/models/", "h100-sxm") == nullptr);  // another folder's name
  auto names = preset_names("hardware/profiles/");
  CHECK(names == std::vector<std::string>{"h100-sxm", "h200-sxm"});
  CHECK(looks_like_path("a/b"));
  CHECK(looks_like_path("x.json"));
  CHECK_FALSE(looks_like_path(".json"));  // no stem: a (bad) name
  CHECK_FALSE(looks_like_path("llama-3-8b"));
  CHECK(joined_names({"a", "b"}) == "a, b");
}

TEST_CASE("name tables: every name parses back to its value, inputs may leave some out",
          "[twins]") {
  for (const auto& n : elementwise_kinds().names())
    CHECK(elementwise_kind_name(*elementwise_kinds().parse(n)) == n);
  CHECK(elementwise_kinds().names({ElementwiseKind::AdamW}).size() + 1 ==
        elementwise_kinds().names().size());
  CHECK_FALSE(elementwise_kinds().parse("gelu_tanh"));
  CHECK(parse_dtype("bf16") == DType::Bf16);
  CHECK_FALSE(parse_dtype("bfloat16"));
  require_input_error(
      [] {
        parse_op(nlohmann::json::parse(R"({"op":"elementwise","kind":"cat",
      "numel":8,"dtype":"bf16"})"),
                 "t", "x");
      },
      {"t: /kind: expected one of copy, add, mul, mul_scalar, gelu, silu, "
       "silu_mul, relu2, adamw; got \"cat\""});
}

TEST_CASE("view sets: the formats a command accepts are the views it has", "[twins]") {
  CHECK(op_views().names() == std::vector<std::string>{"table", "json", "jsonl", "csv"});
  CHECK(gpu_show_views().names() == std::vector<std::string>{"table", "json"});
  CHECK(scorecard_views().names() == std::vector<std::string>{"table", "json", "markdown"});
  require_input_error([] { op_views().pick("yaml", "--format"); },
                      {"--format yaml: no such format; choose table, json, jsonl, csv"});
  std::ostringstream os;
  gpu_show_views().pick("json", "--format")(os, test::h100());
  CHECK(os.str().find("\"compute/sm_count\"") != std::string::npos);
}

TEST_CASE("fit knobs: each fitted field is a field of the description, set through it", "[twins]") {
  GpuSpec g = test::h100();
  for (const auto& k : default_knobs(g)) {
    INFO(k.path);
    if (k.path == "model/gemm/tiles") continue;  // a scale over the tile table
    REQUIRE(find_field(g, k.path) != nullptr);
    double v = (k.lo + k.hi) / 2;
    k.set(g, v);
    if (k.path == "model/memory/l2_knee_end_fraction")
      CHECK(k.get(g) >= v);  // it stays past the knee's start
    else
      CHECK(k.get(g) == v);
    CHECK(find_field(g, k.path)->value == k.get(g));
  }
  GpuSpec h = test::h100();
  for (auto& k : default_knobs(h))
    if (k.path == "model/gemm/align8_efficiency") k.set(h, 0.3);
  CHECK(h.model.gemm.align4_efficiency.value == 0.3);  // tied: one fallback kernel
}
