// Loading measured data sets; see dataset.h. A record's op fields go through the same parser
// as `ridgeline op` input, so a data set can never hold an op the CLI would reject; the fields
// the comparison reads (split, time, kernel count, alternative timing, rotation) are required or
// checked where optional, with errors naming the file and JSON path, never defaulted.
// Which timing stands for the op:
//  - GEMM and attention: the library call as a whole (cuBLAS' workspace memset and split-K
//    reduce kernel, cuDNN's split-KV reduction are part of how the op runs);
//  - memory-bound ops must be one kernel (a memset beside it is allowed); a record that ran as
//    several is compared through its single-kernel alternative when the file has one, else it
//    is left out and listed, never silently mixed in;
//  - a memory-bound record whose rotated inputs fit in L2 (tiny ops: the measurement could not
//    make them cold) is compared as warm_l2, which is what was measured, with all the rotated
//    buffers as what L2 holds (a rotation near L2's size still misses); measure_hf.py's single
//    row kernels state their rotation as `sets` inputs of the record's shape;
//  - measure_hf.py's optimizer steps (its other whole-model records are left out and listed) are
//    one AdamW op each ("adamw/foreach", "adamw/fused");
//  - records of one implementation among several ("kind": "op", validate/measure's hf_ops: SDPA's
//    backends, ATen's norms and softmax) are compared with that implementation ("impl") and
//    scored as their own family ("attention/flash2", "rmsnorm/aten");
//  - other row ops (rmsnorm, layernorm, softmax) are compared with a single-pass kernel (alt_impl
//    "triton_*": the row read once into registers): PyTorch's own kernels are single launches
//    too, but re-read or re-compute (F.layer_norm and softmax run at 0.3-0.7 of bandwidth); their
//    times stay in the data for the runtime profiles. A layernorm or softmax record without the
//    single-pass timing is left out and listed.
#include "validate/dataset.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "validate/kernel_shape_check.h"
#include "workloads/op_parse.h"

#include <optional>
#include <utility>

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
                               "strided",
                               "additive_mask",
                               "view_dims",
                               "masked_fraction",
                               "routed_tokens",
                               "top_k"};

nlohmann::json op_fields(const nlohmann::json& record) {
  nlohmann::json j = nlohmann::json::object();
  for (const char* k : kOpKeys) {
    if (record.contains(k)) j[k] = record[k];
  }
  return j;
}

// A record of one implementation among several (validate/measure's hf_ops: "kind": "op", its
// "impl" as SDPA's backend or the PyTorch function timed) and the ridgeline impl it stands for;
// nullopt for transformers' LlamaRMSNorm (eight PyTorch ops: the hf-transformers runtime's norm,
// not one kernel), which is left out and listed.
std::optional<std::string> ridgeline_impl(JsonReader& rec) {
  std::string impl = rec.one_of(
      "impl", {"flash_attention", "efficient_attention", "cudnn_attention", "math", "sdpa",
               "aten_rms_norm", "aten_layer_norm", "aten_softmax", "hf_llama_rmsnorm"});
  if (impl == "hf_llama_rmsnorm") return std::nullopt;
  if (impl == "sdpa") return "sdpa";  // no backend forced: what SDPA picks on the GPU
  if (impl == "flash_attention") return "flash2";
  if (impl == "efficient_attention") return "efficient";
  if (impl == "cudnn_attention") return "cudnn";
  if (impl == "math") return "math";
  return "aten";
}

// The measured time of a record: "measured_us" (measure_ops.py, and suite points it re-times),
// else the suite's "median_us"; its spread p90 / p10 where both are given (both or neither).
void read_timing(JsonReader& rec, Measurement& m) {
  m.measured_us =
      rec.positive(rec.has("measured_us") || !rec.has("median_us") ? "measured_us" : "median_us");
  if (rec.has("p10_us") || rec.has("p90_us"))
    m.spread = rec.positive("p90_us") / rec.positive("p10_us");
}

// How many kernels one call ran, memsets not counted. measure_ops.py records it ("kernels_per_call"
// and the kernel names); a suite point is one kernel by construction.
int kernels_per_call(JsonReader& rec, bool suite) {
  if (suite && !rec.has("kernels_per_call")) return 1;
  int kernels = (int)rec.integer("kernels_per_call", 1);
  const nlohmann::json& names = rec.raw("kernels");
  if (!names.is_array()) rec.fail("kernels", "expected an array of kernel names");
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i].is_string())
      rec.fail("kernels/" + std::to_string(i), "expected a kernel name (a string)");
    if (names[i].get<std::string>().rfind("Memset", 0) == 0) --kernels;
  }
  return kernels;
}

