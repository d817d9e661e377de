// Llama 3.1 / 3.3 presets (128k context, llama3 RoPE scaling, published parameter counts within
// 0.5%), the rope_scaling rules (both sides of each check, one test per error message), Hugging
// Face folders and hub snapshots as --model, and where each figure of a config came from.
#include "test_helpers.h"
#include "workloads/model_config.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace ridgeline;
using ridgeline::test::require_input_error;
namespace fs = std::filesystem;

namespace {

nlohmann::json llama31() {
  return nlohmann::json::parse(R"({
    "model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 2,
    "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 4096,
    "vocab_size": 1000, "max_position_embeddings": 131072, "hidden_act": "silu",
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"}})");
}

ModelConfig load(const nlohmann::json& j) {
  return load_model_text(j.dump(), "test.json");
}

void expect_error(const nlohmann::json& j, std::initializer_list<std::string> parts) {
  require_input_error([&] { load(j); }, parts);
}

// A fresh, empty folder under the system's temporary directory, removed at scope exit.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / name) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& file, const nlohmann::json& j) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << j.dump();
}

std::string source_of(const ModelConfig& m, const std::string& figure) {
  for (const auto& f : model_figures(m)) {
    if (f.name == figure) return f.source;
  }
  return "(no such figure)";
}

}  // namespace

TEST_CASE("Llama 3.1 and 3.3 presets: 128k context, llama3 RoPE, published sizes", "[model]") {
  struct Published {
    const char* name;
    double billions;
  };
  for (auto p : {Published{"llama-3.1-8b", 8.03}, Published{"llama-3.1-70b", 70.6},
                 Published{"llama-3.1-405b", 405.9}, Published{"llama-3.3-70b", 70.6}}) {
    INFO(p.name);
    ModelConfig m = load_model(p.name);
    CHECK(m.max_positions == 131072);
    CHECK(m.rope_scaling.type == "llama3");
    CHECK(m.rope_scaling.factor == 8.0);
    CHECK(m.rope_scaling.original_max_positions == 8192);
    CHECK(m.kv_heads == 8);
    CHECK(m.head_dim == 128);
    CHECK(m.provenance.find("huggingface.co/meta-llama/") != std::string::npos);
    double billions = parameter_count(m) / 1e9;
    INFO("counted " << billions << "B, published " << p.billions << "B");
    CHECK(std::fabs(billions / p.billions - 1) < 0.005);
    CHECK(active_parameter_count(m) == parameter_count(m));  // dense
  }
  // The Llama 3 presets stay as published: 8k context, no scaling.
  ModelConfig l3 = load_model("llama-3-8b");
  CHECK(l3.max_positions == 8192);
  CHECK(l3.rope_scaling.type.empty());
}

TEST_CASE("rope_scaling null is plain RoPE, llama3 is read and checked", "[model]") {
  nlohmann::json j = llama31();
  ModelConfig m = load(j);
  CHECK(m.rope_scaling.low_freq_factor == 1.0);
  CHECK(m.rope_scaling.high_freq_factor == 4.0);
  CHECK(source_of(m, "rope_scaling") == "rope_scaling (RoPE's frequencies, not the kernels)");
  j["rope_scaling"] = nullptr;
  CHECK(load(j).rope_scaling.type.empty());
  j.erase("rope_scaling");
  CHECK(load(j).rope_scaling.type.empty());
  // The pre-4.43 spelling "type".
  j = llama31();
  j["rope_scaling"].erase("rope_type");
  j["rope_scaling"]["type"] = "llama3";
  CHECK(load(j).rope_scaling.type == "llama3");
  // Limits, allowed side: factor 1, original context equal to the context.
  j = llama31();
  j["rope_scaling"]["factor"] = 1.0;
  j["rope_scaling"]["original_max_position_embeddings"] = 131072;
  CHECK(load(j).rope_scaling.factor == 1.0);
  // It changes the angles, not the kernels: the same parameters with or without it.
  nlohmann::json plain = llama31();
  plain["rope_scaling"] = nullptr;
  CHECK(parameter_count(load(plain)) == parameter_count(load(llama31())));
}

