// Calibration fit: the committed profiles are reproduced from the committed measurements
// (same input, same parameters, same measured figures), only the fit split is used, and planted
// broken measurements are caught; the suite's figures apply to their own GPU only.
#include "calibrate/fit/pipeline.h"
#include "common/json_reader.h"

#include <fstream>
#include "test_helpers.h"

using namespace ridgeline;

namespace {

std::string src(const std::string& rel) {
  return std::string(RIDGELINE_SOURCE_DIR) + "/" + rel;
}

Dataset h100_data() {
  return load_datasets({src("validate/data/h100-sxm-ops-2026-11-29.json"),
                        src("validate/data/h100-sxm-norms-2026-11-29.json")});
}

// The inputs the committed profiles were made from (README, "Calibration").
CalibrationInputs committed_inputs(const std::string& gpu) {
  std::string d = "validate/data/" + gpu;
  CalibrationInputs in;
  in.data = {src(d + "-ops-2026-11-29.json")};
  if (gpu == "h100-sxm") in.data.push_back(src(d + "-norms-2026-11-29.json"));
  if (gpu == "h200-sxm") {
    in.data.push_back(src(d + "-attention-splits-2026-12-01.json"));
    in.data.push_back(src(d + "-strided-2026-12-01.json"));
  }
  in.hardware = {src(d + "-gpubench-2026-11-29.json")};
  in.workloads = {src(d + "-models-2026-11-29.json")};
  return in;
}

void check_reproduced(const std::string& gpu_name, const CalibrationInputs& in,
                      const std::string& profile) {
  GpuSpec start = load_gpu(gpu_name, {}, "none");
  Calibration c = calibrate(start, in);
  CHECK(c.problems.empty());
  nlohmann::ordered_json fitted = profile_json(start, c.parts);
  nlohmann::json committed = read_json_file(src(profile));
  for (auto it = committed["parameters"].begin(); it != committed["parameters"].end(); ++it) {
    INFO(it.key());
    CHECK(fitted["parameters"][it.key()].get<double>() == Approx(it->get<double>()).epsilon(1e-6));
  }
  REQUIRE(committed.contains("measured"));
  for (auto it = committed["measured"].begin(); it != committed["measured"].end(); ++it) {
    INFO(it.key());
    CHECK(fitted["measured"][it.key()]["value"].get<double>() ==
          Approx((*it)["value"].get<double>()).epsilon(1e-9));
  }
  CHECK(c.parts.fit.after.fit_mape <= c.parts.fit.before.fit_mape);
}

}  // namespace

TEST_CASE("calibrate: the committed H100 and H200 profiles are what the fit gives", "[calibrate]") {
  check_reproduced("h100-sxm", committed_inputs("h100-sxm"), "hardware/profiles/h100-sxm.json");
  check_reproduced("h200-sxm", committed_inputs("h200-sxm"), "hardware/profiles/h200-sxm.json");
}

TEST_CASE("calibrate: the profile of one calibrate run is what its file gives", "[calibrate]") {
  CalibrationInputs in;
  in.data = {src("validate/data/h200-sxm-calibration-2026-12-01.json")};
  check_reproduced("h200-sxm", in, "validate/profiles/h200-sxm-from-calibrate-run-2026-12-01.json");
}

TEST_CASE("calibrate: the fit never sees the held-out split", "[calibrate]") {
  GpuSpec start = load_gpu("h100-sxm", {}, "none");
  Dataset d = h100_data();
  Dataset scrambled = d;
  for (auto& m : scrambled.records) {
    if (m.split == "holdout") m.measured_us *= 3;  // nonsense the fit must not react to
  }
  auto a = fit_parameters(start, d, default_knobs(start));
  auto b = fit_parameters(start, scrambled, default_knobs(start));
  for (size_t i = 0; i < a.params.size(); ++i) CHECK(a.params[i].value == b.params[i].value);
}

