// std::cout into a string while a command runs, restored on every way out (exceptions too):
// `report` and `export` run another command with --format json and read what it printed.
#pragma once

#include <iostream>
#include <sstream>
#include <string>

namespace ridgeline {

class CoutCapture {
 public:
  CoutCapture() : old_(std::cout.rdbuf(text_.rdbuf())) {}
  ~CoutCapture() { std::cout.rdbuf(old_); }
  CoutCapture(const CoutCapture&) = delete;
  CoutCapture& operator=(const CoutCapture&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* old_;
};

}  // namespace ridgeline
