// A serving request and a workload: the requests a run sends (prompt and output lengths, and when
// each arrives), plus the trace lines that were rejected and why. Plain data; workload.h makes
// them from fixed lengths, length distributions or a trace file, arrivals.h times them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridgeline {

struct Request {
  int64_t id = 0;             // 0, 1, ... in workload order
  double arrival_s = 0;       // when it reaches the engine (closed loop: set by the simulator)
  int64_t input_tokens = 0;   // prompt
  int64_t output_tokens = 0;  // generated (ignore_eos: exactly this many)
};

// A request the run does not send: where it came from (file:line:field, or a flag) and why.
struct Rejection {
  std::string where;
  std::string reason;
};

struct Workload {
  std::vector<Request> requests;
  std::vector<Rejection> rejected;
  bool timed = false;  // arrival_s came with the requests (a trace file)
};

}  // namespace ridgeline
