// Limits found probing the CLI as a hostile user would (issue 16): each refused with one clear
// error, both sides of the limit checked. Lengths past 10^12 tokens (a double past 2^63 overflowed
// the integer conversion: the run went on with 1-token prompts), arrival rates and burstiness whose
// gamma or exponential draws left the doubles (an endless draw, infinite or NaN arrival times),
// and JSON nested past 512 levels (an error message's dump of it overflowed the stack).
#include "common/errors.h"
#include "common/json_reader.h"
#include "serve/arrivals.h"
#include "serve/workload.h"
#include "test_helpers.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace ridgeline;
using namespace ridgeline::test;

TEST_CASE("limits: a length flag past 10^12 tokens is refused, 10^12 is not") {
  require_input_error([] { parse_length_spec("--input-len", "1e308"); },
                      {"--input-len 1e308", "more than 10^12 tokens"});
  require_input_error([] { parse_length_spec("--input-len", "9223372036854775808"); },
                      {"more than 10^12 tokens"});
  require_input_error([] { parse_length_spec("--output-len", "normal:64:1e13"); },
                      {"--output-len normal:64:1e13", "more than 10^12 tokens"});
  require_input_error([] { parse_length_spec("--input-len", "lognormal:1e300:1"); },
                      {"more than 10^12 tokens"});
  CHECK(parse_length_spec("--input-len", "1000000000000").a == 1e12);
  CHECK(parse_length_spec("--input-len", "normal:64:1000000000000").b == 1e12);
}

TEST_CASE("limits: a draw in a distribution's far tail is held at 10^12 tokens") {
  // sigma 500: exp(500 x normal) is infinite for most draws; each length stays a finite count.
  Workload w = generate_workload(parse_length_spec("--input-len", "lognormal:1000:500"),
                                 parse_length_spec("--output-len", "1"), 200, 1);
  bool held = false, in_range = true;
  for (const Request& r : w.requests) {
    in_range = in_range && r.input_tokens >= 1 && r.input_tokens <= 1000000000000;
    held = held || r.input_tokens == 1000000000000;
  }
  CHECK(in_range);
  CHECK(held);
}

TEST_CASE("limits: --rate at least 1e-06 requests per second") {
  require_input_error([] { parse_rate("1e-308", "poisson", 1, false); },
                      {"--rate 1e-308", "must be at least 1e-06 requests per second"});
  require_input_error([] { parse_rate("9e-7", "fixed", 1, false); }, {"at least 1e-06"});
  CHECK(parse_rate("1e-6", "poisson", 1, false).rate_per_s == 1e-6);
  CHECK(parse_rate("1e308", "poisson", 1, false).rate_per_s == 1e308);
}

TEST_CASE("limits: --cv between 0.001 and 1000") {
  require_input_error([] { parse_rate("5", "gamma", 1e-300, true); },
                      {"--cv", "must be between 0.001 and 1000"});
  require_input_error([] { parse_rate("5", "gamma", 1e300, true); },
                      {"must be between 0.001 and 1000"});
  CHECK(parse_rate("5", "gamma", 1e-3, true).cv == 1e-3);
  CHECK(parse_rate("5", "gamma", 1e3, true).cv == 1e3);
  // The arrival times of both extremes are finite and in order.
  for (double cv : {1e-3, 1e3}) {
    Workload w = generate_workload({}, {}, 100, 0);
    for (Request& r : w.requests) r.input_tokens = r.output_tokens = 1;
    assign_arrivals(w, parse_rate("5", "gamma", cv, true), 3);
    bool ok = true;
    for (size_t i = 1; i < w.requests.size(); ++i)
      ok = ok && std::isfinite(w.requests[i].arrival_s) &&
           w.requests[i].arrival_s >= w.requests[i - 1].arrival_s;
    CHECK(ok);
  }
}

TEST_CASE("limits: JSON nested past 512 levels is refused, 512 levels is not") {
  const std::string at = std::string(512, '[') + std::string(512, ']');
  const std::string above = std::string(513, '[') + std::string(513, ']');
  const std::string far = std::string(1000000, '[') + std::string(1000000, ']');
  require_input_error([&] { parse_json_text(above, "deep.json"); },
                      {"deep.json", "invalid JSON: nested deeper than 512 levels"});
  require_input_error([&] { parse_json_text(far, "deep.json"); },
                      {"nested deeper than 512 levels"});
  CHECK(parse_json_text(at, "deep.json").is_array());
  // Brackets inside strings are text, not nesting (an escaped quote does not end the string).
  const std::string text =
      "{\"a\": \"" + std::string(2000, '[') + "\\\"" + std::string(2000, '{') + "\"}";
  CHECK(parse_json_text(text, "strings.json").is_object());
}
