// The views a command offers for one kind of report, by format name (llvm-mca's View idea): a
// command registers its --format choices from names(), so every format it accepts has a view,
// and prints with pick(format), never by comparing format strings itself.
//
//   const ViewSet<OpReport> views = {{"table", print_op_table_view}, {"json", ...}};
//   cmd->add_option("--format", f)->check(CLI::IsMember(views.names()));
//   views.pick(f, "--format")(std::cout, report);
#pragma once

#include "common/errors.h"

#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ridgeline {

template <class Report>
class ViewSet {
 public:
  using Print = std::function<void(std::ostream&, const Report&)>;

  ViewSet(std::initializer_list<std::pair<std::string, Print>> views) : views_(views) {}

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& v : views_) out.push_back(v.first);
    return out;
  }

  // The view of `format`; an unknown one is the flag's error (CLI11 checks it first, so this is
  // the library-side guard for callers that do not).
  const Print& pick(const std::string& format, const std::string& flag) const {
    for (const auto& v : views_)
      if (v.first == format) return v.second;
    std::string known;
    for (const auto& v : views_) known += (known.empty() ? "" : ", ") + v.first;
    throw InputError(flag + " " + format + ": no such format; choose " + known);
  }

 private:
  std::vector<std::pair<std::string, Print>> views_;
};

}  // namespace ridgeline
