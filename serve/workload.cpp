// Lengths from flags, and trace files read line by line (see workload.h).
#include "serve/workload.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "serve/random.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ridgeline {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!s.empty() && s.back() == sep) parts.push_back("");
  return parts;
}

// A number in full (no trailing text), or nullopt.
std::optional<double> to_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// No model's context comes near 10^12 tokens; past it a length is refused (a flag, a trace line)
// or, drawn from a distribution's tail, held at it (the request is then refused by name, as
// exceeding the model's context): a double above 2^63 would overflow the integer conversion.
constexpr double kMaxTraceTokens = 1e12;

int64_t draw(const LengthSpec& s, Random& rng) {
  double v = s.a;
  switch (s.kind) {
    case LengthSpec::Kind::Fixed:
      break;
    case LengthSpec::Kind::Uniform:
      v = s.a + std::floor(rng.uniform() * (s.b - s.a + 1));
      break;
    case LengthSpec::Kind::Normal:
      v = std::round(s.a + s.b * rng.normal());
      break;
    case LengthSpec::Kind::LogNormal:
      v = std::round(s.a * std::exp(s.b * rng.normal()));
      break;
  }
  return std::max<int64_t>(1, (int64_t)std::min(v, kMaxTraceTokens));
}

}  // namespace

double mean_length(const LengthSpec& spec) {
  switch (spec.kind) {
    case LengthSpec::Kind::Fixed:
    case LengthSpec::Kind::Normal:
      return spec.a;
    case LengthSpec::Kind::Uniform:
      return 0.5 * (spec.a + spec.b);
    case LengthSpec::Kind::LogNormal:
      return spec.a * std::exp(0.5 * spec.b * spec.b);
  }
  return spec.a;
}

LengthSpec parse_length_spec(const std::string& flag, const std::string& value) {
  auto bad = [&](const std::string& why) -> LengthSpec {
    throw InputError(flag + " " + value + ": " + why +
                     " (a length N, uniform:MIN:MAX, normal:MEAN:SD or lognormal:MEDIAN:SIGMA)");
  };
  std::vector<std::string> p = split(value, ':');
  // Found probing serve's flags: --input-len 1e308 (or 2^63) overflowed the integer conversion
  // (undefined behaviour; the run went on with 1-token prompts).
  for (size_t i = p.size() == 1 ? 0 : 1; i < p.size(); ++i) {
    auto v = to_number(p[i]);
    if (v && *v > kMaxTraceTokens) return bad("more than 10^12 tokens");
  }
  if (p.size() == 1) {
    auto n = to_number(p[0]);
    if (!n || *n < 1 || *n != std::floor(*n)) return bad("expected a whole number of tokens >= 1");
    return {LengthSpec::Kind::Fixed, *n, 0};
  }
  if (p.size() != 3) return bad("expected KIND:A:B");
  auto a = to_number(p[1]), b = to_number(p[2]);
  if (!a || !b) return bad("expected two numbers after the kind");
  if (p[0] == "uniform") {
    if (*a < 1 || *b < *a || *a != std::floor(*a) || *b != std::floor(*b))
      return bad("uniform needs whole numbers 1 <= MIN <= MAX");
    return {LengthSpec::Kind::Uniform, *a, *b};
  }
  if (p[0] == "normal") {
    if (*a < 1 || *b < 0) return bad("normal needs MEAN >= 1 and SD >= 0");
    return {LengthSpec::Kind::Normal, *a, *b};
  }
  if (p[0] == "lognormal") {
    if (*a < 1 || *b < 0) return bad("lognormal needs MEDIAN >= 1 and SIGMA >= 0");
    return {LengthSpec::Kind::LogNormal, *a, *b};
  }
  return bad("unknown distribution \"" + p[0] + "\"");
}

Request LengthDraws::next(int64_t id) {
  int64_t in = draw(input_, rng_);
  int64_t out = draw(output_, rng_);
  return {id, 0.0, in, out};
}

