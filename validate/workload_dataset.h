// Measured whole-workload data sets (validate/data/*-models-*.json), written by
// validate/measure/measure_models.py: real PyTorch runs of Llama-style block stacks and whole
// models (prefill, decode, training; eager and CUDA-graph launch). Each record becomes a model
// config and a run config that ridgeline predicts, with its measured step time and its fixed
// split ("fit" or "holdout").
#pragma once

#include "workloads/model_config.h"
#include "workloads/run_config.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ridgeline {

// What a generate() measurement timed: none (a single step), the time to the first token, the
// mean time per later token, or the whole call.
enum class GenerateMetric { None, Ttft, PerToken, Total };

struct WorkloadMeasurement {
  std::string id, split, category;  // category: "<phase>-<launch>", e.g. "decode-graph"
  ModelConfig model;
  RunConfig run;  // a generate() record: its prompt's prefill
  double measured_us = 0;
  GenerateMetric generate = GenerateMetric::None;
  int64_t new_tokens = 0;  // generate(): tokens generated
};

struct WorkloadDataset {
  std::string file;
  nlohmann::json meta;
  std::vector<WorkloadMeasurement> records;
  std::vector<std::string> skipped;  // "id: why"
};

// `runtime`: the runtime every record is predicted with (pytorch-eager unless told).
WorkloadDataset load_workload_dataset(const std::string& path,
                                      const RuntimeProfile& runtime = default_runtime());
WorkloadDataset parse_workload_dataset(const nlohmann::json& doc, const std::string& label,
                                       const RuntimeProfile& runtime = default_runtime());
WorkloadDataset load_workload_datasets(const std::vector<std::string>& paths,
                                       const RuntimeProfile& runtime = default_runtime());
// Each record with the runtime it was measured under (validate's default when no --runtime):
// transformers' own model code ("hf-*" records) with hf-transformers, or torch-compile when the
// run was compiled; ridgeline's rendering (measure_models.py) with pytorch-eager.
WorkloadDataset parse_workload_dataset_as_measured(const nlohmann::json& doc,
                                                   const std::string& label);
WorkloadDataset load_workload_datasets_as_measured(const std::vector<std::string>& paths);

}  // namespace ridgeline