// The alternative implementation timed beside the op ("alt_impl", "alt_measured_us"), if any.
std::optional<std::pair<std::string, double>> alternative(JsonReader& rec) {
  if (!rec.has("alt_measured_us") && !rec.has("alt_impl")) return std::nullopt;
  double us = rec.positive("alt_measured_us");
  return std::make_pair(rec.string("alt_impl"), us);
}

// An optimizer step of measure_hf.py (torch.optim.AdamW, foreach or fused, over the gradients of
// transformers' Llama-3-8B shape cut to "layers" layers: 9 weight tensors a layer, plus the
// embedding, the final norm and the LM head) as one AdamW op, scored as "adamw/<impl>".
Measurement optimizer_step(JsonReader& rec, const std::string& id) {
  Measurement m;
  ElementwiseOp e;
  e.kind = ElementwiseKind::AdamW;
  e.numel = rec.integer("params", 1);
  if (rec.string("model") != "hf-llama3-8b")
    rec.fail("model", "an optimizer step is read for hf-llama3-8b only (its tensor count)");
  e.tensors = 9 * rec.integer("layers", 1) + 3;
  std::string optimizer = rec.one_of("optimizer", {"adamw_foreach", "adamw_fused"});
  e.adamw = optimizer == "adamw_foreach" ? AdamwImpl::Foreach : AdamwImpl::Fused;
  e.dtype = rec.one_of("precision", {"bf16", "fp32amp"}) == "bf16" ? DType::Bf16 : DType::Fp32;
  m.op = Op{id, e, false};
  m.split = rec.one_of("split", {"fit", "holdout"});
  m.measured_us = 1000 * rec.positive("device_median_ms");
  m.spread = rec.positive("device_p90_ms") / rec.positive("device_p10_ms");
  m.impl = adamw_impls().name(e.adamw);
  m.family = "adamw/" + m.impl;
  return m;
}

