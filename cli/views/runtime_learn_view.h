// Views of `ridgeline runtime learn` (what was matched and chosen, the host costs, the kernels
// nothing matched) and `ridgeline runtime show` (a runtime file's choices and provenance).
#pragma once

#include "validate/host_learn.h"
#include "validate/runtime_learn.h"

#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

struct LearnReport {
  std::string trace, sha256, shapes, base, out, workload;
  const LearnResult* result = nullptr;
  const HostLearn* host = nullptr;
  std::vector<std::pair<std::string, long long>> unmatched;  // trace kernels, by name
};

void print_learn_report(std::ostream& os, const LearnReport& r);
// doc: the runtime's file (already read strictly as `runtime`).
void print_runtime_show(std::ostream& os, const RuntimeProfile& runtime, const nlohmann::json& doc);

}  // namespace ridgeline
