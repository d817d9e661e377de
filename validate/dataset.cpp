// Loading measured data sets; see dataset.h. A record's op fields go through the same parser
// as `ridgeline op` input, so a data set can never hold an op the CLI would reject.
// Which timing stands for the op:
//  - GEMM and attention: the library call as a whole (cuBLAS' workspace memset and split-K
//    reduce kernel, cuDNN's split-KV reduction are part of how the op runs);
//  - memory-bound ops must be one kernel (a memset beside it is allowed); a record that ran as
//    several is compared through its single-kernel alternative when the file has one, else it
//    is left out and listed, never silently mixed in;
//  - a memory-bound record whose rotated inputs fit in L2 (tiny ops: the measurement could not
//    make them cold) is compared as warm_l2, which is what was measured, with all the rotated
//    buffers as what L2 holds (a rotation near L2's size still misses);
//  - row ops (rmsnorm, layernorm, softmax) are compared with a single-pass kernel (alt_impl
//    "triton_*": the row read once into registers): PyTorch's own kernels are single launches
//    too, but re-read or re-compute (F.layer_norm and softmax run at 0.3-0.7 of bandwidth); their
//    times stay in the data for the runtime profiles. A layernorm or softmax record without the
//    single-pass timing is left out and listed.
#include "validate/dataset.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "workloads/op_parse.h"

namespace ridgeline {

namespace {

const char* const kOpKeys[] = {"id",
                               "op",
                               "m",
                               "n",
                               "k",
                               "batch",
                               "groups",
                               "heads",
                               "kv_heads",
                               "head_dim",
                               "q_len",
                               "kv_len",
                               "causal",
                               "dtype",
                               "kind",
                               "numel",
                               "rows",
                               "cols",
                               "warm_l2",
                               "l2_working_set_bytes",
                               "strided"};

nlohmann::json op_fields(const nlohmann::json& record) {
  nlohmann::json j = nlohmann::json::object();
  for (const char* k : kOpKeys) {
    if (record.contains(k)) j[k] = record[k];
  }
  return j;
}

// One array of measurements ("benchmarks" or "records") into d.
void parse_records(Dataset& d, const nlohmann::json& records, const std::string& label,
                   const char* key) {
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    std::string where = label + ": /" + key + "/" + std::to_string(i);
    std::string id = where;  // measure_ops.py names records "id", ridgeline-gpu-bench "name"
    for (const char* k : {"id", "name"}) {
      if (r.is_object() && r.contains(k) && r[k].is_string() && id == where)
        id = r[k].get<std::string>();
    }
    if (!r.is_object()) throw InputError(where + ": expected an object");
    if (r.contains("error")) {
      d.skipped.push_back(id + ": failed when measured");
      continue;
    }
    if (!r.contains("op")) {
      d.skipped.push_back(id + ": a raw microbenchmark, not a kernel of the op contract");
      continue;
    }
    if (std::string(key) == "benchmarks" && r.value("op", "") == "reduce") {
      d.skipped.push_back(id +
                          ": the suite's one-pass reduction (an atomicAdd per block) is "
                          "not the kernel the model describes (torch.sum's)");
      continue;
    }
    Measurement m;
    m.op = parse_op(op_fields(r), where, id);
    if (const auto* a = std::get_if<AttentionOp>(&m.op.shape);
        a && a->causal && a->q_len < a->kv_len && r.value("mask", "") != "bottom_right") {
      d.skipped.push_back(id +
                          ": PyTorch's is_causal masks top-left when queries are fewer than "
                          "keys, not the bottom-right (chunked prefill) mask the model means");
      continue;
    }
    m.split = r.value("split", "");
    if (m.split != "fit" && m.split != "holdout")
      throw InputError(where + "/split: expected \"fit\" or \"holdout\"");
    const char* time_key =
        r.contains("measured_us") || !r.contains("median_us") ? "measured_us" : "median_us";
    if (!r.contains(time_key) || !r[time_key].is_number() || !(r[time_key].get<double>() > 0)) {
      throw InputError(where + "/" + time_key + ": expected a positive number");
    }
    m.measured_us = r[time_key].get<double>();
    if (r.contains("p10_us") && r.contains("p90_us") && r["p10_us"].is_number() &&
        r["p90_us"].is_number() && r["p10_us"].get<double>() > 0) {
      m.spread = r["p90_us"].get<double>() / r["p10_us"].get<double>();
    }
    int kernels = r.value("kernels_per_call", 1);
    for (const auto& name : r.value("kernels", nlohmann::json::array())) {
      if (name.is_string() && name.get<std::string>().rfind("Memset", 0) == 0) --kernels;
    }
    std::string family = op_family(m.op);
    bool library_call = family == "gemm" || family == "attention";
    bool row_op = family == "rmsnorm" || family == "layernorm" || family == "softmax";
    std::string alt = r.value("alt_impl", "");
    if (row_op && alt.rfind("triton_", 0) == 0 && r.contains("alt_measured_us") &&
        r["alt_measured_us"].is_number()) {
      m.measured_us = r["alt_measured_us"].get<double>();
      m.impl = alt;
    } else if (row_op && family != "rmsnorm") {
      d.skipped.push_back(id + ": only PyTorch's multi-pass " + family + " kernel was timed here");
      continue;
    } else if (kernels > 1 && !library_call) {
      if (r.contains("alt_measured_us") && r["alt_measured_us"].is_number()) {
        m.measured_us = r["alt_measured_us"].get<double>();
        m.impl = r.value("alt_impl", "alt");
      } else {
        d.skipped.push_back(id + ": ran as " + std::to_string(kernels) + " kernels, not one");
        continue;
      }
    }
    // Inputs rotated through less than L2 were still in L2 at each launch: the op ran warm.
    double l2 = d.meta.value("l2_cache_bytes", 0.0);
    if (!library_call && l2 > 0 && r.contains("rotation_bytes") &&
        r["rotation_bytes"].is_number() && r["rotation_bytes"].get<double>() <= l2) {
      m.op.warm_l2 = true;
      m.op.l2_working_set_bytes = r["rotation_bytes"].get<double>();
    }
    d.records.push_back(std::move(m));
  }
}

}  // namespace

Dataset parse_dataset(const nlohmann::json& doc, const std::string& label) {
  Dataset d;
  d.file = label;
  // measure_ops.py writes "records"; ridgeline-gpu-bench (calibrate/) writes "benchmarks", of
  // which the points with an "op" are kernels in the `ridgeline op` contract; a file of
  // `ridgeline calibrate run` holds both.
  std::vector<const char*> keys;
  for (const char* k : {"benchmarks", "records"}) {
    if (doc.is_object() && doc.contains(k)) keys.push_back(k);
  }
  if (keys.empty()) keys.push_back("records");
  for (const char* key : keys) {
    if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array())
      throw InputError(
          located(label, std::string("/") + key + ": missing; expected an array of measurements"));
  }
  d.meta = doc.value("meta", nlohmann::json::object());
  if (!d.meta.contains("device_name") && d.meta.contains("device") &&
      d.meta["device"].is_object()) {
    d.meta["device_name"] = d.meta["device"].value("name", "");
  }
  for (const char* key : keys) parse_records(d, doc[key], label, key);
  return d;
}

Dataset load_dataset(const std::string& path) {
  return parse_dataset(read_json_file(path), path);
}

}  // namespace ridgeline
