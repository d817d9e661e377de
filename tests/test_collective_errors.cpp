// One test per error message of the collective model and the cluster files: each names the op
// field or the file and JSON path.
#include "test_helpers.h"

#include "calibrate/fit/collective_fit.h"
#include "common/embedded_files.h"
#include "hardware/cluster_spec.h"
#include "model/collective_cost.h"
#include "model/node_cost.h"
#include "validate/collective_dataset.h"

#include <cstdio>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

nlohmann::json doc(const std::string& name) {
  for (const auto& f : embedded_files())
    if (f.path == "hardware/clusters/" + name + ".json") return nlohmann::json::parse(f.text);
  FAIL("cluster not embedded");
  return {};
}

ClusterSpec load(const nlohmann::json& d) {
  return load_cluster_text(d.dump(), "my-cluster.json");
}

const ClusterSpec& h100() {
  static const ClusterSpec c = load_cluster("dgx-h100");
  return c;
}

CollectiveOp op(CollectiveKind k, double bytes, int ranks, int per_node = 0) {
  return CollectiveOp{k, bytes, ranks, per_node, DType::Bf16};
}

}  // namespace

TEST_CASE("collective error: ranks below 1", "[collective][errors]") {
  require_input_error([] { collective_cost(op(CollectiveKind::AllReduce, 1, 0), h100()); },
                      {"all_reduce on dgx-h100: ranks: must be at least 1, got 0"});
}

TEST_CASE("collective error: negative bytes", "[collective][errors]") {
  require_input_error([] { collective_cost(op(CollectiveKind::AllReduce, -1, 8), h100()); },
                      {"bytes: must be a finite number >= 0, got -1"});
}

TEST_CASE("collective error: send_recv between other than 2 ranks", "[collective][errors]") {
  require_input_error([] { collective_cost(op(CollectiveKind::SendRecv, 1, 4), h100()); },
                      {"send_recv on dgx-h100: ranks: a send_recv is between 2 ranks, got 4"});
}

TEST_CASE("collective error: negative ranks_per_node", "[collective][errors]") {
  require_input_error([] { collective_cost(op(CollectiveKind::AllReduce, 1, 8, -2), h100()); },
                      {"ranks_per_node: must be at least 1 (0: fill nodes), got -2"});
}

TEST_CASE("collective error: more ranks per node than the node has", "[collective][errors]") {
  require_input_error([] { collective_cost(op(CollectiveKind::AllReduce, 1, 16, 16), h100()); },
                      {"ranks_per_node: 16 exceeds the cluster's 8 GPUs per node"});
}

TEST_CASE("collective error: ranks per node not dividing ranks", "[collective][errors]") {
  require_input_error([] { collective_cost(op(CollectiveKind::AllReduce, 1, 12), h100()); },
                      {"ranks_per_node: 8 does not divide ranks 12"});
}

TEST_CASE("collective error: more GPUs than the cluster has", "[collective][errors]") {
  require_input_error(
      [] { collective_cost(op(CollectiveKind::AllReduce, 1, 2048), h100()); },
      {"ranks: 2048 GPUs at 8 per node need 256 nodes; the cluster has at most 128 (1024 GPUs)"});
}

TEST_CASE("collective error: predict_op needs a cluster", "[collective][errors]") {
  Op o{"tp-ar", op(CollectiveKind::AllReduce, 1, 8), false};
  require_input_error([&] { predict_op(o, test::h100()); },
                      {"tp-ar: a collective needs a cluster"});
}

TEST_CASE("cluster error: unknown preset", "[collective][errors]") {
  require_input_error([] { load_cluster("dgx-h900"); },
                      {"--cluster: unknown cluster \"dgx-h900\"; presets: dgx-a100"});
}

TEST_CASE("cluster error: unknown key", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["scale_out"]["nic_Gbs"] = {{"value", 400}, {"source", "assumed: typo"}};
  require_input_error([&] { load(d); }, {"my-cluster.json: /scale_out/nic_Gbs: unknown key"});
}

