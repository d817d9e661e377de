// Published serving rows that state how their benchmark ran ("server": the deployment's engine
// settings, "client": the benchmark client's request counts): how they are read, applied and
// refused (serve/published.h).
#include "common/errors.h"
#include "serve/published.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace ridgeline;

namespace {

nlohmann::json closed_loop_row(const std::string& engine) {
  return {{"id", "t#1"},
          {"split", "fit"},
          {"source_id", "aiconfigurator-silicon-sample"},
          {"row", nlohmann::json::object()},
          {"ridgeline",
           {{"gpu", "h200-sxm"},
            {"model", "llama-3.1-8b"},
            {"precision", "fp8"},
            {"engine", engine},
            {"input_len", 100},
            {"output_len", 10},
            {"concurrency", 2}}},
          {"measured", {{"ttft_ms", 10.0}, {"tpot_ms", 5.0}}}};
}

nlohmann::json server() {
  return {{"max_num_seqs", 2},
          {"max_prefill_tokens", 1600},
          {"mixed_chunk", true},
          {"source", "generator rule"}};
}

nlohmann::json client() {
  return {{"tool", "genai-perf"}, {"requests", 20}, {"warmup_requests", 4}, {"source", "runner"}};
}

std::string write_doc(const nlohmann::json& row, const std::string& name) {
  nlohmann::json doc = {{"description", "test"},
                        {"split_rule", "test"},
                        {"metric_notes", nlohmann::json::object()},
                        {"sources", nlohmann::json::object()},
                        {"rows", nlohmann::json::array({row})}};
  std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << doc.dump();
  return path;
}

}  // namespace

TEST_CASE("published rows: a closed loop's server and client settings are read and applied") {
  nlohmann::json row = closed_loop_row("sglang");
  row["ridgeline"]["server"] = server();
  row["ridgeline"]["client"] = client();
  std::vector<PublishedRow> rows = read_published_serving(write_doc(row, "rl_pub_ok.json"));
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].server.has_value());
  CHECK(rows[0].server->max_num_seqs == 2);
  CHECK(rows[0].server->max_prefill_tokens == 1600);
  CHECK(rows[0].server->max_num_batched_tokens == 0);
  CHECK(rows[0].server->mixed_chunk == std::optional<bool>(true));
  REQUIRE(rows[0].client.has_value());
  CHECK(rows[0].client->requests == 20);
  CHECK(rows[0].client->warmup_requests == 4);
  PublishedScorecard card = score_published(rows, "all", {});
  REQUIRE(card.rows.size() == 1);
  CHECK(card.rows[0].failure.empty());
  CHECK(card.failed == 0);
  // Without them the same row runs the preset's settings and the default closed loop: other TTFT.
  nlohmann::json plain = closed_loop_row("sglang");
  std::vector<PublishedRow> other = read_published_serving(write_doc(plain, "rl_pub_plain.json"));
  PublishedScorecard base = score_published(other, "all", {});
  CHECK(base.rows[0].predicted.at("ttft_ms") != card.rows[0].predicted.at("ttft_ms"));
}

TEST_CASE("published rows: server and client apply to closed-loop rows only") {
  for (const char* key : {"server", "client"}) {
    nlohmann::json row = closed_loop_row("sglang");
    row["ridgeline"].erase("concurrency");
    row["ridgeline"]["rate"] = "inf";
    row["ridgeline"]["requests"] = 10;
    row["ridgeline"][key] = std::string(key) == "server" ? server() : client();
    CHECK_THROWS_WITH(
        read_published_serving(write_doc(row, "rl_pub_open.json")),
        Catch::Contains(std::string(key) + ": applies to a closed-loop row (concurrency) only"));
  }
}

TEST_CASE("published rows: a client names its tool and every setting its source") {
  nlohmann::json row = closed_loop_row("sglang");
  row["ridgeline"]["client"] = client();
  row["ridgeline"]["client"]["tool"] = "aiperf";
  CHECK_THROWS_WITH(read_published_serving(write_doc(row, "rl_pub_tool.json")),
                    Catch::Contains("tool") && Catch::Contains("genai-perf"));
  nlohmann::json unsourced = closed_loop_row("sglang");
  unsourced["ridgeline"]["server"] = server();
  unsourced["ridgeline"]["server"].erase("source");
  CHECK_THROWS_WITH(read_published_serving(write_doc(unsourced, "rl_pub_src.json")),
                    Catch::Contains("source"));
}

TEST_CASE("published rows: mixed_chunk on an engine that is not sglang fails the row") {
  nlohmann::json row = closed_loop_row("trtllm");
  row["ridgeline"]["server"] = server();
  std::vector<PublishedRow> rows = read_published_serving(write_doc(row, "rl_pub_mixed.json"));
  PublishedScorecard card = score_published(rows, "all", {});
  REQUIRE(card.rows.size() == 1);
  CHECK(card.failed == 1);
  CHECK_THAT(card.rows[0].failure,
             Catch::Contains("t#1: server.mixed_chunk: applies to an sglang engine only "
                             "(trtllm runs trtllm)"));
}

TEST_CASE("published rows: a pipeline-parallel row runs its stages, pp needs tp beside it") {
  nlohmann::json row = closed_loop_row("vllm");
  row["ridgeline"]["model"] = "llama-3-70b";
  row["ridgeline"]["cluster"] = "hgx-h200";
  row["ridgeline"]["tp"] = 2;
  row["ridgeline"]["pp"] = 2;
  std::vector<PublishedRow> rows = read_published_serving(write_doc(row, "rl_pub_pp.json"));
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].pp == 2);
  CHECK(rows[0].family == "aiconfigurator-silicon-sample/vllm/tp2/pp2");
  PublishedScorecard card = score_published(rows, "all", {});
  REQUIRE(card.rows.size() == 1);
  CHECK(card.rows[0].failure.empty());
  nlohmann::json one = row;
  one["ridgeline"].erase("pp");  // the same row on one stage of 2 GPUs: a token sooner
  PublishedScorecard flat =
      score_published(read_published_serving(write_doc(one, "rl_pub_pp1.json")), "all", {});
  CHECK(flat.rows[0].predicted.at("tpot_ms") < card.rows[0].predicted.at("tpot_ms"));
  nlohmann::json bare = closed_loop_row("vllm");
  bare["ridgeline"]["pp"] = 2;
  CHECK_THROWS_WITH(read_published_serving(write_doc(bare, "rl_pub_pp_bare.json")),
                    Catch::Contains("pp") && Catch::Contains("needs tp and cluster beside it"));
}
