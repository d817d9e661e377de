// Records of real Hugging Face transformers runs (validate/measure/measure_hf.py, model ids
// "hf-*": validate/data/h200-sxm-hf-*.json) as workload measurements. Their fields differ from
// measure_models.py's (launch, cache, device_median_ms, generate's ttft/per_token/total), so they
// are read here, as strictly: a field that sets the predicted run is required. A record
// ridgeline cannot predict yet is skipped with its reason (never guessed):
//   optimizer-only steps, Qwen2-MoE (its config is not imported yet, issue 14); torch.compile runs
//   (launch "compile": mode default, eager launch; "compile-ro": reduce-overhead, CUDA graphs)
//   unless scored with the torch-compile runtime, which skips every other record.
// A DynamicCache decode record ran on a cropped cache (measure_hf.py crops it back after each
// step): its run says so (RunConfig::cache_cropped). A generate() record gives three measurements:
// "<id>/ttft", "/per_token" and "/total". A training record with fp32 parameters under autocast
// (precision "fp32amp") runs with --master-weights fp32, in its own category train-fp32amp-eager.
#pragma once

#include "common/json_reader.h"
#include "validate/workload_dataset.h"

#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

bool is_hf_record(const nlohmann::json& record);

// The measurements of one record, or the reason it is skipped.
struct HfRecord {
  std::vector<WorkloadMeasurement> measurements;
  std::string skipped;  // empty when read
};
// `runtime`: the runtime the data set is scored with, or nullptr for the one the record ran
// under (hf-transformers; torch-compile for a compiled run). Its cache class is the record's when
// the runtime uses transformers' caches (hf-transformers), else the runtime's own.
HfRecord read_hf_record(JsonReader& r, const std::string& id, const std::string& split,
                        const std::string& where, const RuntimeProfile* runtime);

}  // namespace ridgeline
