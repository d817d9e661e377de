// Parsing one complete GPU document (its "model" object already merged over the architecture's
// defaults) into a GpuSpec, and the checks that tie its figures together: every unit's stated
// datasheet peak must equal SMs x ops/clk/SM x clock, caches must be smaller than what they
// cache, knees must be ordered. Staging (presets, architecture defaults, what-ifs) is in
// gpu_load.cpp.
#include "hardware/gpu_spec.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "common/name_table.h"
#include "hardware/derived.h"
#include "hardware/gpu_parse.h"

#include <cmath>
#include <cstdio>

namespace ridgeline {

const char* profile_kind_name(ProfileKind k) {
  switch (k) {
    case ProfileKind::Own:
      return "own";
    case ProfileKind::Architecture:
      return "architecture";
    case ProfileKind::None:
      return "none";
  }
  return "none";
}

const char* math_unit_key(MathUnit u) {
  static const NameTable<MathUnit> keys = {
      {MathUnit::TensorTf32, "tf32"}, {MathUnit::TensorBf16, "bf16"},
      {MathUnit::TensorFp16, "fp16"}, {MathUnit::TensorFp8, "fp8"},
      {MathUnit::TensorFp4, "fp4"},   {MathUnit::TensorInt8, "int8"},
      {MathUnit::VectorFp32, "fp32"}, {MathUnit::VectorFp64, "fp64"}};
  return keys.name(u);
}

bool is_tensor_unit(MathUnit u) {
  return u != MathUnit::VectorFp32 && u != MathUnit::VectorFp64;
}

// Reads {"value": x, "source": "..."} at `path` below `root`.
void read_fact(JsonReader& root, const std::string& path, FieldRule rule, Fact& out) {
  JsonReader& r = root.descend(path);
  switch (rule) {
    case FieldRule::Positive:
      out.value = r.positive("value");
      break;
    case FieldRule::PositiveInteger:
      out.value = (double)r.integer("value", 1);
      break;
    case FieldRule::NonNegative:
      out.value = r.non_negative("value");
      break;
    case FieldRule::Fraction:
      out.value = r.fraction("value");
      break;
  }
  std::string error = parse_provenance(r.string("source"), out.source);
  if (!error.empty()) r.fail("source", error);
}

namespace {

void read_unit_table(JsonReader& table, bool tensor,
                     std::array<std::optional<Fact>, kMathUnitCount>& out) {
  for (const auto& key : table.keys()) {
    bool known = false;
    for (MathUnit u : kAllMathUnits) {
      if (key != math_unit_key(u)) continue;
      if (is_tensor_unit(u) != tensor) break;
      Fact f;
      read_fact(table, key, FieldRule::Positive, f);
      out[(int)u] = f;
      known = true;
    }
    if (!known) {
      table.fail(key, tensor ? "unknown tensor dtype; expected tf32, bf16, fp16, fp8, fp4 or int8"
                             : "unknown vector dtype; expected fp32 or fp64");
    }
  }
}

void read_stated_peaks(JsonReader& table, ComputeSpec& c) {
  for (const auto& key : table.keys()) {
    bool known = false;
    for (MathUnit u : kAllMathUnits) {
      if (key != math_unit_key(u)) continue;
      Fact f;
      read_fact(table, key, FieldRule::Positive, f);
      c.stated_peak_tflops[(int)u] = f;
      known = true;
    }
    if (!known) table.fail(key, "unknown dtype");
  }
}

void read_tiles(JsonReader& gemm, ModelParams& p) {
  JsonReader& t = gemm.child("tiles");
  std::string error = parse_provenance(t.string("source"), p.gemm.tiles_source);
  if (!error.empty()) t.fail("source", error);
  p.gemm.tiles.clear();
  for (auto& tile : t.array_of_objects("shapes")) {
    GemmTile g;
    g.m = (int)tile.integer("m", 1);
    g.n = (int)tile.integer("n", 1);
    g.efficiency = tile.fraction("efficiency");
    tile.finish();
    p.gemm.tiles.push_back(g);
  }
  if (p.gemm.tiles.empty()) t.fail("shapes", "at least one tile shape is needed");
}

void check_consistency(JsonReader& r, const GpuSpec& s) {
  const auto& c = s.compute;
  for (MathUnit u : kAllMathUnits) {
    const auto& ops = c.ops_per_clk_per_sm[(int)u];
    const auto& stated = c.stated_peak_tflops[(int)u];
    std::string key = math_unit_key(u);
    if (ops && !stated) {
      r.fail_at("compute/stated_peak_tflops",
                "no stated peak for " + key + ", so its ops/clk cannot be checked");
    }
    if (stated && !ops) {
      r.fail_at("compute/stated_peak_tflops/" + key,
                "a stated peak for " + key + " but no ops_per_clk_per_sm for it");
    }
    if (!ops) continue;
    double derived = peak_tflops(s, u);
    if (std::fabs(derived / stated->value - 1.0) > kPeakTolerance) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "stated %.1f TFLOPS, but %d SMs x %.0f ops/clk x %.0f MHz = %.1f TFLOPS "
                    "(more than %.0f%% apart)",
                    stated->value, (int)c.sm_count.value, ops->value, clock_MHz(s, u), derived,
                    kPeakTolerance * 100);
      r.fail_at("compute/stated_peak_tflops/" + key + "/value", buf);
    }
  }
  if (!c.ops_per_clk_per_sm[(int)MathUnit::VectorFp32]) {
    r.fail_at("compute/vector_ops_per_clk_per_sm",
              "fp32 is required (elementwise kernels run on it)");
  }
  if (c.max_smem_per_sm_bytes.value > c.l1_smem_per_sm_bytes.value) {
    r.fail_at("compute/max_smem_per_sm_bytes/value", "larger than l1_smem_per_sm_bytes");
  }
  if (s.memory.l2.capacity_bytes.value >= s.memory.hbm.capacity_bytes.value) {
    r.fail_at("memory/l2/capacity_bytes/value", "L2 must be smaller than device memory");
  }
  if (s.memory.l2.bandwidth_GBps.value <= s.memory.hbm.bandwidth_GBps.value) {
    r.fail_at("memory/l2/bandwidth_GBps/value", "L2 bandwidth must exceed device-memory bandwidth");
  }
  const auto& mm = s.model.memory;
  if (mm.l2_knee_start_fraction.value >= mm.l2_knee_end_fraction.value) {
    r.fail_at("model/memory/l2_knee_end_fraction/value",
              "must be larger than l2_knee_start_fraction");
  }
}

}  // namespace

