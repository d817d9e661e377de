// The JSON view of `ridgeline op` results (JSONL: op_jsonl.cpp). Field names follow the contract in
// ARCHITECTURE.md: id, time_us, bottleneck, flops, bytes (by level), plus the terms of the
// model and the launch shape so that a user can see why.
#include "cli/views/op_fields.h"
#include "cli/views/views.h"
#include "workloads/op.h"

namespace ridgeline {

namespace {

// op_result_fields into an ordered_json: a stack of the objects being filled.
class JsonBuilder {
 public:
  explicit JsonBuilder(nlohmann::ordered_json& root) : stack_{&root} {}
  template <class T>
  void field(const char* key, const T& value) {
    (*stack_.back())[key] = value;
  }
  void begin(const char* key) { stack_.push_back(&(*stack_.back())[key]); }
  void end() { stack_.pop_back(); }

 private:
  std::vector<nlohmann::ordered_json*> stack_;
};

}  // namespace

nlohmann::ordered_json op_result_json(const OpResult& r) {
  nlohmann::ordered_json j;
  JsonBuilder builder(j);
  op_result_fields(r, builder);
  return j;
}

void print_op_json(std::ostream& os, const GpuSpec& gpu, const std::vector<OpResult>& results) {
  nlohmann::ordered_json j;
  j["gpu"] = gpu.name;
  j["what_ifs"] = what_if_labels(gpu);
  j["profile"] = gpu.profile;
  j["results"] = nlohmann::ordered_json::array();
  for (const auto& r : results) j["results"].push_back(op_result_json(r));
  os << j.dump(2) << "\n";
}

}  // namespace ridgeline
