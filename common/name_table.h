// One table of names per enum, read both ways: printing (name) and parsing (parse), so the two
// can never disagree and no code casts an index into an enum. Entries are listed in the order
// errors and help text show them.
//
//   const NameTable<ReduceKind> kReduce = {{ReduceKind::Sum, "sum"}, {ReduceKind::Max, "max"}};
//   kReduce.name(ReduceKind::Max);   // "max"
//   kReduce.parse("sum");            // ReduceKind::Sum; nullopt for an unknown name
//   kReduce.names();                 // {"sum", "max"}, e.g. for JsonReader::one_of
#pragma once

#include "common/errors.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ridgeline {

template <typename E>
class NameTable {
 public:
  NameTable(std::initializer_list<std::pair<E, const char*>> entries) : entries_(entries) {}

  // The name of `value`; an enum value missing from its table is a bug.
  const char* name(E value) const {
    for (const auto& [v, n] : entries_)
      if (v == value) return n;
    require_invariant(false, "every enum value has a name in its NameTable");
    return "?";
  }

  std::optional<E> parse(std::string_view text) const {
    for (const auto& [v, n] : entries_)
      if (text == n) return v;
    return std::nullopt;
  }

  // The names in table order, leaving out `except` (values a given input may not name).
  std::vector<std::string> names(std::initializer_list<E> except = {}) const {
    std::vector<std::string> out;
    for (const auto& [v, n] : entries_)
      if (std::find(except.begin(), except.end(), v) == except.end()) out.emplace_back(n);
    return out;
  }

 private:
  std::vector<std::pair<E, const char*>> entries_;
};

}  // namespace ridgeline
