// Measured records of the transformers data sets (validate/data/h200-sxm-hf*.json) for the
// runtime tests: one record by id, and the kernels a profiled step launched that the runtime's
// kernel list must match (library helpers the runtime folds into their op are left out).
#pragma once

#include "common/json_reader.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace ridgeline::test {

// `file` relative to the source tree, e.g. "/validate/data/h200-sxm-hf-2026-12-01.json".
inline const nlohmann::json& measured_record(const std::string& file, const std::string& id) {
  static std::map<std::string, nlohmann::json> files;
  auto it = files.find(file);
  if (it == files.end())
    it = files.emplace(file, read_json_file(std::string(RIDGELINE_SOURCE_DIR) + file)).first;
  for (const auto& r : it->second["records"])
    if (r["id"] == id) return r;
  FAIL("no record " << id << " in " << file);
  throw;
}

// cuBLAS split-K reductions, cuDNN's lean reductions, memsets and copies; with
// `graph_tree_copies` also the ATen copies a CUDA-graph tree adds (torch.compile's
// reduce-overhead mode).
inline int64_t profiled_kernels(const nlohmann::json& r, bool graph_tree_copies = false) {
  double n = 0;
  for (const auto& k : r["kernels"]) {
    std::string name = k["name"];
    bool library = name.find("splitKreduce") != std::string::npos ||
                   name.find("lean_reduction") != std::string::npos ||
                   name.rfind("Memset", 0) == 0 || name.rfind("Memcpy", 0) == 0 ||
                   (graph_tree_copies && name.find("at::native::") != std::string::npos);
    if (!library) n += k["count"].get<double>();
  }
  return (int64_t)n;
}

}  // namespace ridgeline::test
