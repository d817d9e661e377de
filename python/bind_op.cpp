// op_json: single kernels from Python, through the same functions as `ridgeline op`
// (run_op_object, which adds the 80% interval, then the JSON view's op_result_json), with the
// GPU loaded once per call.
// Each op is labelled like a JSONL line is: "op" for one, "op[3]" for the fourth of a list,
// so an error reads `op[3]: /m: expected an integer ...`; a failed op is an {"id", "error"}
// object as in the CLI's output, and the Python wrapper decides whether to raise it.
#include "cli/op_runner.h"
#include "cli/views/views.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_load.h"
#include "python/bindings.h"

#include <pybind11/stl.h>

namespace ridgeline::python {

namespace {

// `ops_json` is one JSON object or an array of them; the result is a JSON array either way.
std::string op_json(const std::string& ops_json, const std::string& gpu_name,
                    const std::vector<std::string>& sets, const std::string& profile) {
  nlohmann::json ops = parse_json_text(ops_json, "op");
  bool single = !ops.is_array();
  if (single) ops = nlohmann::json::array({ops});
  GpuSpec gpu = load_gpu(gpu_name, sets, profile);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < ops.size(); ++i) {
    std::string label = single ? "op" : "op[" + std::to_string(i) + "]";
    out.push_back(op_result_json(run_op_object(ops[i], label, label, gpu)));
  }
  return out.dump();
}

}  // namespace

void bind_op(pybind11::module_& m) {
  m.def("op_json", &op_json, pybind11::arg("ops_json"), pybind11::arg("gpu"), pybind11::arg("sets"),
        pybind11::arg("profile"),
        "Predicts one op (a JSON object) or a list of them; returns a JSON array of results");
}

}  // namespace ridgeline::python
