// Helpers shared by the families tests (test_families.cpp, test_families_errors.cpp): a config
// loaded from JSON text, a preset's config.json as committed, the published-count check, and op
// counts by name in a built graph.
#pragma once

#include "common/embedded_files.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"
#include "workloads/model_config.h"
#include "workloads/runtime_profile.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace ridgeline::test::families {

inline ModelConfig load(const nlohmann::json& j) {
  return load_model_text(j.dump(), "test.json");
}
inline void expect_error(const nlohmann::json& j, std::initializer_list<std::string> parts) {
  require_input_error([&] { load(j); }, parts);
}
inline nlohmann::json preset(const std::string& name) {
  ModelConfig m = load_model(name);  // the preset loads
  (void)m;
  for (const auto& f : embedded_files())
    if (f.path == "workloads/models/" + name + ".json") return nlohmann::json::parse(f.text);
  FAIL("no preset " << name);
  return {};
}

// Within `tolerance` of the published figure.
inline void near(double counted, double published, double tolerance) {
  INFO(counted << " vs published " << published);
  CHECK(std::abs(counted / published - 1) <= tolerance);
}

inline int count_named(const OpGraph& g, const std::string& part) {
  int n = 0;
  for (const auto& s : g.sections)
    for (auto v : boost::make_iterator_range(boost::vertices(s.dag())))
      if (s.dag()[v].name.find(part) != std::string::npos) ++n;
  return n;
}

inline RunConfig decode(int64_t batch, int64_t kv, const std::string& runtime = "pytorch-eager") {
  RunConfig r;
  r.phase = Phase::Decode;
  r.batch = batch;
  r.kv_len = kv;
  r.runtime = load_runtime(runtime);
  return r;
}

inline RunConfig prefill(int64_t batch, int64_t seq, const std::string& runtime = "pytorch-eager") {
  RunConfig r;
  r.phase = Phase::Prefill;
  r.batch = batch;
  r.seq = seq;
  r.runtime = load_runtime(runtime);
  return r;
}

}  // namespace ridgeline::test::families
