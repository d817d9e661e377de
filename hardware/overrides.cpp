// What-if overrides and the strict merge of a GPU's "model" object over its architecture's
// defaults. Both refuse keys that do not already exist, so a typo is an error, not a new field.
// A what-if aimed at a Fact ({"value", "source"}) replaces the value and marks the source
// "what-if: --set ...", so reports show the figure was not the datasheet's. A value may be
// relative to the figure it replaces: "+30%", "-10%" or "1.3x".
#include "common/errors.h"
#include "common/json_path.h"
#include "common/json_reader.h"
#include "hardware/gpu_parse.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace ridgeline {

namespace {

// A relative value's factor: "+30%" -> 1.3, "-10%" -> 0.9, "1.3x" -> 1.3; nullopt for anything
// else. A bare "30%" is an error: a change needs its sign.
std::optional<double> relative_factor(const std::string& text, const std::string& flag) {
  if (text.size() < 2) return std::nullopt;
  char last = text.back();
  if (last != '%' && last != 'x') return std::nullopt;
  std::string number = text.substr(0, text.size() - 1);
  char* end = nullptr;
  double v = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v))
    return std::nullopt;
  if (last == 'x') return v;
  if (number[0] != '+' && number[0] != '-') {
    throw InputError(located(flag, "a percentage is a change: write +" + number + "% or -" +
                                       number + "%, or a multiple such as 1.3x"));
  }
  return 1 + v / 100;
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::string what_if_label(const WhatIf& w) {
  std::string written = w.assignment.substr(w.assignment.find('=') + 1);
  return written == w.resolved ? w.assignment : w.assignment + " (" + w.resolved + ")";
}

std::vector<std::string> what_if_labels(const GpuSpec& s) {
  std::vector<std::string> out;
  for (const auto& w : s.what_ifs) out.push_back(what_if_label(w));
  return out;
}

WhatIf apply_override(nlohmann::json& doc, const std::string& assignment) {
  std::string flag = "--set " + assignment;
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(located(flag, "expected PATH=VALUE, e.g. memory.hbm.bandwidth_GBps=4800"));
  }
  std::string path = assignment.substr(0, eq);
  std::string text = assignment.substr(eq + 1);
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  std::optional<double> factor;
  if (value.is_discarded()) {
    factor = relative_factor(text, flag);
    value = text;  // a bare word is a string
  }

  auto [node, walked] = walk_json_path(doc, split_json_path(path, "./"));
  if (!node) throw InputError(located(flag, walked + ": no such field"));
  bool fact = node->is_object() && node->contains("value") && node->contains("source");
  if (!fact && (node->is_object() || node->is_array()))
    throw InputError(located(flag, walked + ": names a group of fields; name one field"));
  nlohmann::json& target = fact ? (*node)["value"] : *node;
  WhatIf w{assignment, walked.substr(1), value.dump()};
  if (factor) {
    if (!target.is_number()) {
      throw InputError(located(flag, walked + ": a relative value (" + text +
                                         ") needs a number field; this one holds " +
                                         describe_json(target)));
    }
    value = target.get<double>() * *factor;
    w.resolved = short_number(value.get<double>());
  } else if (value.is_string()) {
    w.resolved = text;
  }
  target = value;
  if (fact) (*node)["source"] = "what-if: " + flag;
  return w;
}

namespace {

// SMs x ops/clk/SM x clock of one unit's table entry, from the document; nullopt when a figure is
// missing or not a number (the parse that follows names it).
std::optional<double> derived_peak(const nlohmann::json& doc, const std::string& table,
                                   const std::string& unit, const std::string& clock) {
  const nlohmann::json* parts[3] = {nullptr, nullptr, nullptr};
  const nlohmann::json& c = doc["compute"];
  if (c.contains("sm_count")) parts[0] = &c["sm_count"];
  if (c.contains(table) && c[table].contains(unit)) parts[1] = &c[table][unit];
  if (c.contains(clock)) parts[2] = &c[clock];
  double product = 1;
  for (const auto* p : parts) {
    if (!p || !p->is_object() || !p->contains("value") || !(*p)["value"].is_number())
      return std::nullopt;
    product *= (*p)["value"].get<double>();
  }
  return product;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

void follow_stated_peaks(const nlohmann::json& before, nlohmann::json& doc,
                         const std::vector<WhatIf>& what_ifs) {
  if (!doc.contains("compute") || !doc["compute"].contains("stated_peak_tflops") ||
      !doc["compute"]["stated_peak_tflops"].is_object())
    return;
  for (auto& [unit, stated] : doc["compute"]["stated_peak_tflops"].items()) {
    bool tensor = doc["compute"].contains("tensor_ops_per_clk_per_sm") &&
                  doc["compute"]["tensor_ops_per_clk_per_sm"].contains(unit);
    std::string table = tensor ? "tensor_ops_per_clk_per_sm" : "vector_ops_per_clk_per_sm";
    std::string clock = tensor ? "tensor_clock_MHz" : "max_clock_MHz";
    std::string flags;
    for (const auto& w : what_ifs) {
      if (starts_with(w.path, "compute/stated_peak_tflops/" + unit)) {
        flags.clear();  // the user's own stated peak stands
        break;
      }
      if (w.path == "compute/sm_count" || starts_with(w.path, "compute/" + clock) ||
          starts_with(w.path, "compute/" + table + "/" + unit))
        flags += (flags.empty() ? "--set " : ", --set ") + w.assignment;
    }
    auto was = derived_peak(before, table, unit, clock);
    auto now = derived_peak(doc, table, unit, clock);
    if (flags.empty() || !was || !now || *was <= 0 || !stated.is_object() ||
        !stated.contains("value") || !stated["value"].is_number())
      continue;
    double ratio = *now / *was;
    stated["value"] = stated["value"].get<double>() * ratio;
    stated["source"] =
        "what-if: derived from " + flags + " (the stated peak x " + short_number(ratio) + ")";
  }
}

void merge_strict(nlohmann::json& base, const nlohmann::json& overlay, const std::string& label,
                  const std::string& path) {
  if (!overlay.is_object()) {
    throw InputError(located(label, path + ": expected an object, got " + describe_json(overlay)));
  }
  for (auto it = overlay.begin(); it != overlay.end(); ++it) {
    std::string here = path + "/" + it.key();
    if (!base.contains(it.key())) throw InputError(located(label, here + ": unknown key"));
    auto& target = base[it.key()];
    bool fact = it->is_object() && it->contains("value");
    if (it->is_object() && target.is_object() && !fact && it.key() != "tiles") {
      merge_strict(target, *it, label, here);
    } else {
      target = *it;
    }
  }
}

}  // namespace ridgeline