TEST_CASE("cluster error: unknown collective_model key", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["collective_model"]["ring_chanels"] = {{"value", 4}, {"source", "assumed: typo"}};
  require_input_error([&] { load(d); }, {"my-cluster.json: /collective_model/ring_chanels"});
}

TEST_CASE("cluster error: missing gpu", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d.erase("gpu");
  require_input_error([&] { load(d); }, {"my-cluster.json: /gpu: missing"});
}

TEST_CASE("cluster error: a GPU without collective defaults", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["gpu"] = "mi300x";
  require_input_error([&] { load(d); },
                      {"my-cluster.json: /gpu: no collective-model defaults for architecture "
                       "\"cdna3\""});
}

TEST_CASE("cluster error: bad scale-up kind", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["scale_up"]["kind"] = "infinity-fabric";
  require_input_error([&] { load(d); }, {"my-cluster.json: /scale_up/kind"});
}

TEST_CASE("cluster error: a figure without provenance", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["scale_out"]["nic_Gbps"]["source"] = "fast";
  require_input_error([&] { load(d); }, {"my-cluster.json: /scale_out/nic_Gbps/source"});
}

TEST_CASE("cluster error: channels exceed the NVLink bandwidth", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["collective_model"]["channel_GBps"] = {{"value", 40}, {"source", "assumed: test"}};
  require_input_error([&] { load(d); },
                      {"my-cluster.json: /collective_model/channel_GBps/value: 12 channels x 40 "
                       "GB/s = 480 GB/s exceeds the GPU's NVLink"});
}

TEST_CASE("cluster error: NVLS enabled without NVLink SHARP", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["scale_up"]["nvls_available"] = false;
  require_input_error([&] { load(d); },
                      {"my-cluster.json: /collective_model/nvls_enabled: true, but the fabric has "
                       "no NVLink SHARP"});
}

TEST_CASE("cluster error: NVLink SHARP without an NVSwitch", "[collective][errors]") {
  auto d = doc("h100-pcie-8");
  d["scale_up"]["nvls_available"] = true;
  require_input_error([&] { load(d); },
                      {"my-cluster.json: /scale_up/nvls_available: NVLink SHARP needs an "
                       "NVSwitch fabric"});
}

TEST_CASE("cluster error: NVLink domain larger than the node", "[collective][errors]") {
  auto d = doc("h100-pcie-8");
  d["scale_up"]["domain_gpus"]["value"] = 16;
  require_input_error([&] { load(d); },
                      {"my-cluster.json: /scale_up/domain_gpus/value: larger than gpus_per_node"});
}

TEST_CASE("cluster error: an NVSwitch that joins part of the node", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["scale_up"]["domain_gpus"]["value"] = 4;
  require_input_error([&] { load(d); },
                      {"/scale_up/domain_gpus/value: an NVSwitch joins every GPU of the node"});
}

TEST_CASE("cluster error: an NVSwitch without links", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["scale_up"]["links_per_gpu"]["value"] = 0;
  require_input_error([&] { load(d); },
                      {"/scale_up/links_per_gpu/value: an NVSwitch fabric needs NVLink links"});
}

TEST_CASE("cluster error: no scale-up with several GPUs per node", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["scale_up"]["kind"] = "none";
  require_input_error([&] { load(d); }, {"/scale_up/kind: \"none\" needs gpus_per_node 1"});
}

TEST_CASE("cluster error: several nodes without NICs", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["scale_out"]["nics_per_node"]["value"] = 0;
  require_input_error([&] { load(d); },
                      {"/scale_out/nics_per_node/value: several nodes need NICs with a line rate"});
}

TEST_CASE("cluster error: hierarchical overlap above 1", "[collective][errors]") {
  auto d = doc("dgx-h100");
  d["collective_model"]["hierarchical_overlap"] = {{"value", 1.5}, {"source", "assumed: test"}};
  require_input_error([&] { load(d); },
                      {"/collective_model/hierarchical_overlap/value: must be between 0 and 1"});
}

