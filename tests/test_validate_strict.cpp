// Validation inputs with no silent defaults: a data file's GPU is the one it records (a --gpu it
// contradicts is refused), measured records name every field the comparison depends on, and a
// trace's recorded shapes must be the workload's.
#include "test_helpers.h"

#include "common/json_reader.h"
#include "validate/dataset.h"
#include "validate/recorded_device.h"
#include "validate/trace_compare.h"
#include "validate/trace_shapes.h"
#include "validate/workload_dataset.h"

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

std::string src(const std::string& p) {
  return std::string(RIDGELINE_SOURCE_DIR) + "/" + p;
}

nlohmann::json op_doc() {
  return nlohmann::json::parse(R"({
    "meta": {"device_name": "NVIDIA H200", "l2_cache_bytes": 62914560},
    "records": [
      {"id": "c", "op": "elementwise", "kind": "copy", "numel": 4096, "dtype": "bf16", "split": "fit",
       "measured_us": 2.0, "p10_us": 1.9, "p90_us": 2.2, "kernels": ["copy"], "kernels_per_call": 1,
       "rotation_bytes": 4194304}]})");
}

// One measured whole-model record, as measure_models.py writes it.
nlohmann::json workload_doc() {
  return nlohmann::json::parse(R"({
    "meta": {"device_name": "NVIDIA H100 80GB HBM3"},
    "records": [
      {"id": "blocks4-decode-b8-kv2048-graph", "model": "blocks4", "phase": "decode", "batch": 8,
       "kv_len": 2048, "layers": 4, "blocks_only": true, "mode": "graph", "optimizer": "none",
       "logits": "none", "dtype": "bf16", "split": "fit", "median_ms": 1.0}]})");
}

RecordedDevice device_of(const std::string& name, const std::string& file = "d.json") {
  return recorded_device(nlohmann::json{{"meta", {{"device_name", name}}}}, file);
}

}  // namespace

TEST_CASE("recorded device: data files name their GPU, presets claim it", "[validate][gpu]") {
  CHECK(recorded_device(src("validate/data/h200-sxm-ops-2026-11-29.json")).preset == "h200-sxm");
  CHECK(recorded_device(src("validate/data/h200-sxm-calibration-2026-12-01.json")).json_path ==
        "/meta/device/name");
  CHECK(recorded_device(src("validate/data/h100-sxm-models-2026-11-29.json")).preset == "h100-sxm");
  CHECK(recorded_device(src("validate/data/traces/trace-blocks4-decode-b8-kv2048.json")).preset ==
        "h100-sxm");
  CHECK(gpu_of_recorded({device_of("NVIDIA H200"), device_of("NVIDIA H200")}) == "h200-sxm");
}

TEST_CASE("recorded device error: a file without a device", "[validate][errors]") {
  require_input_error(
      [] {
        gpu_of_recorded({recorded_device(nlohmann::json{{"meta", {}}}, "x.json")});
      },
      {"x.json: records no device", "with --gpu"});
}

TEST_CASE("recorded device error: a device no preset claims", "[validate][errors]") {
  require_input_error(
      [] { gpu_of_recorded({device_of("NVIDIA H200 NVL", "x.json")}); },
      {"x.json: /meta/device_name: no GPU preset is a \"NVIDIA H200 NVL\"", "with --gpu"});
}

TEST_CASE("recorded device error: files of two GPUs", "[validate][errors]") {
  require_input_error(
      [] {
        gpu_of_recorded(
            {device_of("NVIDIA H200", "a.json"), device_of("NVIDIA H100 80GB HBM3", "b.json")});
      },
      {"--data: the files were measured on different GPUs", "a.json", "is h100-sxm"});
}

