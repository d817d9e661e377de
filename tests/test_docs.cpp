// The reference pages cannot fall behind the parsers: every key the GPU parser and the
// config.json parser accept appears, in backticks, in docs/gpu-schema.md or
// docs/model-configs.md. (A key added to a parser without a line in its page fails here.)
#include "hardware/gpu_spec.h"
#include "workloads/hf_config.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace ridgeline;

namespace {

std::string read_doc(const std::string& name) {
  std::ifstream in(std::string(RIDGELINE_SOURCE_DIR) + "/docs/" + name);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool mentions(const std::string& doc, const std::string& key) {
  return doc.find("`" + key + "`") != std::string::npos;
}

// The text under the heading `## <title>`, up to the next `## ` heading ("" when absent).
std::string section(const std::string& doc, const std::string& title) {
  size_t start = doc.find("\n## " + title + "\n");
  if (start == std::string::npos) return "";
  size_t end = doc.find("\n## ", start + 1);
  return doc.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

TEST_CASE("docs/gpu-schema.md documents every key of the GPU schema", "[docs]") {
  std::string doc = read_doc("gpu-schema.md");
  GpuSpec g;
  visit_fields(g, [&](const char* path, Fact&, FieldRule) {
    INFO(path);
    CHECK(mentions(doc, path));
  });
  visit_model_fields(g.model, [&](const char* path, Fact&, FieldRule) {
    INFO(path);
    CHECK(mentions(doc, std::string("model/") + path));
  });
  for (const char* key :
       {"name", "full_name", "vendor", "architecture", "value", "source", "model",
        "compute/tensor_ops_per_clk_per_sm", "compute/vector_ops_per_clk_per_sm",
        "compute/stated_peak_tflops", "model/gemm/tiles", "shapes", "m", "n", "efficiency"}) {
    INFO(key);
    CHECK(mentions(doc, key));
  }
  for (MathUnit u : kAllMathUnits) {
    INFO(math_unit_key(u));
    CHECK(mentions(doc, math_unit_key(u)));
  }
  for (const char* kind :
       {"datasheet", "measured", "fitted", "published", "assumed", "derived", "what-if"}) {
    INFO(kind);
    CHECK(mentions(doc, std::string(kind) + ":"));
  }
}

TEST_CASE("docs/model-configs.md lists every config.json key read or ignored", "[docs]") {
  // Each family's keys in its own section ("## `llama`"), or in the one for every family.
  std::string doc = read_doc("model-configs.md");
  std::string common = section(doc, "Every family");
  REQUIRE(!common.empty());
  for (const auto& family : model_config_keys()) {
    INFO(family.model_type);
    std::string own = section(doc, "`" + family.model_type + "`");
    REQUIRE(!own.empty());
    for (const auto& key : family.read) {
      INFO("read: " << key);
      CHECK((mentions(own, key) || mentions(common, key)));
    }
    for (const auto& key : family.ignored) {
      INFO("ignored: " << key);
      CHECK((mentions(own, key) || mentions(common, key)));
    }
  }
  std::string rope = section(doc, "`rope_scaling`");
  for (const auto& key : rope_scaling_keys()) {
    INFO("rope_scaling: " << key);
    CHECK(mentions(rope, key));
  }
}
