// Interval tables and lookups; see intervals.h. Every field of a table is required and checked
// (errors name the file and JSON path): a table is data predictions rest on, so a misspelt level
// or a p10 above the p90 is an error, never a silently wider or narrower interval.
#include "validate/intervals.h"

#include "common/embedded_files.h"
#include "common/errors.h"
#include "common/json_reader.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

const char* const kLevels[] = {"own", "architecture", "none"};
const char* const kOutputKinds[] = {kClusterStep, kServingTokensPerS, kServingTtft, kServingTpot};

// four decimals: the quantiles of a few hundred ratios carry no more
double r4(double x) {
  return std::round(x * 1e4) / 1e4;
}

RatioQuantiles read_quantiles(JsonReader& r) {
  RatioQuantiles q;
  q.count = (int)r.integer("count", 1);
  q.p10 = r.positive("p10");
  q.p50 = r.positive("p50");
  q.p90 = r.positive("p90");
  if (q.p10 > q.p50) r.fail("p10", "above p50 (" + std::to_string(q.p50) + ")");
  if (q.p50 > q.p90) r.fail("p90", "below p50 (" + std::to_string(q.p50) + ")");
  return q;
}

IntervalEntries read_entries(JsonReader& r) {
  IntervalEntries out;
  for (const auto& level : r.keys()) {
    if (std::find(std::begin(kLevels), std::end(kLevels), level) == std::end(kLevels))
      r.fail(level, "unknown calibration level; expected own, architecture or none");
    JsonReader& lr = r.child(level);
    for (const auto& key : lr.keys()) {
      JsonReader& kr = lr.child(key);
      for (const auto& cat : kr.keys()) out[level][key][cat] = read_quantiles(kr.child(cat));
    }
  }
  return out;
}

nlohmann::ordered_json entries_json(const IntervalEntries& e) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const char* level : kLevels) {
    auto it = e.find(level);
    if (it == e.end()) continue;
    for (const auto& [key, cats] : it->second) {
      for (const auto& [cat, q] : cats) {
        out[level][key][cat] = {
            {"count", q.count}, {"p10", r4(q.p10)}, {"p50", r4(q.p50)}, {"p90", r4(q.p90)}};
      }
    }
  }
  return out;
}

std::map<std::string, OutputQuantiles> read_outputs(JsonReader& r) {
  std::map<std::string, OutputQuantiles> out;
  for (const auto& kind : r.keys()) {
    if (std::find(std::begin(kOutputKinds), std::end(kOutputKinds), kind) == std::end(kOutputKinds))
      r.fail(kind,
             "unknown output kind; expected cluster_step, serving_output_tokens_per_s, "
             "serving_ttft or serving_tpot");
    JsonReader& kr = r.child(kind);
    OutputQuantiles o;
    o.q = read_quantiles(kr);
    const nlohmann::json& data = kr.raw("data");
    if (!data.is_array() || data.empty()) kr.fail("data", "expected an array of measurement files");
    for (size_t i = 0; i < data.size(); ++i) {
      if (!data[i].is_string()) kr.fail_at("data/" + std::to_string(i), "expected a file name");
      o.data.push_back(data[i].get<std::string>());
    }
    o.split = kr.one_of("split", {"fit"});  // output quantiles come from fit rows only
    o.method = kr.string("method");
    out[kind] = o;
  }
  return out;
}

// The levels a GPU's lookup walks: its own, then each wider one.
std::vector<std::string> levels_from(ProfileKind c) {
  if (c == ProfileKind::Own) return {"own", "architecture", "none"};
  if (c == ProfileKind::Architecture) return {"architecture", "none"};
  return {"none"};
}

std::string key_at(const std::string& level, const GpuSpec& gpu) {
  if (level == "own") return gpu.name;
  if (level == "architecture") return gpu.architecture;
  return "any";
}