TEST_CASE("model error: unsupported rope_scaling type", "[model][errors]") {
  nlohmann::json j = llama31();
  j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
  expect_error(j, {"test.json: /rope_scaling/rope_type: unsupported RoPE scaling \"yarn\""});
}
TEST_CASE("model error: rope_scaling without its type", "[model][errors]") {
  nlohmann::json j = llama31();
  j["rope_scaling"].erase("rope_type");
  expect_error(j, {"test.json: /rope_scaling/rope_type: missing"});
}
TEST_CASE("model error: rope_scaling type and rope_type disagree", "[model][errors]") {
  nlohmann::json j = llama31();
  j["rope_scaling"]["type"] = "linear";
  expect_error(j, {"/rope_scaling/type: \"linear\" disagrees with rope_type \"llama3\""});
}
TEST_CASE("model error: rope_scaling factor below 1", "[model][errors]") {
  nlohmann::json j = llama31();
  j["rope_scaling"]["factor"] = 0.5;
  expect_error(j, {"/rope_scaling/factor: must be at least 1"});
}
TEST_CASE("model error: rope_scaling high_freq_factor not above low_freq_factor",
          "[model][errors]") {
  nlohmann::json j = llama31();
  j["rope_scaling"]["high_freq_factor"] = 1.0;
  expect_error(j, {"/rope_scaling/high_freq_factor: must be larger than low_freq_factor"});
}
TEST_CASE("model error: rope_scaling original context beyond the context", "[model][errors]") {
  nlohmann::json j = llama31();
  j["rope_scaling"]["original_max_position_embeddings"] = 131073;
  expect_error(j, {"/rope_scaling/original_max_position_embeddings: 131073 is more than "
                   "max_position_embeddings (131072)"});
}
TEST_CASE("model error: rope_scaling missing a field", "[model][errors]") {
  nlohmann::json j = llama31();
  j["rope_scaling"].erase("low_freq_factor");
  expect_error(j, {"/rope_scaling/low_freq_factor"});
}
TEST_CASE("model error: rope_scaling unknown field", "[model][errors]") {
  nlohmann::json j = llama31();
  j["rope_scaling"]["mscale"] = 1.0;
  expect_error(j, {"/rope_scaling/mscale: unknown key"});
}

TEST_CASE("a folder holding config.json is a model, a hub snapshot is named after its repo",
          "[model]") {
  TempDir tmp("ridgeline-test-hf-folders");
  fs::path snapshot = tmp.path / "hub/models--meta-llama--Llama-3.1-8B/snapshots/0123abcd";
  write(snapshot / "config.json", llama31());
  ModelConfig m = load_model(snapshot.string());
  CHECK(m.name == "Llama-3.1-8B");
  CHECK(m.source == snapshot.string() + "/config.json");
  CHECK(load_model(snapshot.string() + "/").name == "Llama-3.1-8B");
  CHECK(load_model((snapshot / "config.json").string()).name == "Llama-3.1-8B");
  // A plain download folder is named after itself.
  fs::path plain = tmp.path / "my-llama";
  write(plain / "config.json", llama31());
  CHECK(load_model(plain.string()).name == "my-llama");
  // "snapshots" without the hub's models-- folder above it is a plain folder.
  fs::path other = tmp.path / "x/snapshots/v1";
  write(other / "config.json", llama31());
  CHECK(load_model(other.string()).name == "v1");
}

TEST_CASE("model error: a folder without config.json", "[model][errors]") {
  TempDir tmp("ridgeline-test-hf-empty");
  require_input_error([&] { load_model(tmp.path.string()); },
                      {"--model " + tmp.path.string() + ": this folder holds no config.json"});
}

TEST_CASE("each figure says where it came from: the key, or the default applied", "[model]") {
  nlohmann::json j = llama31();
  ModelConfig m = load(j);
  CHECK(source_of(m, "hidden") == "hidden_size");
  CHECK(source_of(m, "head_dim") == "hidden_size / num_attention_heads (head_dim not given)");
  CHECK(source_of(m, "kv_heads") == "num_key_value_heads");
  j["head_dim"] = 128;
  j.erase("num_key_value_heads");
  m = load(j);
  CHECK(source_of(m, "head_dim") == "head_dim");
  CHECK(source_of(m, "kv_heads").find("num_key_value_heads not given") != std::string::npos);
  ModelConfig mixtral = load_model("mixtral-8x7b");
  CHECK(source_of(mixtral, "experts") == "num_local_experts");
  CHECK(source_of(mixtral, "top_k") == "num_experts_per_tok");
  ModelConfig xl = load_model("gpt2-xl");
  CHECK(source_of(xl, "intermediate") == "4 * n_embd (n_inner not given)");
  CHECK(source_of(xl, "norm") == "fixed by model_type gpt2");
}

TEST_CASE("rope_parameters (transformers 4.56+) gets the same check, default is plain RoPE",
          "[model]") {
  nlohmann::json j = llama31();
  nlohmann::json params = j["rope_scaling"];
  params["rope_theta"] = 500000.0;
  j.erase("rope_scaling");
  j["rope_parameters"] = params;
  ModelConfig m = load(j);
  CHECK(m.rope_scaling.type == "llama3");
  CHECK(source_of(m, "rope_factor") == "rope_parameters/factor");
  j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 10000.0}};
  CHECK(load(j).rope_scaling.type.empty());
  // Both, agreeing: accepted.
  j = llama31();
  j["rope_parameters"] = params;
  CHECK(load(j).rope_scaling.factor == 8.0);
}
TEST_CASE("model error: unsupported rope_parameters type", "[model][errors]") {
  nlohmann::json j = llama31();
  j.erase("rope_scaling");
  j["rope_parameters"] = {{"rope_type", "yarn"}, {"factor", 4.0}, {"rope_theta", 1e6}};
  expect_error(j, {"test.json: /rope_parameters/rope_type: unsupported RoPE scaling \"yarn\""});
}
TEST_CASE("model error: rope_parameters disagreeing with rope_scaling", "[model][errors]") {
  nlohmann::json j = llama31();
  j["rope_parameters"] = j["rope_scaling"];
  j["rope_parameters"]["factor"] = 32.0;
  expect_error(j, {"test.json: /rope_parameters: disagrees with rope_scaling"});
}
