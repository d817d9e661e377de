// Accuracy baseline loading and checking; see baseline.h.
#include "validate/baseline.h"

#include "common/errors.h"
#include "common/json_reader.h"

namespace ridgeline {

namespace {

std::vector<std::string> strings(JsonReader& r, const std::string& key) {
  std::vector<std::string> out;
  const auto& v = r.raw(key);
  if (!v.is_array()) r.fail(key, "expected an array of file names");
  for (const auto& s : v) {
    if (!s.is_string()) r.fail(key, "expected an array of file names");
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::map<std::string, double> limits(JsonReader& r) {
  std::map<std::string, double> out;
  for (const auto& k : r.keys()) out[k] = r.fraction(k);
  return out;
}

}  // namespace

AccuracyBaseline load_baseline(const std::string& path) {
  nlohmann::json doc = read_json_file(path);
  JsonReader r(doc, path);
  AccuracyBaseline b;
  b.file = path;
  r.string("about");
  if (r.has("training_runs")) {
    b.training_runs = r.string("training_runs");
    b.training_mape = limits(r.child("training_holdout_mape"));
    r.finish();
    return b;
  }
  b.gpu = r.string("gpu");
  if (r.has("profile")) b.profile = r.string("profile");
  if (r.has("runtime")) b.runtime = r.string("runtime");
  b.op_datasets = strings(r, "op_datasets");
  b.workload_datasets = strings(r, "workload_datasets");
  b.op_mape = limits(r.child("op_holdout_mape"));
  b.workload_mape = limits(r.child("workload_holdout_mape"));
  r.finish();
  return b;
}

std::vector<BaselineCheck> check_baseline(const Scorecard& sc,
                                          const std::map<std::string, double>& recorded,
                                          const std::string& where) {
  std::vector<BaselineCheck> out;
  for (const auto& [category, mape] : recorded) {
    const FamilyScore* found = nullptr;
    for (const auto& f : sc.families) {
      if (f.family == category) found = &f;
    }
    if (!found) throw InputError(where + "/" + category + ": no such category in the scored data");
    out.push_back({category, mape, found->model.mape});
  }
  return out;
}

std::vector<BaselineCheck> check_baseline(const std::map<std::string, double>& now,
                                          const std::map<std::string, double>& recorded,
                                          const std::string& where) {
  std::vector<BaselineCheck> out;
  for (const auto& [category, mape] : recorded) {
    auto it = now.find(category);
    if (it == now.end())
      throw InputError(where + "/" + category + ": no such category in the scored data");
    out.push_back({category, mape, it->second});
  }
  return out;
}

}  // namespace ridgeline
