// Views of hardware descriptions: `ridgeline gpus` (one line per preset) and
// `ridgeline gpus show NAME` (every figure with its provenance, then derived peaks and ridge
// points per dtype, then the model's parameters).
#include "cli/views/views.h"
#include "hardware/derived.h"

#include <iomanip>

namespace ridgeline {

namespace {

void fact_line(std::ostream& os, const std::string& path, const Fact& f) {
  os << "  " << std::left << std::setw(44) << path << std::right << std::setw(16)
     << fixed(f.value, f.value == (long long)f.value ? 0 : 3) << "   " << to_string(f.source)
     << "\n";
}

void unit_table(std::ostream& os, const GpuSpec& g) {
  os << "\nPer dtype (dense)            ops/clk/SM   clock MHz   derived TFLOPS   stated   ridge "
        "FLOP/B\n";
  for (MathUnit u : kAllMathUnits) {
    if (!has_unit(g, u)) continue;
    const auto& ops = *g.compute.ops_per_clk_per_sm[(int)u];
    const auto& stated = *g.compute.stated_peak_tflops[(int)u];
    os << "  " << std::left << std::setw(26)
       << (std::string(is_tensor_unit(u) ? "tensor " : "vector ") + math_unit_key(u)) << std::right
       << std::setw(12) << fixed(ops.value, 0) << std::setw(12) << fixed(clock_MHz(g, u), 0)
       << std::setw(17) << fixed(peak_tflops(g, u), 1) << std::setw(9) << fixed(stated.value, 1)
       << std::setw(15) << fixed(ridge_flop_per_byte(g, u), 1) << "\n";
  }
  // A stated peak a what-if moved (or set) says so; datasheet peaks need no note.
  for (MathUnit u : kAllMathUnits) {
    const auto& stated = g.compute.stated_peak_tflops[(int)u];
    if (has_unit(g, u) && stated->source.kind == SourceKind::WhatIf)
      os << "  stated " << math_unit_key(u) << " " << fixed(stated->value, 1) << ": "
         << to_string(stated->source) << "\n";
  }
}

std::string calibration_text(const GpuSpec& g, const GpuCalibration& c) {
  if (c.kind == "own") return "own";
  if (c.kind == "architecture") return g.architecture + ": " + c.profile_gpu;
  return "none";
}

}  // namespace

void print_gpu_list(std::ostream& os, const std::vector<GpuSpec>& gpus,
                    const std::vector<GpuCalibration>& calibrations) {
  os << std::left << std::setw(16) << "name" << std::setw(30) << "GPU" << std::setw(12) << "arch"
     << std::right << std::setw(6) << "SMs" << std::setw(11) << "bf16 TF" << std::setw(10)
     << "fp8 TF" << std::setw(11) << "HBM GB/s" << std::setw(9) << "mem GB" << std::setw(9)
     << "L2 MB"
     << "   calibrated\n";
  for (size_t i = 0; i < gpus.size(); ++i) {
    const GpuSpec& g = gpus[i];
    os << std::left << std::setw(16) << g.name << std::setw(30) << g.full_name.substr(0, 29)
       << std::setw(12) << g.architecture << std::right << std::setw(6)
       << fixed(g.compute.sm_count.value, 0) << std::setw(11)
       << fixed(peak_tflops(g, MathUnit::TensorBf16), 1) << std::setw(10)
       << (has_unit(g, MathUnit::TensorFp8) ? fixed(peak_tflops(g, MathUnit::TensorFp8), 1)
                                            : std::string("-"))
       << std::setw(11) << fixed(g.memory.hbm.bandwidth_GBps.value, 0) << std::setw(9)
       << fixed(g.memory.hbm.capacity_bytes.value / 1e9, 1) << std::setw(9)
       << fixed(g.memory.l2.capacity_bytes.value / 1048576.0, 1) << "   "
       << calibration_text(g, calibrations[i]) << "\n";
  }
}

nlohmann::ordered_json gpu_list_json(const std::vector<GpuSpec>& gpus,
                                     const std::vector<GpuCalibration>& calibrations) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < gpus.size(); ++i) {
    const GpuSpec& g = gpus[i];
    const GpuCalibration& c = calibrations[i];
    nlohmann::ordered_json j;
    j["name"] = g.name;
    j["full_name"] = g.full_name;
    j["architecture"] = g.architecture;
    j["sm_count"] = (int64_t)g.compute.sm_count.value;
    j["bf16_tflops"] = peak_tflops(g, MathUnit::TensorBf16);
    j["fp8_tflops"] = has_unit(g, MathUnit::TensorFp8)
                          ? nlohmann::ordered_json(peak_tflops(g, MathUnit::TensorFp8))
                          : nlohmann::ordered_json(nullptr);
    j["hbm_bandwidth_GBps"] = g.memory.hbm.bandwidth_GBps.value;
    j["hbm_capacity_bytes"] = (int64_t)g.memory.hbm.capacity_bytes.value;
    j["l2_capacity_bytes"] = (int64_t)g.memory.l2.capacity_bytes.value;
    j["calibrated"] = {
        {"kind", c.kind}, {"profile_gpu", c.profile_gpu}, {"profile_file", c.profile_file}};
    out.push_back(j);
  }
  return out;
}

void print_gpu_show(std::ostream& os, const GpuSpec& g) {
  os << g.name << ": " << g.full_name << " (" << g.vendor << ", " << g.architecture << ")\nfrom "
     << g.file << "\n";
  os << "calibrated profile: " << g.profile << "\n";
  for (const auto& w : what_if_labels(g)) os << "what-if: --set " << w << "\n";
  os << "\nFigures\n";
  visit_fields(g, [&](const char* path, const Fact& f, FieldRule) { fact_line(os, path, f); });
  unit_table(os, g);
  os << "\nModel parameters (defaults from hardware/arch/" << g.architecture
     << ".json unless the GPU overrides)\n";
  visit_model_fields(g.model, [&](const char* path, const Fact& f, FieldRule) {
    fact_line(os, std::string("model/") + path, f);
  });
  os << "  model/gemm/tiles (" << to_string(g.model.gemm.tiles_source) << ")\n   ";
  for (const auto& t : g.model.gemm.tiles)
    os << " " << t.m << "x" << t.n << "@" << fixed(t.efficiency, 2);
  os << "\n";
}

nlohmann::json gpu_json(const GpuSpec& g) {
  nlohmann::json j;
  j["name"] = g.name;
  j["full_name"] = g.full_name;
  j["vendor"] = g.vendor;
  j["architecture"] = g.architecture;
  j["file"] = g.file;
  j["what_ifs"] = what_if_labels(g);
  j["profile"] = g.profile;
  auto put = [&](const std::string& path, const Fact& f) {
    j["figures"][path] = {{"value", f.value}, {"source", to_string(f.source)}};
  };
  visit_fields(g, [&](const char* path, const Fact& f, FieldRule) { put(path, f); });
  visit_model_fields(g.model, [&](const char* path, const Fact& f, FieldRule) {
    put(std::string("model/") + path, f);
  });
  for (MathUnit u : kAllMathUnits) {
    if (!has_unit(g, u)) continue;
    j["peaks"][math_unit_key(u)] = {
        {"ops_per_clk_per_sm", g.compute.ops_per_clk_per_sm[(int)u]->value},
        {"derived_tflops", peak_tflops(g, u)},
        {"stated_tflops", g.compute.stated_peak_tflops[(int)u]->value},
        {"ridge_flop_per_byte", ridge_flop_per_byte(g, u)}};
  }
  return j;
}

}  // namespace ridgeline