TEST_CASE("recorded device error: --gpu contradicts the file", "[validate][errors]") {
  GpuSpec h100 = load_gpu("h100-sxm");
  check_recorded_gpu(h100, {device_of("NVIDIA H100 80GB HBM3")}, "--gpu h100-sxm");
  check_recorded_gpu(h100, {device_of("some test card")}, "--gpu h100-sxm");  // user's word
  require_input_error(
      [&] { check_recorded_gpu(h100, {device_of("NVIDIA H200", "x.json")}, "--gpu h100-sxm"); },
      {"--gpu h100-sxm: x.json (meta/device_name \"NVIDIA H200\") was measured on h200-sxm, not "
       "h100-sxm; leave --gpu out or give --gpu h200-sxm"});
}

TEST_CASE("dataset: a well-formed record loads", "[validate][dataset]") {
  Dataset d = parse_dataset(op_doc(), "s.json");
  REQUIRE(d.records.size() == 1);
  CHECK(d.records[0].op.warm_l2);
  CHECK(d.records[0].spread == Approx(2.2 / 1.9));
}

TEST_CASE("dataset error: a record without its kernel count", "[validate][errors]") {
  auto doc = op_doc();
  doc["records"][0].erase("kernels_per_call");
  require_input_error([&] { parse_dataset(doc, "s.json"); },
                      {"s.json: /records/0/kernels_per_call: missing"});
}

TEST_CASE("dataset error: kernel names not an array", "[validate][errors]") {
  auto doc = op_doc();
  doc["records"][0]["kernels"] = "copy";
  require_input_error([&] { parse_dataset(doc, "s.json"); },
                      {"s.json: /records/0/kernels: expected an array of kernel names"});
}

TEST_CASE("dataset error: a file without meta", "[validate][errors]") {
  auto doc = op_doc();
  doc.erase("meta");
  require_input_error([&] { parse_dataset(doc, "s.json"); }, {"s.json: /meta: missing"});
}

TEST_CASE("dataset error: one percentile without the other", "[validate][errors]") {
  auto doc = op_doc();
  doc["records"][0].erase("p10_us");
  require_input_error([&] { parse_dataset(doc, "s.json"); },
                      {"s.json: /records/0/p10_us: missing"});
}

TEST_CASE("dataset error: an alternative timing without its implementation", "[validate][errors]") {
  auto doc = op_doc();
  doc["records"][0]["alt_measured_us"] = 1.5;
  require_input_error([&] { parse_dataset(doc, "s.json"); },
                      {"s.json: /records/0/alt_impl: missing"});
}

TEST_CASE("dataset error: a rotation without the L2 size", "[validate][errors]") {
  auto doc = op_doc();
  doc["meta"].erase("l2_cache_bytes");
  require_input_error([&] { parse_dataset(doc, "s.json"); },
                      {"s.json: /records/0/rotation_bytes: needs /meta/l2_cache_bytes"});
}

TEST_CASE("dataset error: a mask that is neither", "[validate][errors]") {
  auto doc = op_doc();
  doc["records"][0]["mask"] = "diagonal";
  require_input_error([&] { parse_dataset(doc, "s.json"); },
                      {"s.json: /records/0/mask: expected one of top_left, bottom_right"});
}

TEST_CASE("workload dataset: a well-formed record loads", "[validate][dataset]") {
  WorkloadDataset d = parse_workload_dataset(workload_doc(), "w.json");
  REQUIRE(d.records.size() == 1);
  CHECK(d.records[0].run.batch == 8);
  CHECK(d.records[0].run.kv_len == 2048);
  CHECK(d.records[0].run.blocks == 4);
  CHECK(d.records[0].category == "decode-graph");
}

TEST_CASE("workload dataset error: each field a prediction needs is required",
          "[validate][errors]") {
  for (const char* key : {"mode", "batch", "kv_len", "layers", "blocks_only", "optimizer", "logits",
                          "dtype", "model", "id", "median_ms"}) {
    auto doc = workload_doc();
    doc["records"][0].erase(key);
    INFO(key);
    require_input_error([&] { parse_workload_dataset(doc, "w.json"); },
                        {std::string("w.json: /records/0/") + key + ": missing"});
  }
}

