// Rules of the strict JSON reader: each failure names the file and JSON path.
#include "common/json_reader.h"
#include "test_helpers.h"

using namespace ridgeline;
using ridgeline::test::require_input_error;

TEST_CASE("reader: a misspelt key is an error, never a default", "[json]") {
  auto doc = nlohmann::json::parse(R"({"memory": {"hbm": {"bandwith_GBps": 3350}}})");
  JsonReader r(doc, "x.json");
  r.child("memory").child("hbm");
  require_input_error([&] { r.finish(); }, {"x.json: /memory/hbm/bandwith_GBps: unknown key"});
}

TEST_CASE("reader: wrong type names path and value", "[json]") {
  auto doc = nlohmann::json::parse(R"({"memory": {"hbm": {"bandwidth_GBps": "fast"}}})");
  JsonReader r(doc, "h100.json");
  require_input_error(
      [&] { r.descend("memory/hbm").positive("bandwidth_GBps"); },
      {"h100.json: /memory/hbm/bandwidth_GBps: expected a positive number, got \"fast\""});
}

TEST_CASE("reader: missing key", "[json]") {
  auto doc = nlohmann::json::parse(R"({})");
  JsonReader r(doc, "f.json");
  require_input_error([&] { r.integer("m", 1); }, {"f.json: /m: missing; expected an integer"});
}

TEST_CASE("reader: integer bounds on both sides", "[json]") {
  auto doc = nlohmann::json::parse(R"({"a": 1, "b": 0, "c": 2.5, "d": 3.0})");
  JsonReader r(doc, "f.json");
  CHECK(r.integer("a", 1) == 1);
  require_input_error([&] { r.integer("b", 1); }, {"/b: expected an integer >= 1, got 0"});
  require_input_error([&] { r.integer("c", 1); }, {"/c: expected an integer, got 2.5"});
  CHECK(r.integer("d", 1) == 3);
}

TEST_CASE("reader: fraction accepts values above 0 up to 1", "[json]") {
  auto doc = nlohmann::json::parse(R"({"one": 1.0, "zero": 0, "big": 1.01})");
  JsonReader r(doc, "f.json");
  CHECK(r.fraction("one") == 1.0);
  require_input_error([&] { r.fraction("zero"); }, {"/zero: expected a fraction in (0, 1]"});
  require_input_error([&] { r.fraction("big"); }, {"/big: expected a fraction in (0, 1]"});
}

TEST_CASE("reader: one_of lists the choices", "[json]") {
  auto doc = nlohmann::json::parse(R"({"op": "gem"})");
  JsonReader r(doc, "ops.jsonl line 2");
  require_input_error(
      [&] {
        r.one_of("op", {"gemm", "attention"});
      },
      {"ops.jsonl line 2: /op: expected one of gemm, attention; got \"gem\""});
}

TEST_CASE("reader: invalid JSON text names the file", "[json]") {
  require_input_error([] { parse_json_text("{\"a\": ", "bad.json"); }, {"bad.json: invalid JSON"});
  require_input_error([] { read_json_file("/nonexistent/x.json"); },
                      {"/nonexistent/x.json: cannot open file"});
}

TEST_CASE("json error: a number too large for a double (found by fuzz_op)", "[json][errors]") {
  ridgeline::test::require_input_error(
      [] { ridgeline::parse_json_text("{\"m\": 1E33333}", "ops.jsonl line 1"); },
      {"ops.jsonl line 1", "invalid JSON: number overflow"});
}

TEST_CASE("string_or: the string or else the fallback and never an exception", "[json]") {
  nlohmann::json doc = {{"gpu", "h200-sxm"}, {"tool", 5}, {"meta", nullptr}};
  CHECK(ridgeline::string_or(doc, "gpu") == "h200-sxm");
  CHECK(ridgeline::string_or(doc, "tool", "?") == "?");          // not a string
  CHECK(ridgeline::string_or(doc, "missing", "?") == "?");       // missing
  CHECK(ridgeline::string_or(doc["meta"], "name", "?") == "?");  // not an object
  CHECK(ridgeline::string_or(nlohmann::json::array({1}), "gpu").empty());
}
