// Where a run's requests come from:
//  - fixed lengths or length distributions, each a flag value: "1024", "uniform:512:2048"
//    (integers, inclusive), "normal:1024:256" (mean, standard deviation; rounded, at least 1),
//    "lognormal:1024:0.5" (median, sigma of the log); drawn from one seeded generator so that a
//    seed gives the same requests on every machine (serve/random.h, not <random>'s distributions);
//  - a trace file, CSV with the header `arrival_s,input_tokens,output_tokens` or JSONL with those
//    keys, one request a line. Reading is strict: a line with a missing, non-numeric or negative
//    field (or a zero length, or an arrival before the previous one) is rejected with
//    "FILE:LINE: FIELD: why" and the other lines still run; the report counts the rejections.
#pragma once

#include "serve/random.h"
#include "serve/request.h"

#include <istream>
#include <string>

namespace ridgeline {

struct LengthSpec {
  enum class Kind { Fixed, Uniform, Normal, LogNormal } kind = Kind::Fixed;
  double a = 0,
         b = 0;  // fixed: a; uniform: [a, b]; normal: mean a, sd b; lognormal: median a, sigma b
};

// The mean of the lengths a spec draws (lognormal: median x e^(sigma^2 / 2)).
double mean_length(const LengthSpec& spec);

// Parses a flag's value; errors name the flag.
LengthSpec parse_length_spec(const std::string& flag, const std::string& value);

// Lengths drawn one request at a time from one seeded stream (input, then output, a request):
// what generate_workload draws, for a run that never holds all its requests (request_source.h).
class LengthDraws {
 public:
  LengthDraws(const LengthSpec& input, const LengthSpec& output, uint64_t seed)
      : input_(input), output_(output), rng_(seed) {}
  Request next(int64_t id);  // arrival unset

 private:
  LengthSpec input_, output_;
  Random rng_;
};

// Lengths from flags, not yet drawn.
struct GeneratedWorkload {
  LengthSpec input, output;
  int64_t count = 0;
  uint64_t seed = 0;
};

// `count` requests with lengths drawn from the specs (arrivals unset).
Workload generate_workload(const LengthSpec& input, const LengthSpec& output, int64_t count,
                           uint64_t seed);

// The requests of a trace file (CSV or JSONL by extension: .csv, .jsonl/.json); an unreadable
// file or an unknown extension is an InputError naming the flag.
Workload read_trace(const std::string& flag, const std::string& path);
// The same from text, `label` naming it in errors; `jsonl` picks the format.
Workload parse_trace_text(const std::string& text, const std::string& label, bool jsonl);
Workload parse_trace_stream(std::istream& in, const std::string& label, bool jsonl);

}  // namespace ridgeline