TEST_CASE("workload dataset error: a launch mode that is neither", "[validate][errors]") {
  auto doc = workload_doc();
  doc["records"][0]["mode"] = "graphs";
  require_input_error([&] { parse_workload_dataset(doc, "w.json"); },
                      {"w.json: /records/0/mode: expected one of graph, eager"});
}

TEST_CASE("workload dataset error: batch 0", "[validate][errors]") {
  auto doc = workload_doc();
  doc["records"][0]["batch"] = 0;
  require_input_error([&] { parse_workload_dataset(doc, "w.json"); },
                      {"w.json: /records/0/batch: expected an integer >= 1"});
}

TEST_CASE("workload dataset error: logits the prediction would not make", "[validate][errors]") {
  auto doc = workload_doc();
  doc["records"][0]["logits"] = "last";
  require_input_error([&] { parse_workload_dataset(doc, "w.json"); },
                      {"w.json: /records/0/logits: expected \"none\" for this run"});
}

TEST_CASE("workload dataset error: a whole model of another depth", "[validate][errors]") {
  auto doc = workload_doc();
  doc["records"][0]["model"] = "llama-3-8b";
  doc["records"][0]["blocks_only"] = false;
  doc["records"][0]["logits"] = "last";
  require_input_error([&] { parse_workload_dataset(doc, "w.json"); },
                      {"w.json: /records/0/layers: the whole llama-3-8b has 32 layers, not 4"});
  doc["records"][0]["layers"] = 32;
  CHECK(parse_workload_dataset(doc, "w.json").records[0].run.blocks == 0);
}

TEST_CASE("workload dataset error: a dtype other than the measured bf16", "[validate][errors]") {
  auto doc = workload_doc();
  doc["records"][0]["dtype"] = "fp8";
  require_input_error([&] { parse_workload_dataset(doc, "w.json"); },
                      {"w.json: /records/0/dtype: expected one of bf16"});
}

namespace {

nlohmann::json trace_with_attention(nlohmann::json dims) {
  return {{"traceEvents",
           {{{"ph", "X"},
             {"cat", "cpu_op"},
             {"name", "aten::linear"},
             {"args", {{"Input Dims", {{8, 1, 4096}, {4096, 4096}, nlohmann::json::array()}}}}},
            {{"ph", "X"},
             {"cat", "cpu_op"},
             {"name", "aten::scaled_dot_product_attention"},
             {"args", {{"Input Dims", dims}}}}}}};
}

RunConfig decode(int64_t batch, int64_t kv_len) {
  RunConfig r;
  r.phase = Phase::Decode;
  r.batch = batch;
  r.kv_len = kv_len;
  return r;
}

}  // namespace

TEST_CASE("trace shapes: the attention call's batch and lengths", "[validate][trace]") {
  auto t = trace_with_attention({{8, 32, 1, 128}, {8, 8, 2049, 128}, {8, 8, 2049, 128}});
  TraceShapes s = read_trace_shapes(t);
  CHECK(s.recorded);
  CHECK(s.attention);
  CHECK(s.batch == 8);
  CHECK(s.queries == 1);
  CHECK(s.keys == 2049);
  CHECK(check_trace_shapes(s, decode(8, 2048), "t.json").find("match") != std::string::npos);
}

TEST_CASE("trace shapes: a trace without shapes says so", "[validate][trace]") {
  TraceShapes s = read_trace_shapes(
      read_json_file(src("validate/data/traces/trace-blocks4-decode-b8-kv2048.json")));
  CHECK(!s.recorded);
  CHECK(check_trace_shapes(s, decode(8, 2048), "t.json").find("records none") != std::string::npos);
}