std::string basis_of(const IntervalHit& h, const char* what) {
  std::string n = std::to_string(h.q.count) + " fit " + what + " of category " + h.category;
  if (h.category == "collective") return n + " on the measured clusters (nccl-tests tables)";
  if (h.level == "own") return n + " on " + h.key + " with its own profile";
  if (h.level == "architecture")
    return n + " on " + h.key + " GPUs predicted with another " + h.key + " GPU's profile";
  return n + " on measured GPUs predicted with no profile";
}

}  // namespace

RatioQuantiles ratio_quantiles(std::vector<double> ratios) {
  if (ratios.empty()) throw InternalError("ratio_quantiles: no ratios");
  std::sort(ratios.begin(), ratios.end());
  auto pct = [&](double q) {
    double pos = q * (double)(ratios.size() - 1);
    size_t lo = (size_t)std::floor(pos), hi = (size_t)std::ceil(pos);
    return ratios[lo] + (ratios[hi] - ratios[lo]) * (pos - (double)lo);
  };
  return {(int)ratios.size(), pct(0.1), pct(0.5), pct(0.9)};
}

RatioQuantiles conformal_quantiles(std::vector<double> ratios) {
  RatioQuantiles q = ratio_quantiles(ratios);  // the median (and the empty check)
  std::sort(ratios.begin(), ratios.end());
  const auto n = (long long)ratios.size();
  auto rank = [&](long long k) { return ratios[(size_t)(std::clamp(k, 1LL, n) - 1)]; };
  q.p10 = rank((long long)std::floor(0.1 * (double)(n + 1) + 1e-9));
  q.p90 = rank((long long)std::ceil(0.9 * (double)(n + 1) - 1e-9));
  return q;
}

std::optional<OutputQuantiles> output_quantiles(const IntervalTable& t, const std::string& kind) {
  auto it = t.outputs.find(kind);
  if (it == t.outputs.end() || it->second.q.count < t.min_count) return std::nullopt;
  return it->second;
}

IntervalTable parse_interval_table(const nlohmann::json& doc, const std::string& label) {
  if (!doc.is_object()) throw InputError(located(label, "expected an object (an interval table)"));
  JsonReader r(doc, label);
  IntervalTable t;
  t.file = label;
  r.string("about");
  t.provenance = r.raw("provenance");
  if (!t.provenance.is_object()) r.fail("provenance", "expected an object (files, split, date)");
  t.min_count = (int)r.integer("min_count", 1);
  t.kernels = read_entries(r.child("kernels"));
  t.steps = read_entries(r.child("steps"));
  t.outputs = read_outputs(r.child("outputs"));
  r.finish();
  return t;
}

IntervalTable load_interval_table(const std::string& path) {
  return parse_interval_table(read_json_file(path), path);
}

nlohmann::ordered_json interval_table_json(const IntervalTable& t) {
  nlohmann::ordered_json j;
  j["about"] =
      "Prediction intervals: per calibration level, GPU (own), architecture or any (none), and "
      "category, the split-conformal p10/p50/p90 of measured / predicted on the FIT split "
      "(validate/intervals.h). "
      "Outputs: split-conformal p10/p50/p90 of measured / predicted of whole outputs (cluster "
      "steps, serving metrics) on the FIT rows of published measurements. "
      "Written by `ridgeline calibrate intervals`; `calibrate intervals --coverage` checks them "
      "on the held-out split.";
  j["provenance"] = t.provenance;
  j["min_count"] = t.min_count;
  j["kernels"] = entries_json(t.kernels);
  j["steps"] = entries_json(t.steps);
  j["outputs"] = nlohmann::ordered_json::object();
  for (const auto& [kind, o] : t.outputs)
    j["outputs"][kind] = {{"count", o.q.count}, {"p10", r4(o.q.p10)}, {"p50", r4(o.q.p50)},
                          {"p90", r4(o.q.p90)}, {"data", o.data},     {"split", o.split},
                          {"method", o.method}};
  return j;
}

