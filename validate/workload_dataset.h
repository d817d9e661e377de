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

struct WorkloadMeasurement {
  std::string id, split, category;  // category: "<phase>-<launch>", e.g. "decode-graph"
  ModelConfig model;
  RunConfig run;
  double measured_us = 0;
};

struct WorkloadDataset {
  std::string file;
  nlohmann::json meta;
  std::vector<WorkloadMeasurement> records;
  std::vector<std::string> skipped;  // "id: why"
};

WorkloadDataset load_workload_dataset(const std::string& path);
WorkloadDataset parse_workload_dataset(const nlohmann::json& doc, const std::string& label);
WorkloadDataset load_workload_datasets(const std::vector<std::string>& paths);

}  // namespace ridgeline
