// Opening a file a flag names for writing (--out, --report, --plot, --trace): one message for a
// path that cannot be written, naming the flag and the path.
// OutputFile is the safe form for long runs: it writes to a temporary file in the same folder
// (".NAME.tmp-PID", so the rename stays on one file system) and renames it onto the path only
// at commit(); destroyed uncommitted (an error, SIGINT), it removes the temporary file, so no
// partial file is ever presented under the name asked for. Without a path it writes to stdout.
#pragma once

#include "common/errors.h"

#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

namespace ridgeline {

inline std::ofstream open_output(const std::string& flag, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw InputError(flag + " " + path + ": cannot write file");
  return out;
}

class OutputFile {
 public:
  OutputFile(const std::string& flag, const std::string& path) : flag_(flag), path_(path) {
    if (path.empty()) return;
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base.empty()) throw InputError(flag + " " + path + ": cannot write file (a folder)");
    temp_ = dir + "." + base + ".tmp-" + std::to_string((long long)getpid());
    file_.open(temp_);
    if (!file_) throw InputError(flag + " " + path + ": cannot write file");
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() {
    if (!temp_.empty() && !committed_) {
      file_.close();
      std::remove(temp_.c_str());
    }
  }
  std::ostream& stream() { return temp_.empty() ? std::cout : file_; }
  // Flushes and renames the temporary file onto the path.
  void commit() {
    if (temp_.empty()) {
      std::cout.flush();
      return;
    }
    file_.close();
    if (!file_ || std::rename(temp_.c_str(), path_.c_str()) != 0)
      throw InputError(flag_ + " " + path_ + ": cannot write file");
    committed_ = true;
  }

 private:
  std::string flag_, path_, temp_;
  std::ofstream file_;
  bool committed_ = false;
};

}  // namespace ridgeline
