// Measured hardware figures and cross-checks from a ridgeline-gpu-bench file; see suite_figures.h.
#include "calibrate/fit/suite_figures.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/derived.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ridgeline {

namespace {

using json = nlohmann::json;

// The suite's points by name, only those that ran ("status": "ok").
std::map<std::string, const json*> ok_points(const json& doc) {
  std::map<std::string, const json*> out;
  const json& benchmarks = doc.at("benchmarks");
  if (!benchmarks.is_array()) return out;
  for (const auto& b : benchmarks) {
    if (string_or(b, "status") == "ok" && !string_or(b, "name").empty())
      out[string_or(b, "name")] = &b;
  }
  return out;
}

double number(const json& point, const char* key) {
  auto it = point.find(key);
  return it != point.end() && it->is_number() ? it->get<double>() : NAN;
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string fmt(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

struct Context {
  const GpuSpec& gpu;
  std::string device, date, label;
  SuiteFigures out;

  // A figure replaces the description's value; one more than 3x away from it looks broken.
  void figure(const std::string& path, double value, const std::string& bench,
              const std::string& how, bool carries_over = true) {
    if (!std::isfinite(value) || value <= 0) {
      out.warnings.push_back(bench + ": no usable value for " + path);
      return;
    }
    double previous = find_field(gpu, path)->value;
    out.figures.push_back(
        {path, value, previous, bench,
         "measured: " + device + ", " + date + ": ridgeline-gpu-bench " + how + " (" + label + ")",
         carries_over});
    if (value > 3 * previous || value < previous / 3) {
      out.warnings.push_back(bench + ": " + path + " measured " + fmt(value, 3) +
                             ", over 3x from " + fmt(previous, 3) +
                             " in the description: a broken measurement?");
    }
  }
};

void latency_figures(Context& c, const std::map<std::string, const json*>& pts) {
  for (const auto& [level, path] :
       {std::pair<std::string, std::string>{"hbm", "memory/hbm/latency_ns"},
        {"l2", "memory/l2/latency_ns"}}) {
    auto it = pts.find("memory/latency/" + level);
    if (it == pts.end()) continue;
    const json& p = *it->second;
    double clock = number(p, "sm_clock_MHz_measured");
    if (std::isfinite(clock) && clock < 0.9 * c.gpu.compute.max_clock_MHz.value) {
      c.out.warnings.push_back(
          it->first + ": the SM clock ran at " + fmt(clock, 0) + " MHz, under 90% of its " +
          fmt(c.gpu.compute.max_clock_MHz.value, 0) + " MHz boost: the GPU was throttled");
    }
    c.figure(path, number(p, "ns"), it->first,
             it->first + ", pointer chase over " +
                 fmt(number(p, "working_set_bytes") / (1 << 20), 0) + " MiB, stride " +
                 fmt(number(p, "stride_bytes"), 0) + " B");
  }
}

// L2 bandwidth: the plateau of reads whose working set fits L2 with room to spare but not L1
// (2 MiB up to half of L2), median over those points.
void l2_bandwidth_figure(Context& c, const std::map<std::string, const json*>& pts) {
  std::vector<double> gbps;
  double l2 = c.gpu.memory.l2.capacity_bytes.value;
  for (const auto& [name, p] : pts) {
    if (name.rfind("memory/working_set_read/", 0) != 0) continue;
    double ws = number(*p, "working_set_bytes");
    if (ws >= 2.0 * (1 << 20) && ws <= 0.5 * l2) gbps.push_back(number(*p, "GBps"));
  }
  if (gbps.empty()) return;
  c.figure("memory/l2/bandwidth_GBps", median(gbps), "memory/working_set_read/*",
           "median read bandwidth of " + std::to_string(gbps.size()) +
               " working sets from 2 MiB to half of L2",
           false);  // scales with the card's SMs and clock
}

void other_figures(Context& c, const std::map<std::string, const json*>& pts) {
  if (auto it = pts.find("memory/smem_bandwidth/b128"); it != pts.end()) {
    c.figure("memory/smem_bytes_per_clk_per_sm",
             number(*it->second, "bytes_per_clk_per_sm_measured_clock"), it->first,
             it->first + ", 16-byte shared-memory loads, bytes per clock at the measured clock");
  }
  if (auto it = pts.find("launch/empty/graph_1000"); it != pts.end()) {
    c.figure("launch/graph_us", number(*it->second, "median_us"), it->first,
             it->first + ", per empty kernel when a CUDA graph of 1000 is replayed");
  }
  if (auto it = pts.find("launch/empty/back_to_back"); it != pts.end()) {
    c.figure("launch/stream_us", number(*it->second, "median_us"), it->first,
             it->first + ", empty kernels launched one by one on a stream");
  }
}

std::vector<CrossCheck> cross_checks(const GpuSpec& g,
                                     const std::map<std::string, const json*>& pts) {
  std::vector<CrossCheck> out;
  auto check = [&](const std::string& what, double measured, double model, const std::string& unit,
                   const std::string& model_is) {
    if (std::isfinite(measured) && std::isfinite(model))
      out.push_back({what, measured, model, unit, model_is});
  };
  double hbm = g.memory.hbm.bandwidth_GBps.value;
  std::string eff = "model/memory/hbm_efficiency";
  for (const char* kind : {"read", "write", "copy"}) {
    auto it = pts.find(std::string("memory/hbm_") + kind);
    if (it != pts.end())
      check(std::string("HBM ") + kind + " bandwidth / datasheet",
            number(*it->second, "GBps") / hbm, g.model.memory.hbm_efficiency.value, "fraction",
            eff);
  }
  if (auto it = pts.find("compute/fp32_fma"); it != pts.end()) {
    const auto& ops = g.compute.ops_per_clk_per_sm[(int)MathUnit::VectorFp32];
    if (ops)
      check("FP32 FMA throughput", number(*it->second, "flops_per_clk_per_sm_measured_clock"),
            ops->value, "FLOP/clk/SM", "compute/ops_per_clk_per_sm/fp32");
  }
  for (MathUnit u :
       {MathUnit::TensorBf16, MathUnit::TensorFp16, MathUnit::TensorTf32, MathUnit::TensorFp8}) {
    double best = NAN;
    std::string prefix = std::string("gemm/") + math_unit_key(u) + "/";
    for (const auto& [name, p] : pts) {
      if (name.rfind(prefix, 0) == 0) best = std::fmax(best, number(*p, "tflops"));
    }
    if (!has_unit(g, u)) continue;
    check(std::string("best ") + math_unit_key(u) + " cuBLASLt GEMM", best, peak_tflops(g, u),
          "TFLOP/s", "dense tensor peak at the tensor clock");
  }
  return out;
}

}  // namespace

bool is_suite_document(const json& doc) {
  return doc.is_object() && doc.contains("benchmarks") && doc.contains("meta") &&
         string_or(doc["meta"], "tool") == "ridgeline-gpu-bench";
}

SuiteFigures suite_figures(const json& doc, const GpuSpec& gpu, const std::string& label) {
  if (!is_suite_document(doc))
    throw InputError(label + ": not a ridgeline-gpu-bench measurements file");
  const json& meta = doc["meta"];
  Context c{gpu, "unknown device", "date unknown", label, {}};
  if (meta.contains("device")) c.device = string_or(meta["device"], "name", c.device);
  std::string start = string_or(meta, "utc_start");
  if (start.size() >= 10) c.date = start.substr(0, 10);
  if (!(meta.contains("complete") && meta["complete"].is_boolean() && meta["complete"].get<bool>()))
    c.out.warnings.push_back(label + ": the run did not finish (meta.complete is false)");
  auto pts = ok_points(doc);
  latency_figures(c, pts);
  l2_bandwidth_figure(c, pts);
  other_figures(c, pts);
  return c.out;
}

std::vector<CrossCheck> suite_checks(const json& doc, const GpuSpec& gpu) {
  return cross_checks(gpu, ok_points(doc));
}

void apply_figures(GpuSpec& gpu, const std::vector<MeasuredFigure>& figures) {
  for (const auto& f : figures) {
    Fact* fact = find_field(gpu, f.path);
    require_invariant(fact != nullptr, "measured figure names a field of the GPU description");
    fact->value = f.value;
    std::string error = parse_provenance(f.source, fact->source);
    require_invariant(error.empty(), "measured figure has a valid provenance");
  }
}

}  // namespace ridgeline
