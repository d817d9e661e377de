// `ridgeline op --input FILE` in JSONL (its default format), streamed: each line is predicted and
// printed before the next is read from the text, and only the failed lines' messages are kept,
// so a batch of millions of ops needs no result list. Prints the bytes that run_op_lines followed
// by print_op_jsonl print (tests/test_op_batch.cpp checks both on the same lines).
// With jobs > 1 (`--jobs N`, op_stream_jobs.cpp) the input is cut into batches of whole lines,
// each read, predicted and printed on one of N threads by the same loop (print_op_lines), and
// the batches' texts and errors are written in input order: the same bytes as one thread, with
// a bounded number of batches in flight.
#pragma once

#include "hardware/gpu_spec.h"

#include <cstddef>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

class OpLineRunner;
class OpJsonlPrinter;

struct OpStreamSummary {
  size_t ops = 0;                   // non-blank lines
  std::vector<std::string> errors;  // one message a failed line, in line order
};

// `jobs` threads (1: this thread only).
OpStreamSummary stream_op_jsonl(std::istream& in, const std::string& label, const GpuSpec& gpu,
                                std::ostream& out, int jobs = 1);

// The loop of both: every line `lines` has left, printed; its count and errors added to `summary`.
void print_op_lines(OpLineRunner& lines, OpJsonlPrinter& printer, OpStreamSummary& summary);

// stream_op_jsonl on jobs >= 2 threads.
OpStreamSummary stream_op_jsonl_jobs(std::istream& in, const std::string& label, const GpuSpec& gpu,
                                     std::ostream& out, int jobs);

}  // namespace ridgeline
