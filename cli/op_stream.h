// `ridgeline op --input FILE` in JSONL (its default format), streamed: each line is predicted and
// printed before the next is read from the text, and only the failed lines' messages are kept,
// so a batch of millions of ops needs no result list. Prints the bytes that run_op_lines followed
// by print_op_jsonl print (tests/test_op_batch.cpp checks both on the same lines).
#pragma once

#include "hardware/gpu_spec.h"

#include <cstddef>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

struct OpStreamSummary {
  size_t ops = 0;                   // non-blank lines
  std::vector<std::string> errors;  // one message a failed line, in line order
};

OpStreamSummary stream_op_jsonl(std::istream& in, const std::string& label, const GpuSpec& gpu,
                                std::ostream& out);

}  // namespace ridgeline