Workload generate_workload(const LengthSpec& input, const LengthSpec& output, int64_t count,
                           uint64_t seed) {
  Workload w;
  LengthDraws draws(input, output, seed);
  for (int64_t i = 0; i < count; ++i) w.requests.push_back(draws.next(i));
  return w;
}

namespace {

// One trace line's fields, checked; a bad field throws the Rejection.
struct TraceFields {
  std::optional<double> arrival, input, output;
};

Request checked_request(const TraceFields& f, const std::string& where, double last_arrival,
                        int64_t id) {
  auto reject = [&](const std::string& field, const std::string& why) {
    throw Rejection{where + ": " + field, why};
  };
  if (!f.arrival) reject("arrival_s", "missing or not a number");
  if (!std::isfinite(*f.arrival)) reject("arrival_s", "not a finite number");
  if (*f.arrival < 0) reject("arrival_s", "negative");
  if (*f.arrival < last_arrival) reject("arrival_s", "before the previous line's arrival");
  for (auto [v, name] :
       {std::pair{f.input, "input_tokens"}, std::pair{f.output, "output_tokens"}}) {
    if (!v) reject(name, "missing or not a number");
    if (*v < 1 || *v != std::floor(*v)) reject(name, "expected a whole number >= 1");
    // Found by fuzz_requests: 6e23 tokens overflowed the integer conversion. No model has a
    // context anywhere near this; the simulator refuses what exceeds the model's later.
    if (*v > kMaxTraceTokens) reject(name, "more than 10^12 tokens");
  }
  return Request{id, *f.arrival, (int64_t)*f.input, (int64_t)*f.output};
}

TraceFields csv_fields(const std::string& line, const std::string& where) {
  std::vector<std::string> cells = split(line, ',');
  if (cells.size() != 3)
    throw Rejection{where,
                    "expected 3 comma-separated fields, got " + std::to_string(cells.size())};
  return {to_number(cells[0]), to_number(cells[1]), to_number(cells[2])};
}

TraceFields jsonl_fields(const std::string& line, const std::string& where) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Rejection{where, "not a JSON object"};
  TraceFields f;
  for (auto& [key, value] : j.items()) {
    std::optional<double> v;
    if (value.is_number()) v = value.get<double>();
    if (key == "arrival_s")
      f.arrival = v;
    else if (key == "input_tokens")
      f.input = v;
    else if (key == "output_tokens")
      f.output = v;
    else
      throw Rejection{where + ": " + key, "unknown key"};
  }
  return f;
}

}  // namespace

Workload parse_trace_text(const std::string& text, const std::string& label, bool jsonl) {
  std::istringstream in(text);
  return parse_trace_stream(in, label, jsonl);
}

Workload parse_trace_stream(std::istream& in, const std::string& label, bool jsonl) {
  Workload w;
  w.timed = true;
  std::string line;
  int64_t number = 0;
  double last = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::string where = label + ":" + std::to_string(number);
    if (!jsonl && number == 1) {
      if (line != "arrival_s,input_tokens,output_tokens")
        throw InputError(where + ": expected the header arrival_s,input_tokens,output_tokens");
      continue;
    }
    try {
      TraceFields f = jsonl ? jsonl_fields(line, where) : csv_fields(line, where);
      Request r = checked_request(f, where, last, (int64_t)w.requests.size());
      last = r.arrival_s;
      w.requests.push_back(r);
    } catch (const Rejection& r) {
      w.rejected.push_back(r);
    }
  }
  if (w.requests.empty() && w.rejected.empty()) throw InputError(label + ": no requests");
  return w;
}

Workload read_trace(const std::string& flag, const std::string& path) {
  bool csv = path.ends_with(".csv");
  bool jsonl = path.ends_with(".jsonl") || path.ends_with(".json");
  if (!csv && !jsonl)
    throw InputError(flag + " " + path + ": expected a .csv or .jsonl trace file");
  std::ifstream in(path);
  if (!in) throw InputError(flag + " " + path + ": cannot read file");
  return parse_trace_stream(in, path, jsonl);  // line by line: never the file's text whole
}

}  // namespace ridgeline