void parse_model_params(JsonReader& model, ModelParams& p) {
  visit_model_fields(
      p, [&](const char* path, Fact& f, FieldRule rule) { read_fact(model, path, rule, f); });
  read_tiles(model.child("gemm"), p);
}

namespace {

// "device_names": what the driver calls the card (optional; data files are matched by it).
void read_device_names(JsonReader& r, GpuSpec& s) {
  if (!r.has("device_names")) return;
  const nlohmann::json& names = r.raw("device_names");
  if (!names.is_array()) r.fail("device_names", "expected an array of strings");
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i].is_string() || names[i].get<std::string>().empty())
      r.fail("device_names/" + std::to_string(i), "expected a non-empty string");
    s.device_names.push_back(names[i].get<std::string>());
  }
}

}  // namespace

GpuSpec parse_gpu_document(const nlohmann::json& doc, const std::string& label,
                           bool check_figures) {
  JsonReader r(doc, label);
  GpuSpec s;
  s.file = label;
  s.name = r.string("name");
  if (s.name.empty()) r.fail("name", "must not be empty");
  s.full_name = r.string("full_name");
  s.vendor = r.one_of("vendor", {"nvidia", "amd"});
  s.architecture = r.string("architecture");
  read_device_names(r, s);
  visit_fields(s, [&](const char* path, Fact& f, FieldRule rule) { read_fact(r, path, rule, f); });
  read_unit_table(r.descend("compute/tensor_ops_per_clk_per_sm"), true,
                  s.compute.ops_per_clk_per_sm);
  read_unit_table(r.descend("compute/vector_ops_per_clk_per_sm"), false,
                  s.compute.ops_per_clk_per_sm);
  read_stated_peaks(r.descend("compute/stated_peak_tflops"), s.compute);
  parse_model_params(r.child("model"), s.model);
  r.finish();
  if (check_figures) check_consistency(r, s);
  return s;
}

}  // namespace ridgeline