// One array of measurements ("benchmarks" or "records") into d. Fields the comparison depends on
// are required (or, where optional, must be well-formed); a record's other fields are the
// measurement's own notes and are not read.
void parse_records(Dataset& d, const nlohmann::json& records, const std::string& label,
                   const char* key) {
  bool suite = std::string(key) == "benchmarks";
  // Inputs rotated through less than L2 were still in L2 at each launch: the op ran warm.
  std::optional<double> l2;
  if (d.meta.contains("l2_cache_bytes")) {
    JsonReader meta(d.meta, label, "/meta");
    l2 = meta.positive("l2_cache_bytes");
  }
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    std::string path = std::string("/") + key + "/" + std::to_string(i);
    std::string where = label + ": " + path;
    if (!r.is_object()) throw InputError(where + ": expected an object");
    JsonReader rec(r, label, path);
    // measure_ops.py names records "id", ridgeline-gpu-bench "name" (and "id" for kernels)
    std::string id = suite && !rec.has("id") ? rec.string("name") : rec.string("id");
    if (rec.has("error")) {
      d.skipped.push_back(id + ": failed when measured");
      continue;
    }
    if (suite && !rec.has("op")) {
      d.skipped.push_back(id + ": a raw microbenchmark, not a kernel of the op contract");
      continue;
    }
    if (suite && rec.string("op") == "reduce") {
      d.skipped.push_back(id +
                          ": the suite's one-pass reduction (an atomicAdd per block) is "
                          "not the kernel the model describes (torch.sum's)");
      continue;
    }
    if (r.contains("kind") && r["kind"] == "workload") {  // measure_hf.py's whole-model records
      if (!r.contains("phase") || r["phase"] != "optimizer") {
        d.skipped.push_back(id + ": a whole-model step (validate --workloads reads it)");
        continue;
      }
      d.records.push_back(optimizer_step(rec, id));
      continue;
    }
    Measurement m;
    nlohmann::json fields = op_fields(r);
    // masked_softmax_grid.py names ATen's softmax ("impl": "aten_softmax") without a "kind"
    bool impl_record = (r.contains("kind") && r["kind"] == "op") ||
                       (!r.contains("kind") && r.contains("impl") && r["impl"] == "aten_softmax");
    if (impl_record) {
      std::optional<std::string> impl = ridgeline_impl(rec);
      if (!impl) {
        d.skipped.push_back(id +
                            ": transformers' LlamaRMSNorm runs as 8 PyTorch ops, not one kernel");
        continue;
      }
      fields.erase("kind");
      if (*impl == "sdpa") {
        fields.erase("impl");
      } else {
        fields["impl"] = *impl;
      }
      m.impl = *impl;
    }
    // measure_hf.py's mask-grid: SDPA as transformers calls it on a sliding layer, with a bool
    // window mask that SDPA turns into an additive one (its where kernel, under 5% of these calls,
    // is priced apart in a graph, window_mask_where, and not in this op).
    std::string mask = rec.has("mask")
                           ? rec.one_of("mask", {"top_left", "bottom_right", "window", "none"})
                           : "top_left";
    if (mask == "window") {
      if (rec.boolean("causal")) rec.fail("causal", "a window mask is passed without is_causal");
      fields["additive_mask"] = true;
    }
    m.op = parse_op(fields, where, id);
    if (const auto* a = std::get_if<AttentionOp>(&m.op.shape)) check_attention_kernels(r, *a, rec);
    if (impl_record) m.family = std::string(op_family(m.op)) + "/" + m.impl;
    if (const auto* a = std::get_if<AttentionOp>(&m.op.shape);
        a && a->causal && a->q_len < a->kv_len && mask != "bottom_right") {
      d.skipped.push_back(id +
                          ": PyTorch's is_causal masks top-left when queries are fewer than "
                          "keys, not the bottom-right (chunked prefill) mask the model means");
      continue;
    }
    if (!rec.has("split") || !r["split"].is_string() ||
        (r["split"] != "fit" && r["split"] != "holdout"))
      rec.fail("split", "expected \"fit\" or \"holdout\"");
    m.split = rec.string("split");
    read_timing(rec, m);
    auto alt = alternative(rec);
    std::string family = op_family(m.op);
    bool library_call = family == "gemm" || family == "attention";
    bool row_op = family == "rmsnorm" || family == "layernorm" || family == "softmax";
    // masked_softmax_grid.py timed with CUDA events and kept no kernel list: ATen's forward
    // softmax is one kernel at every width (each profile of the row grid, h200-sxm-row-grid-*).
    bool unlisted =
        impl_record && family == "softmax" && !rec.has("kernels_per_call") && !rec.has("kernels");
    int kernels = unlisted ? 1 : kernels_per_call(rec, suite);
    if (row_op && !impl_record)  // compared with the single-pass kernel, as below
      std::get<RowOp>(m.op.shape).impl = RowImpl::SinglePass;
    if (impl_record) {
      if (kernels > 1 && !library_call) rec.fail("kernels_per_call", "expected one kernel");
    } else if (row_op && alt && alt->first.rfind("triton_", 0) == 0) {
      m.measured_us = alt->second;
      m.impl = alt->first;
    } else if (row_op && family != "rmsnorm") {
      d.skipped.push_back(id + ": only PyTorch's multi-pass " + family + " kernel was timed here");
      continue;
    } else if (kernels > 1 && !library_call) {
      if (!alt) {
        d.skipped.push_back(id + ": ran as " + std::to_string(kernels) + " kernels, not one");
        continue;
      }
      m.measured_us = alt->second;
      m.impl = alt->first;
    }
    // measure_hf.py's single row kernels rotate `sets` inputs of rows x cols (their outputs
    // reuse one buffer): that many bytes is what L2 can hold between launches
    std::optional<double> rotation_bytes;
    if (!library_call && rec.has("rotation_bytes")) rotation_bytes = rec.positive("rotation_bytes");
    if (impl_record && row_op && !rotation_bytes && rec.has("sets")) {
      const auto& row = std::get<RowOp>(m.op.shape);
      rotation_bytes =
          rec.positive("sets") * (double)row.rows * (double)row.cols * dtype_bytes(row.dtype);
    }
    if (rotation_bytes) {
      double rotation = *rotation_bytes;
      if (!l2) {
        rec.fail("rotation_bytes",
                 "needs /meta/l2_cache_bytes to tell whether the rotated inputs stayed in L2");
      }
      if (rotation <= *l2) {
        m.op.warm_l2 = true;
        m.op.l2_working_set_bytes = rotation;
      }
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
  if (!doc.contains("meta") || !doc["meta"].is_object())
    throw InputError(located(label, "/meta: missing; expected an object (device, method, date)"));
  d.meta = doc["meta"];
  if (!d.meta.contains("device_name") && d.meta.contains("device") &&
      d.meta["device"].is_object() && d.meta["device"].contains("name")) {
    d.meta["device_name"] = d.meta["device"]["name"];
  }
  for (const char* key : keys) parse_records(d, doc[key], label, key);
  return d;
}

Dataset load_dataset(const std::string& path) {
  return parse_dataset(read_json_file(path), path);
}

}  // namespace ridgeline