TEST_CASE("calibrate: a planted broken measurement is caught", "[calibrate]") {
  GpuSpec gpu = load_gpu("h100-sxm");
  Dataset d = h100_data();
  CHECK(suspicious_measurements(gpu, d).empty());
  for (auto& m : d.records) {
    if (m.op.id == "gemm-bf16-8192x8192x8192")
      m.measured_us /= 5;  // faster than the datasheet allows
  }
  auto problems = suspicious_measurements(gpu, d);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("gemm-bf16-8192x8192x8192: faster than the datasheet roofline") !=
        std::string::npos);
}

TEST_CASE("calibrate: profiles apply to their GPU, then to its architecture", "[calibrate]") {
  CHECK(load_gpu("h100-sxm").profile == "hardware/profiles/h100-sxm.json (own)");
  CHECK(load_gpu("h200-sxm").profile == "hardware/profiles/h200-sxm.json (own)");
  CHECK(load_gpu("h100-pcie").profile.find("same architecture") != std::string::npos);
  CHECK(load_gpu("a100-sxm-80gb").profile == "none");
  GpuSpec g = load_gpu("h100-sxm");
  CHECK(g.model.memory.hbm_efficiency.source.kind == SourceKind::Fitted);
  CHECK(load_gpu("h100-sxm", {}, "none").model.memory.hbm_efficiency.source.kind !=
        SourceKind::Fitted);
}

TEST_CASE("calibrate error: a profile for another architecture", "[calibrate][errors]") {
  test::require_input_error(
      [] { load_gpu("a100-sxm-80gb", {}, src("hardware/profiles/h100-sxm.json")); },
      {"/architecture: a hopper profile cannot calibrate a ampere GPU"});
}

