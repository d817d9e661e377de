// Parsing and printing of provenance strings; see provenance.h.
#include "hardware/provenance.h"

#include <regex>

namespace ridgeline {

namespace {

struct KindName {
  SourceKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {
    {SourceKind::Datasheet, "datasheet"}, {SourceKind::Measured, "measured"},
    {SourceKind::Fitted, "fitted"},       {SourceKind::Published, "published"},
    {SourceKind::Assumed, "assumed"},     {SourceKind::Derived, "derived"},
    {SourceKind::WhatIf, "what-if"},
};

}  // namespace

const char* source_kind_name(SourceKind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

std::string parse_provenance(const std::string& text, Provenance& out) {
  auto colon = text.find(':');
  std::string expected =
      "expected \"<kind>: <where from>\" with kind datasheet, measured, fitted, published, "
      "assumed, derived or what-if; got \"" +
      text + "\"";
  if (colon == std::string::npos) return expected;
  std::string kind = text.substr(0, colon);
  std::string rest = text.substr(colon + 1);
  while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
  for (const auto& k : kKinds) {
    if (kind != k.name) continue;
    if (rest.empty())
      return "source \"" + text + "\" says nothing about where the figure came from";
    bool dated = k.kind == SourceKind::Measured || k.kind == SourceKind::Fitted;
    static const std::regex date(R"(\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b)");
    if (dated && !std::regex_search(rest, date)) {
      return std::string("a ") + k.name +
             " figure must name its device and date (YYYY-MM-DD); got \"" + text + "\"";
    }
    out.kind = k.kind;
    out.text = rest;
    return "";
  }
  return expected;
}

std::string to_string(const Provenance& p) {
  return std::string(source_kind_name(p.kind)) + ": " + p.text;
}

}  // namespace ridgeline
