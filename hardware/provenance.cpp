// Parsing and printing of provenance strings; see provenance.h.
#include "hardware/provenance.h"

#include "common/name_table.h"

#include <regex>

namespace ridgeline {

namespace {

const NameTable<SourceKind>& kinds() {
  static const NameTable<SourceKind> t = {
      {SourceKind::Datasheet, "datasheet"}, {SourceKind::Measured, "measured"},
      {SourceKind::Fitted, "fitted"},       {SourceKind::Published, "published"},
      {SourceKind::Assumed, "assumed"},     {SourceKind::Derived, "derived"},
      {SourceKind::WhatIf, "what-if"}};
  return t;
}

}  // namespace

const char* source_kind_name(SourceKind kind) {
  return kinds().name(kind);
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
  auto k = kinds().parse(kind);
  if (!k) return expected;
  if (rest.empty()) return "source \"" + text + "\" says nothing about where the figure came from";
  bool dated = *k == SourceKind::Measured || *k == SourceKind::Fitted;
  static const std::regex date(R"(\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b)");
  if (dated && !std::regex_search(rest, date)) {
    return std::string("a ") + kinds().name(*k) +
           " figure must name its device and date (YYYY-MM-DD); got \"" + text + "\"";
  }
  out.kind = *k;
  out.text = rest;
  return "";
}

std::string to_string(const Provenance& p) {
  return std::string(source_kind_name(p.kind)) + ": " + p.text;
}

}  // namespace ridgeline
