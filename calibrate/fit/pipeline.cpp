// The calibration steps in order; see pipeline.h.
#include "calibrate/fit/pipeline.h"

#include "common/errors.h"
#include "common/json_reader.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

using Documents = std::vector<std::pair<std::string, nlohmann::json>>;

std::string join(const std::vector<std::string>& v) {
  std::string list;
  for (const auto& f : v) list += (list.empty() ? "" : ", ") + f;
  return list;
}

std::string provenance_of(const Dataset& d, const CalibrationInputs& in) {
  std::string device = string_or(d.meta, "device_name", "unknown device");
  std::string date = string_or(d.meta, "utc_start").substr(0, 10);
  return "fitted: " + device + ", " + (date.empty() ? "date unknown" : date) +
         ": ridgeline calibrate fit over the fit split of " + join(in.data) +
         (in.workloads.empty()
              ? ""
              : " (launch/python_eager_us: eager runs of " + join(in.workloads) + ")");
}

// The reference GEMM measure_ops.py times at the start, during and at the end of a run: when it
// slowed (or sped up) by more than kMaxReferenceDrift, the GPU's clocks moved under the run.
constexpr double kMaxReferenceDrift = 0.10;
std::string reference_drift(const nlohmann::json& doc, const std::string& path) {
  if (!doc.is_object() || !doc.contains("meta") || !doc["meta"].is_object()) return "";
  const nlohmann::json& meta = doc["meta"];
  const nlohmann::json* checks = nullptr;
  if (meta.contains("reference_checks")) checks = &meta["reference_checks"];
  if (meta.contains("pytorch") && meta["pytorch"].is_object() &&
      meta["pytorch"].contains("reference_checks"))
    checks = &meta["pytorch"]["reference_checks"];
  if (!checks || !checks->is_array()) return "";
  double lo = INFINITY, hi = 0;
  for (const auto& c : *checks) {
    auto it = c.find("ref-gemm-bf16-4096x4096x4096");
    if (it == c.end() || !it->is_number()) continue;
    lo = std::min(lo, it->get<double>());
    hi = std::max(hi, it->get<double>());
  }
  if (!(hi > 0) || hi / lo - 1 <= kMaxReferenceDrift) return "";
  return path + ": the reference 4096^3 GEMM took " + std::to_string((int)std::round(lo)) + " to " +
         std::to_string((int)std::round(hi)) +
         " us during the run: clocks throttled or the GPU was shared";
}

void append(std::vector<std::string>& to, const std::vector<std::string>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

// Held-out error per family before and after, and the cases furthest off after the fit.
void per_family(ProfileParts& parts, const Scorecard& before, const Scorecard& after) {
  for (size_t i = 0; i < after.families.size(); ++i) {
    const FamilyScore& a = after.families[i];
    parts.families.push_back(
        {a.family, a.model.count, before.families[i].model.mape, a.model.mape});
  }
  parts.worst = after.cases;
  std::sort(parts.worst.begin(), parts.worst.end(), [](const CaseResult& x, const CaseResult& y) {
    return std::fabs(x.error()) > std::fabs(y.error());
  });
  if (parts.worst.size() > 5) parts.worst.resize(5);
}

}  // namespace

Calibration calibrate(const GpuSpec& start, const CalibrationInputs& in) {
  Calibration c;
  ProfileParts& parts = c.parts;
  GpuSpec gpu = start;
  // Each file is read once: its kernels, its reference-GEMM drift and, without --hardware, the
  // suite points it holds.
  Documents suites;
  for (const auto& path : in.hardware) {
    nlohmann::json doc = read_json_file(path);
    if (!is_suite_document(doc))
      throw InputError("--hardware " + path + ": not a ridgeline-gpu-bench measurements file");
    suites.emplace_back(path, std::move(doc));
  }
  std::vector<std::string> drifts;
  Dataset data = load_merged<Dataset>(in.data, [&](const std::string& path) {
    nlohmann::json doc = read_json_file(path);
    std::string drift = reference_drift(doc, path);
    if (!drift.empty()) drifts.push_back(drift);
    Dataset d = parse_dataset(doc, path);
    if (in.hardware.empty() && is_suite_document(doc)) suites.emplace_back(path, std::move(doc));
    return d;
  });
  for (const auto& [path, doc] : suites) {
    SuiteFigures f = suite_figures(doc, gpu, path);
    parts.figures.insert(parts.figures.end(), f.figures.begin(), f.figures.end());
    append(c.problems, f.warnings);
  }
  apply_figures(gpu, parts.figures);  // the fit then works from this card's own figures
  append(c.problems, drifts);
  c.kernels = data.records.size();
  append(c.problems, suspicious_measurements(gpu, data));
  // A measured figure is not fitted again (the graph launch gap, when the suite timed it).
  std::vector<FitKnob> knobs = default_knobs(gpu);
  std::erase_if(knobs, [&](const FitKnob& k) {
    return std::any_of(parts.figures.begin(), parts.figures.end(),
                       [&](const MeasuredFigure& f) { return f.path == k.path; });
  });
  parts.fit = fit_parameters(gpu, data, knobs);
  append(c.problems, parts.fit.warnings);
  if (!in.workloads.empty()) {
    parts.eager = fit_python_eager(parts.fit.fitted, load_workload_datasets(in.workloads));
    parts.fit.fitted.launch.python_eager_us.value = parts.eager->value_us;
    if (parts.eager->at_bound)
      c.problems.push_back("launch/python_eager_us ended at its bound; the eager runs look wrong");
  }
  for (const auto& [path, doc] : suites) {  // set beside the fitted values
    std::vector<CrossCheck> checks = suite_checks(doc, parts.fit.fitted);
    parts.checks.insert(parts.checks.end(), checks.begin(), checks.end());
  }
  per_family(parts, score(data, gpu, "holdout"), score(data, parts.fit.fitted, "holdout"));
  c.before = score(data, gpu, "all");
  c.after = score(data, parts.fit.fitted, "all");
  parts.source = provenance_of(data, in);
  return c;
}

}  // namespace ridgeline
