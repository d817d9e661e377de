// A fast reader of `ridgeline op` JSONL lines: simdjson's on-demand parser over one line, into
// a flat list of fields, then the same rules as parse_op (workloads/op_parse_rules.h). It only
// ever answers for a line that parse_op would accept, with the same Op: at the first thing
// out of the ordinary (a syntax error, an unknown or repeated key, a float where an integer
// goes, any rule broken) it returns nothing, and the caller runs parse_op on the line, which
// says exactly what is wrong. Built without simdjson, it always returns nothing.
#pragma once

#include "workloads/op.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ridgeline {

class FastOpParser {
 public:
  FastOpParser();
  ~FastOpParser();
  FastOpParser(const FastOpParser&) = delete;
  FastOpParser& operator=(const FastOpParser&) = delete;

  // The op of one JSONL line, or nothing when parse_op must read it. `fallback_id` as parse_op's.
  std::optional<Op> parse(std::string_view line, const std::string& fallback_id);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ridgeline
