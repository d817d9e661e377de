// Opening a file a flag names for writing (--out, --report, --plot, --trace): one message for a
// path that cannot be written, naming the flag and the path.
#pragma once

#include "common/errors.h"

#include <fstream>
#include <string>

namespace ridgeline {

inline std::ofstream open_output(const std::string& flag, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw InputError(flag + " " + path + ": cannot write file");
  return out;
}

}  // namespace ridgeline