TEST_CASE("trace shapes error: another batch", "[validate][errors]") {
  TraceShapes s = read_trace_shapes(
      trace_with_attention({{4, 32, 1, 128}, {4, 8, 2049, 128}, {4, 8, 2049, 128}}));
  require_input_error([&] { check_trace_shapes(s, decode(8, 2048), "t.json"); },
                      {"--batch 8: t.json ran batch 4"});
}

TEST_CASE("trace shapes error: another cache length", "[validate][errors]") {
  TraceShapes s = read_trace_shapes(
      trace_with_attention({{8, 32, 1, 128}, {8, 8, 1025, 128}, {8, 8, 1025, 128}}));
  require_input_error([&] { check_trace_shapes(s, decode(8, 2048), "t.json"); },
                      {"--kv-len 2048: t.json ran over 1024 cached tokens"});
  check_trace_shapes(s, decode(8, 1024), "t.json");
}

TEST_CASE("trace shapes error: a prefill of another length", "[validate][errors]") {
  TraceShapes s = read_trace_shapes(
      trace_with_attention({{1, 32, 1024, 128}, {1, 8, 1024, 128}, {1, 8, 1024, 128}}));
  RunConfig r;
  r.phase = Phase::Prefill;
  r.batch = 1;
  r.seq = 2048;
  require_input_error([&] { check_trace_shapes(s, r, "t.json"); },
                      {"--seq 2048: t.json ran 1024 tokens"});
  r.seq = 1024;
  check_trace_shapes(s, r, "t.json");
}

TEST_CASE("trace shapes error: a prefill trace given as decode", "[validate][errors]") {
  TraceShapes s = read_trace_shapes(
      trace_with_attention({{8, 32, 2048, 128}, {8, 8, 2048, 128}, {8, 8, 2048, 128}}));
  require_input_error([&] { check_trace_shapes(s, decode(8, 2048), "t.json"); },
                      {"--phase decode: t.json ran 2048 queries per sequence, not one"});
}

TEST_CASE("recorded device: a GPU file of one's own claims a card by device_names",
          "[validate][gpu]") {
  nlohmann::json doc = read_json_file(src("hardware/gpus/h200-sxm.json"));
  doc["name"] = "my-h200";
  doc.erase("device_names");
  GpuSpec mine = load_gpu_text(doc.dump(), "my-h200.json");
  require_input_error(
      [&] { check_recorded_gpu(mine, {device_of("NVIDIA H200", "x.json")}, "--gpu my-h200.json"); },
      {"--gpu my-h200.json: x.json (meta/device_name \"NVIDIA H200\") was measured on h200-sxm, "
       "not my-h200 (a GPU file of your own that describes this card says so with "
       "\"device_names\": [\"NVIDIA H200\"])"});
  doc["device_names"] = {"NVIDIA H200"};
  check_recorded_gpu(load_gpu_text(doc.dump(), "my-h200.json"), {device_of("NVIDIA H200")},
                     "--gpu my-h200.json");
}

TEST_CASE("trace error: an event field of the wrong type names the event",
          "[validate][errors][trace]") {
  // Found by fuzz_trace: a "ph" that is not a string ended in an uncaught type_error.
  auto bad_ph = nlohmann::json::parse(R"({"traceEvents": [{"ph": 7, "cat": "kernel"}]})");
  require_input_error([&] { read_trace_kernels(bad_ph, "t.json"); },
                      {"t.json: /traceEvents/0/ph: expected a string"});
  auto bad_ts = nlohmann::json::parse(
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "1", "dur": 2}]})");
  require_input_error([&] { read_trace_kernels(bad_ts, "t.json"); },
                      {"t.json: /traceEvents/0/ts: expected a number of microseconds"});
  auto no_dur = nlohmann::json::parse(
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1}]})");
  require_input_error([&] { read_trace_kernels(no_dur, "t.json"); },
                      {"t.json: /traceEvents/0/dur: missing"});
  auto ok = nlohmann::json::parse(
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2},
                          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": "x"}]})");
  REQUIRE(read_trace_kernels(ok, "t.json").size() == 1);
}
