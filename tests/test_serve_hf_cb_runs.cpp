// Measured transformers continuous-batching runs (`validate-serving --data` on a
// measure_hf_cb.py file): how a record is read, and one test per message it can refuse with
// (serve/published.h, read_hf_cb_runs). The fuzzer found the first of these: a finished request
// without input_tokens used to escape as nlohmann's out_of_range.
#include "common/errors.h"
#include "serve/published.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace ridgeline;

namespace {

nlohmann::json cb_run() {
  return {
      {"kind", "cb_run"},
      {"id", "default/c4"},
      {"split", "holdout"},
      {"engine", "default"},
      {"requests",
       {{{"status", "FINISHED"}, {"arrival_ms", 5.0}, {"input_tokens", 128}, {"output_tokens", 64}},
        {{"status", "FINISHED"},
         {"arrival_ms", 2.0},
         {"input_tokens", 256},
         {"output_tokens", 8}}}},
      {"throughput", {{"output_tokens_per_s", 900.0}}},
      {"ttft", {{"p50_ms", 60.0}}},
      {"tpot", {{"p50_ms", 9.0}}}};
}

std::string write_records(const nlohmann::json& records, const std::string& name,
                          nlohmann::json meta = {{"device_name", "NVIDIA H200"}}) {
  std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << nlohmann::json{{"meta", meta}, {"records", records}}.dump();
  return path;
}

std::string error_of(const nlohmann::json& record, const std::string& name) {
  std::string path = write_records(nlohmann::json::array({record}), name);
  try {
    read_serving_data(path);
  } catch (const InputError& e) {
    return std::string(e.what()).substr(path.size());
  }
  return "no error";
}

}  // namespace

TEST_CASE("hf-cb runs: a finished run becomes a row with its trace in arrival order") {
  nlohmann::json skipped = {{"kind", "cb_run"}, {"id", "x"}, {"throughput", nullptr}};
  std::vector<PublishedRow> rows =
      read_serving_data(write_records(nlohmann::json::array({cb_run(), skipped}), "rl_cb_ok.json"));
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].split == "held_out");
  CHECK(rows[0].family == "hf-cb-default");
  REQUIRE(rows[0].trace.size() == 2);
  CHECK(rows[0].trace[0].input_tokens == 256);  // arrived first (2 ms), at time 0
  CHECK(rows[0].trace[0].arrival_s == 0);
  CHECK(rows[0].trace[1].arrival_s == Approx(0.003));
  CHECK(rows[0].measured.at("tpot_p50_ms") == 9.0);
}

TEST_CASE("hf-cb runs: the GPU from meta.device_name, the model from meta.model_config") {
  nlohmann::json meta = {{"device_name", "NVIDIA H100 80GB HBM3"},
                         {"model_config",
                          {{"model_type", "qwen3_moe"},
                           {"hidden_size", 2048},
                           {"num_attention_heads", 32},
                           {"num_key_value_heads", 4},
                           {"head_dim", 128},
                           {"intermediate_size", 6144},
                           {"moe_intermediate_size", 768},
                           {"num_experts", 128},
                           {"num_experts_per_tok", 8},
                           {"norm_topk_prob", true},
                           {"num_hidden_layers", 2},
                           {"vocab_size", 151936},
                           {"hidden_act", "silu"},
                           {"max_position_embeddings", 40960}}}};
  std::string path = write_records(nlohmann::json::array({cb_run()}), "rl_cb_moe.json", meta);
  std::vector<PublishedRow> rows = read_serving_data(path);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].gpu == "h100-sxm");
  CHECK(rows[0].family == "hf-cb-default/qwen3_moe");
  CHECK(rows[0].model == path + "#/meta/model_config");
  CHECK(rows[0].model_text.find("qwen3_moe") != std::string::npos);
  // Its family runs the engine given for hf-cb-default.
  CHECK(engine_for_row({{"hf-cb-default", "x.json"}}, rows[0]) == "x.json");
  CHECK(engine_for_row({}, rows[0]) == "hf-cb");
  // The first file (no model_config) measured a Llama-3-8B shape on the H200.
  std::vector<PublishedRow> llama =
      read_serving_data(write_records(nlohmann::json::array({cb_run()}), "rl_cb_llama.json"));
  CHECK(llama[0].gpu == "h200-sxm");
  CHECK(llama[0].model == "llama-3-8b");
}

TEST_CASE("hf-cb runs: a GPU without a preset is refused") {
  std::string path = write_records(nlohmann::json::array({cb_run()}), "rl_cb_gpu.json",
                                   {{"device_name", "NVIDIA A10G"}});
  try {
    read_serving_data(path);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          path + ": /meta/device_name: \"NVIDIA A10G\" has no GPU preset here");
  }
}

TEST_CASE("hf-cb runs: a request without input_tokens names its path") {
  nlohmann::json r = cb_run();
  r["requests"][1].erase("input_tokens");
  CHECK(error_of(r, "rl_cb_e1.json") ==
        ": /records/0/requests/1/input_tokens: missing; expected an integer");
}

TEST_CASE("hf-cb runs: a request that did not finish is refused") {
  nlohmann::json r = cb_run();
  r["requests"][0]["status"] = "FAILED";
  CHECK(error_of(r, "rl_cb_e2.json") == ": /records/0/requests/0/status: a request did not finish");
}

TEST_CASE("hf-cb runs: a split other than fit or holdout is refused") {
  nlohmann::json r = cb_run();
  r["split"] = "train";
  CHECK(error_of(r, "rl_cb_e3.json").find("/records/0/split: expected one of") !=
        std::string::npos);
}

TEST_CASE("hf-cb runs: a run with no requests is refused") {
  nlohmann::json r = cb_run();
  r["requests"] = nlohmann::json::array();
  CHECK(error_of(r, "rl_cb_e4.json") == ": /records/0/requests: expected at least one request");
}

TEST_CASE("hf-cb runs: a measured figure that is not positive is refused") {
  nlohmann::json r = cb_run();
  r["ttft"]["p50_ms"] = -1;
  CHECK(error_of(r, "rl_cb_e5.json").find("/records/0/ttft/p50_ms: expected a positive number") !=
        std::string::npos);
}

TEST_CASE("hf-cb runs: a file with no finished run is refused") {
  nlohmann::json r = {{"kind", "cb_run"}, {"id", "x"}, {"throughput", nullptr}};
  CHECK(error_of(r, "rl_cb_e6.json") == ": no finished cb_run record");
}
