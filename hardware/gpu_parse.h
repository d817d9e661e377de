// Internal to hardware/: parsing a complete GPU document and the model-parameter object.
#pragma once

#include "common/json_reader.h"
#include "hardware/gpu_spec.h"

#include <nlohmann/json.hpp>

namespace ridgeline {

// Parses a GPU document whose "model" object is complete; errors name `label`. `check_figures`
// false skips the checks that tie figures together (stated peaks, cache sizes, knees), for
// documents between two what-ifs.
GpuSpec parse_gpu_document(const nlohmann::json& doc, const std::string& label,
                           bool check_figures = true);
// Reads {"value": x, "source": "<kind>: ..."} at the '/'-separated `path` below `root`, the value
// checked by `rule`.
void read_fact(JsonReader& root, const std::string& path, FieldRule rule, Fact& out);
// Reads every model parameter below `model` (no finish(); the caller runs it).
void parse_model_params(JsonReader& model, ModelParams& p);

// Applies one "a.b.c=value" what-if to `doc` (a relative value to the figure it replaces);
// errors name the flag. Returns what was applied.
WhatIf apply_override(nlohmann::json& doc, const std::string& assignment);
// After what-ifs (`before` is the document without them): every stated peak whose derived peak
// (SMs x ops/clk x clock) they changed moves by the same ratio, unless a what-if set it.
void follow_stated_peaks(const nlohmann::json& before, nlohmann::json& doc,
                         const std::vector<WhatIf>& what_ifs);
// Merges `overlay` into `base` key by key; a key that `base` lacks is an error naming `label`.
void merge_strict(nlohmann::json& base, const nlohmann::json& overlay, const std::string& label,
                  const std::string& path);

}  // namespace ridgeline
