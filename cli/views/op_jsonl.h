// The JSONL view of `ridgeline op` results as a printer that takes one result at a time, so that
// a batch can be printed while it is predicted (cli/op_stream.h) instead of first kept whole.
// Both print calls write the bytes print_op_jsonl writes for the same result; output goes to the
// stream in large writes (at flush() and when the printer ends).
#pragma once

#include "cli/op_runner.h"

#include <memory>
#include <ostream>
#include <string>

namespace ridgeline {

class OpJsonlPrinter {
 public:
  explicit OpJsonlPrinter(std::ostream& os);
  ~OpJsonlPrinter();  // flushes
  OpJsonlPrinter(const OpJsonlPrinter&) = delete;
  OpJsonlPrinter& operator=(const OpJsonlPrinter&) = delete;

  void print(const OpResult& r);
  // A predicted op without building its OpResult; `interval` (of cost.time_us) may be null.
  void print(const std::string& id, const Op& op, const OpCost& cost,
             const PredictionInterval* interval);
  void flush();

 private:
  struct State;
  template <class Fill>
  void line(size_t string_room, const Fill& fill);
  std::ostream& os_;
  std::unique_ptr<State> s_;
};

}  // namespace ridgeline