namespace {

nlohmann::json h200_suite() {
  return read_json_file(src("validate/data/h200-sxm-gpubench-2026-11-29.json"));
}

nlohmann::json& point(nlohmann::json& doc, const std::string& name) {
  for (auto& b : doc["benchmarks"]) {
    if (b["name"] == name) return b;
  }
  throw std::runtime_error("no point " + name);
}

const MeasuredFigure* figure(const SuiteFigures& f, const std::string& path) {
  for (const auto& m : f.figures) {
    if (m.path == path) return &m;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("calibrate: the suite's raw points become measured hardware figures", "[calibrate]") {
  GpuSpec gpu = load_gpu("h200-sxm", {}, "none");
  SuiteFigures f = suite_figures(h200_suite(), gpu, "h200.json");
  CHECK(f.warnings.empty());
  REQUIRE(figure(f, "memory/hbm/latency_ns"));
  CHECK(figure(f, "memory/hbm/latency_ns")->value == Approx(336.298));
  CHECK(figure(f, "memory/hbm/latency_ns")->previous == Approx(348));
  CHECK(figure(f, "memory/l2/latency_ns")->value == Approx(141.76).epsilon(1e-3));
  // L2 plateau: reads of 2 MiB..30 MiB (half of the 60 MiB L2), not the L1-resident small sets.
  CHECK(figure(f, "memory/l2/bandwidth_GBps")->value == Approx(9346.17).epsilon(1e-4));
  CHECK(figure(f, "launch/stream_us")->value == Approx(3.5416).epsilon(1e-3));
  CHECK(figure(f, "memory/smem_bytes_per_clk_per_sm")->value == Approx(127.31).epsilon(1e-3));
  CHECK(
      figure(f, "memory/hbm/latency_ns")->source.rfind("measured: NVIDIA H200, 2026-11-29: ", 0) ==
      0);
  apply_figures(gpu, f.figures);
  CHECK(gpu.memory.hbm.latency_ns.source.kind == SourceKind::Measured);
  CHECK(suite_checks(h200_suite(), gpu).size() >= 5);
}

TEST_CASE("calibrate: broken suite points are reported", "[calibrate][errors]") {
  GpuSpec gpu = load_gpu("h200-sxm", {}, "none");
  SECTION("a latency 10x off") {
    nlohmann::json doc = h200_suite();
    point(doc, "memory/latency/hbm")["ns"] = 3363.0;
    auto w = suite_figures(doc, gpu, "h200.json").warnings;
    REQUIRE(w.size() == 1);
    CHECK(w[0].find("memory/latency/hbm: memory/hbm/latency_ns measured 3363.000, over 3x") == 0);
  }
  SECTION("a throttled clock") {
    nlohmann::json doc = h200_suite();
    point(doc, "memory/latency/l2")["sm_clock_MHz_measured"] = 1200.0;
    auto w = suite_figures(doc, gpu, "h200.json").warnings;
    REQUIRE(w.size() == 1);
    CHECK(w[0].find("the GPU was throttled") != std::string::npos);
  }
  SECTION("an unfinished run") {
    nlohmann::json doc = h200_suite();
    doc["meta"]["complete"] = false;
    auto w = suite_figures(doc, gpu, "h200.json").warnings;
    REQUIRE(w.size() == 1);
    CHECK(w[0] == "h200.json: the run did not finish (meta.complete is false)");
  }
  SECTION("fields of the wrong type count as absent, never an exception") {
    nlohmann::json doc = h200_suite();
    doc["meta"]["complete"] = "yes";
    doc["meta"]["utc_start"] = 2026;
    doc["meta"]["device"] = "H200";
    point(doc, "memory/latency/l2")["name"] = 7;        // no name: the point is not read
    point(doc, "memory/latency/hbm")["status"] = true;  // no status: not a point that ran
    auto w = suite_figures(doc, gpu, "h200.json").warnings;
    REQUIRE(w.size() == 1);
    CHECK(w[0] == "h200.json: the run did not finish (meta.complete is false)");
    nlohmann::json tool = h200_suite();
    tool["meta"]["tool"] = 1;
    CHECK_FALSE(is_suite_document(tool));
    tool = h200_suite();
    tool["benchmarks"] = "none";
    CHECK(suite_figures(tool, gpu, "h200.json").figures.empty());
  }
  SECTION("not a suite file") {
    test::require_input_error([&] { suite_figures(nlohmann::json::object(), gpu, "x.json"); },
                              {"x.json: not a ridgeline-gpu-bench measurements file"});
    CalibrationInputs in;
    in.data = {src("validate/data/h200-sxm-ops-2026-11-29.json")};
    in.hardware = in.data;
    test::require_input_error([&] { calibrate(gpu, in); },
                              {"h200-sxm-ops-2026-11-29.json: not a ridgeline-gpu-bench"});
  }
}

TEST_CASE("calibrate: another GPU takes only a profile's per-architecture figures", "[calibrate]") {
  GpuSpec own = load_gpu("h200-sxm");
  CHECK(own.memory.hbm.latency_ns.source.kind == SourceKind::Measured);
  CHECK(own.memory.hbm.latency_ns.value == Approx(336.298));
  CHECK(own.memory.l2.bandwidth_GBps.source.kind == SourceKind::Measured);
  // The H100's profile on an H200: fitted parameters and the H100's latencies and launch costs
  // carry over; its L2 bandwidth in GB/s is a figure of the H100's card, not the H200's.
  GpuSpec cross = load_gpu("h200-sxm", {}, src("hardware/profiles/h100-sxm.json"));
  CHECK(cross.memory.hbm.latency_ns.value == Approx(350.959));
  CHECK(cross.memory.hbm.latency_ns.source.text.find("(profile of another GPU)") !=
        std::string::npos);
  CHECK(cross.launch.graph_us.value == Approx(0.7904));
  CHECK(cross.memory.l2.bandwidth_GBps.value == 9800);
  CHECK(cross.memory.l2.bandwidth_GBps.source.kind == SourceKind::Published);
  CHECK(cross.model.memory.hbm_efficiency.source.kind == SourceKind::Fitted);
  GpuSpec pcie = load_gpu("h100-pcie");
  CHECK(pcie.memory.l2.bandwidth_GBps.source.kind != SourceKind::Measured);
  CHECK(pcie.launch.stream_us.source.kind == SourceKind::Measured);
}

TEST_CASE("calibrate: the eager launch fit uses eager runs of the fit split only", "[calibrate]") {
  GpuSpec gpu = load_gpu("h100-sxm");
  WorkloadDataset d = load_workload_dataset(src("validate/data/h100-sxm-models-2026-11-29.json"));
  LaunchFit a = fit_python_eager(gpu, d);
  CHECK(a.value_us > 10);
  CHECK(a.value_us < 40);
  CHECK_FALSE(a.at_bound);
  WorkloadDataset scrambled = d;
  for (auto& m : scrambled.records) {
    if (m.split == "holdout") m.measured_us *= 3;
  }
  CHECK(fit_python_eager(gpu, scrambled).value_us == a.value_us);
  WorkloadDataset graph_only = d;
  std::erase_if(graph_only.records,
                [](const WorkloadMeasurement& m) { return m.run.launch == LaunchMode::Eager; });
  test::require_input_error([&] { fit_python_eager(gpu, graph_only); },
                            {"no eager run in the fit split to fit launch/python_eager_us"});
}

TEST_CASE("calibrate error: a measured figure naming no field", "[calibrate][errors]") {
  nlohmann::json p = read_json_file(src("hardware/profiles/h100-sxm.json"));
  p["measured"]["memory/hbm/latency_us"] = {
      {"value", 1.0}, {"source", "measured: x, 2026-01-01: y"}, {"carries_over", true}};
  std::string path = std::string(RIDGELINE_BINARY_DIR) + "/bad-profile.json";
  std::ofstream(path) << p.dump();
  test::require_input_error(
      [&] { load_gpu("h100-sxm", {}, path); },
      {"/measured/memory/hbm/latency_us: no such field in the GPU description"});
}

TEST_CASE("calibrate: a calibrate-run file holds the suite's points and PyTorch's records",
          "[calibrate]") {
  nlohmann::json doc = h200_suite();
  nlohmann::json torch_run = read_json_file(src("validate/data/h200-sxm-ops-2026-11-29.json"));
  size_t suite_only = parse_dataset(doc, "suite").records.size();
  doc["records"] = torch_run["records"];
  Dataset both = parse_dataset(doc, "run");
  CHECK(both.records.size() == suite_only + parse_dataset(torch_run, "torch").records.size());
  // The suite's one-pass reductions are left out: the model describes torch.sum's kernels.
  bool reduce_skipped = false;
  for (const auto& s : both.skipped)
    reduce_skipped |= s.find("kernels/reduce/sum/2^20: the suite's one-pass reduction") == 0;
  CHECK(reduce_skipped);
}

TEST_CASE("calibrate: a huge spread between samples is caught", "[calibrate][errors]") {
  GpuSpec gpu = load_gpu("h100-sxm");
  Dataset d = h100_data();
  for (auto& m : d.records) {
    if (m.op.id == "gemm-bf16-4096x4096x4096") m.spread = kMaxSpread + 0.1;  // just over
    if (m.op.id == "gemm-bf16-8192x8192x8192") m.spread = kMaxSpread;        // at the limit
  }
  auto problems = suspicious_measurements(gpu, d);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] ==
        "gemm-bf16-4096x4096x4096: its slowest samples (p90) took 1.60x its fastest (p10): a busy "
        "or throttling GPU?");
}

TEST_CASE("calibrate: clocks that moved during a run are reported", "[calibrate][errors]") {
  nlohmann::json doc = read_json_file(src("validate/data/h200-sxm-calibration-2026-12-01.json"));
  std::string path = std::string(RIDGELINE_BINARY_DIR) + "/drifted-run.json";
  CalibrationInputs in;
  in.data = {path};
  GpuSpec start = load_gpu("h200-sxm", {}, "none");
  auto& checks = doc["meta"]["pytorch"]["reference_checks"];
  // 10% apart is still a warm GPU's drift; just over it is not.
  checks.back()["ref-gemm-bf16-4096x4096x4096"] =
      checks.front()["ref-gemm-bf16-4096x4096x4096"].get<double>() * 1.099;
  std::ofstream(path) << doc.dump();
  CHECK(calibrate(start, in).problems.empty());
  checks.back()["ref-gemm-bf16-4096x4096x4096"] =
      checks.front()["ref-gemm-bf16-4096x4096x4096"].get<double>() * 1.11;
  std::ofstream(path) << doc.dump();
  auto problems = calibrate(start, in).problems;
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("drifted-run.json: the reference 4096^3 GEMM took 205 to 228 us during "
                         "the run: clocks throttled or the GPU was shared") != std::string::npos);
}
