// The model of a record of validate/data/h200-sxm-families-*.json (measure_hf_families.py: a few
// layers of each family in transformers' own classes). Each such record carries "family" and the
// config transformers built ("config": PretrainedConfig.to_dict(), every default written out);
// the model is that config read by the strict importer (which accepts the keys every to_dict()
// writes whatever the model: output flags, label maps). A model_type ridgeline does not import
// is skipped with its reason, never guessed.
#pragma once

#include "common/json_reader.h"
#include "workloads/model_config.h"

#include <optional>
#include <string>

namespace ridgeline {

bool is_family_record(JsonReader& r);
// The record's model cut to its layers, or nullopt with `skipped` saying why.
std::optional<ModelConfig> family_record_model(JsonReader& r, std::string& skipped);
// Whether a family record's timing is one ridgeline predicts (the growing-cache eager decodes of
// run 1 were host-bound at 40-70 ms a step, meta.runs_note; their cropped reruns are kept).
std::string family_record_skip_reason(JsonReader& r);

}  // namespace ridgeline