TEST_CASE("cluster error: not an object", "[collective][errors]") {
  require_input_error([] { load_cluster_text("[1]", "my-cluster.json"); },
                      {"my-cluster.json: /: expected an object"});
}

TEST_CASE("collective error: a graph's collective without a cluster", "[collective][errors]") {
  GpuSpec g = test::h100();
  Op o{"dp-ar", op(CollectiveKind::AllReduce, 1, 8), false};
  require_input_error([&] { predict_op(o, g); }, {"dp-ar: a collective needs a cluster"});
}

namespace {

// A one-row data set file whose row the test may spoil.
std::string dataset_file(const std::function<void(nlohmann::json&)>& spoil) {
  nlohmann::json row = {{"id", ""},         {"split", ""},
                        {"split_key", "k"}, {"cluster", "dgx-h100"},
                        {"gpu", "H100"},    {"gpus", 8},
                        {"nodes", 1},       {"collective", "all_reduce"},
                        {"dtype", "bf16"},  {"message_bytes", 1048576},
                        {"time_us", 30},    {"nccl_version", "2.29"},
                        {"system", "s"},    {"tool", "t"},
                        {"source", "test"}};
  char hex[17];
  uint64_t h = fnv1a64("k");
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
  row["id"] = hex;
  row["split"] = h % 5 == 0 ? "holdout" : "fit";
  spoil(row);
  std::string path = std::string(RIDGELINE_BINARY_DIR) + "/collective-test-data.json";
  std::ofstream(path) << nlohmann::json{{"meta", {}}, {"rows", {row}}}.dump();
  return path;
}

}  // namespace

TEST_CASE("collective data error: an id that is not the row's hash", "[collective][errors]") {
  std::string f = dataset_file([](nlohmann::json& r) { r["id"] = "0000000000000000"; });
  require_input_error([&] { load_collective_dataset(f); },
                      {"/rows/0/id: is not the FNV-1a 64 hash of split_key"});
}

TEST_CASE("collective data error: a row moved to the other split", "[collective][errors]") {
  std::string f =
      dataset_file([](nlohmann::json& r) { r["split"] = r["split"] == "fit" ? "holdout" : "fit"; });
  require_input_error([&] { load_collective_dataset(f); },
                      {"/rows/0/split: disagrees with the hash of split_key"});
}

TEST_CASE("collective data error: nodes not dividing gpus", "[collective][errors]") {
  std::string f = dataset_file([](nlohmann::json& r) { r["nodes"] = 3; });
  require_input_error([&] { load_collective_dataset(f); }, {"/rows/0/nodes: does not divide gpus"});
}

TEST_CASE("collective fit error: no fit rows on the cluster", "[collective][errors]") {
  std::string f = dataset_file([](nlohmann::json&) {});
  CollectiveDataset d = load_collective_dataset(f);
  for (auto& r : d.rows) r.split = "holdout";
  require_input_error([&] { fit_collectives(d, h100()); },
                      {"no fit-split rows measured on cluster \"dgx-h100\""});
}

TEST_CASE("the collective fit never reads held-out rows", "[collective]") {
  CollectiveDataset d = load_collective_dataset(std::string(RIDGELINE_SOURCE_DIR) +
                                                "/validate/data/published-collectives.json");
  ClusterSpec a100 = load_cluster("dgx-a100");
  CollectiveFit clean = fit_collectives(d, a100);
  for (auto& r : d.rows)
    if (r.split == "holdout") r.measured_us *= 100;  // absurd held-out times change nothing
  CollectiveFit spoiled = fit_collectives(d, a100);
  REQUIRE(clean.parameters.size() == spoiled.parameters.size());
  for (size_t i = 0; i < clean.parameters.size(); ++i)
    CHECK(clean.parameters[i].after == spoiled.parameters[i].after);
  CHECK(clean.mape_after < 0.10);  // fit split, all sizes
}