const IntervalTable& builtin_interval_table() {
  static const IntervalTable table = [] {
    for (const auto& f : embedded_files())
      if (f.path == "validate/intervals.json")
        return parse_interval_table(parse_json_text(std::string(f.text), std::string(f.path)),
                                    std::string(f.path));
    throw InternalError("validate/intervals.json is not built into the binary");
  }();
  return table;
}

std::string kernel_category(const Op& op) {
  if (const auto* g = std::get_if<GemmOp>(&op.shape); g && g->groups > 0) return "grouped_gemm";
  // A named attention kernel is its own category (the table's attention is SDPA's default).
  if (const auto* a = std::get_if<AttentionOp>(&op.shape); a && a->impl)
    return std::string("attention/") + attention_impl_name(*a->impl);
  return op_family(op);
}

std::string step_category(const std::string& runtime, const std::string& phase_launch, bool moe) {
  return runtime + "/" + phase_launch + (moe ? "-moe" : "");
}

namespace {

// The first entry of `cats` (each at every level of the GPU's walk) with at least `min` fit
// measurements.
std::optional<IntervalHit> first_entry(const IntervalEntries& e, const GpuSpec& gpu,
                                       const std::vector<std::string>& cats, int min) {
  for (const auto& cat : cats) {
    for (const auto& level : levels_from(gpu.calibration)) {
      auto l = e.find(level);
      if (l == e.end()) continue;
      auto k = l->second.find(key_at(level, gpu));
      if (k == l->second.end()) continue;
      auto c = k->second.find(cat);
      if (c == k->second.end() || c->second.count < min) continue;
      return IntervalHit{c->second, level, k->first, cat};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<IntervalHit> find_quantiles(const IntervalTable& t, const IntervalEntries& e,
                                          const GpuSpec& gpu, const std::string& category,
                                          bool or_all) {
  std::vector<std::string> cats{category};
  if (or_all) cats.push_back("all");
  return first_entry(e, gpu, cats, t.min_count);
}

std::optional<IntervalHit> find_step_quantiles(const IntervalTable& t, const GpuSpec& gpu,
                                               const std::string& category) {
  return first_entry(t.steps, gpu, {category}, std::max(t.min_count, kMinConformalSteps));
}

std::optional<PredictionInterval> kernel_interval(const IntervalTable& t, const GpuSpec& gpu,
                                                  const Op& op, double time_us) {
  auto hit = find_quantiles(t, t.kernels, gpu, kernel_category(op), true);
  if (!hit) return std::nullopt;
  return PredictionInterval{time_us * hit->q.p10, time_us * hit->q.p90,      hit->category,
                            hit->level,           basis_of(*hit, "kernels"), hit->q.count};
}

KernelIntervalMemo::Entry& KernelIntervalMemo::entry(const Op& op) {
  const char* family = op_family(op);
  int variant = 0;
  if (const auto* g = std::get_if<GemmOp>(&op.shape); g && g->groups > 0) variant = 1;
  if (const auto* a = std::get_if<AttentionOp>(&op.shape); a && a->impl)
    variant = 2 + static_cast<int>(*a->impl);
  for (const Seen& s : seen_) {
    if (s.family == family && s.variant == variant) return *s.entry;
  }
  std::string category = kernel_category(op);
  auto it = by_category_.find(category);
  if (it == by_category_.end()) {
    Entry e;
    if (auto hit = find_quantiles(table_, table_.kernels, gpu_, category, true)) {
      e = {
          true, hit->q, {0, 0, hit->category, hit->level, basis_of(*hit, "kernels"), hit->q.count}};
    }
    it = by_category_.emplace(std::move(category), std::move(e)).first;
  }
  seen_.push_back({family, variant, &it->second});
  return it->second;
}

std::optional<PredictionInterval> KernelIntervalMemo::interval(const Op& op, double time_us) {
  const PredictionInterval* i = interval_ref(op, time_us);
  if (i == nullptr) return std::nullopt;
  return *i;
}

const PredictionInterval* KernelIntervalMemo::interval_ref(const Op& op, double time_us) {
  Entry& e = entry(op);
  if (!e.found) return nullptr;
  e.shown.p10_us = time_us * e.q.p10;
  e.shown.p90_us = time_us * e.q.p90;
  return &e.shown;
}

std::optional<PredictionInterval> collective_interval(const IntervalTable& t, double time_us) {
  GpuSpec any;  // no profile: the lookup reads the none level only
  auto hit = find_quantiles(t, t.kernels, any, "collective", false);
  if (!hit) return std::nullopt;
  return PredictionInterval{time_us * hit->q.p10, time_us * hit->q.p90,          hit->category,
                            hit->level,           basis_of(*hit, "collectives"), hit->q.count};
}

PredictionInterval combine_kernels(const std::vector<IntervalPart>& parts, double total_us) {
  double kernel_us = 0;
  int count = 0;
  for (const auto& p : parts) {
    kernel_us += p.time_us;
    count += p.q.count;
  }
  PredictionInterval out{total_us, total_us, "kernels combined", "", "", count};
  if (kernel_us <= 0) return out;
  double median = 0, low2 = 0, high2 = 0;
  for (const auto& p : parts) {
    double w = p.time_us / kernel_us;
    median += w * p.q.p50;
    low2 += std::pow(w * (p.q.p50 - p.q.p10), 2);
    high2 += std::pow(w * (p.q.p90 - p.q.p50), 2);
  }
  out.p10_us = total_us * std::max(0.0, median - std::sqrt(low2));
  out.p90_us = total_us * (median + std::sqrt(high2));
  return out;
}

PredictionInterval combined_step_interval(const IntervalTable& t, const GpuSpec& gpu,
                                          const OpGraph& graph, const Prediction& p) {
  std::map<std::string, double> by_category;
  for (size_t s = 0; s < p.sections.size(); ++s) {
    const auto& sec = p.sections[s];
    for (size_t v = 0; v < sec.kernels.size(); ++v) {
      if (sec.kernels[v].stream == Stream::Host) continue;
      const Op& op = graph.sections.at(s).dag()[(OpVertex)v].op;
      by_category[kernel_category(op)] += (double)sec.repeat * sec.kernels[v].device_us;
    }
  }
  std::vector<IntervalPart> parts;
  std::string levels;
  for (const auto& [cat, us] : by_category) {
    auto hit = find_quantiles(t, t.kernels, gpu, cat, true);
    if (!hit)
      throw InputError(t.file + ": /kernels: no interval for " + cat + " or all at any level");
    parts.push_back({us, hit->q});
    if (levels.find(hit->level) == std::string::npos)
      levels += (levels.empty() ? "" : "+") + hit->level;
  }
  PredictionInterval out = combine_kernels(parts, p.total_us);
  out.calibration = levels;
  out.basis = "no measured steps of this category: " + std::to_string(parts.size()) +
              " kernel categories combined (correlated within, independent across)";
  return out;
}

std::optional<PredictionInterval> step_interval(const IntervalTable& t, const GpuSpec& gpu,
                                                const OpGraph& graph, const Prediction& p,
                                                bool moe) {
  std::string phase_launch = std::string(phase_name(p.run.phase)) + "-" + launch_name(p.run.launch);
  std::string category = step_category(runtime_name(p.run.runtime), phase_launch, moe);
  auto hit = find_step_quantiles(t, gpu, category);
  if (!hit) return combined_step_interval(t, gpu, graph, p);
  return PredictionInterval{p.total_us * hit->q.p10, p.total_us * hit->q.p90,
                            hit->category,           hit->level,
                            basis_of(*hit, "steps"), hit->q.count};
}

}  // namespace ridgeline
