// See op_runner.h. A JSONL batch is read in large chunks and split into lines (no per-line
// stream reads); each line goes first to FastOpParser (simdjson) and, when that declines (anything
// irregular) or the model rejects the op, through the strict nlohmann path, which gives the
// line its error (OpLineRunner does this a line at a time; run_op_lines keeps every result). Both
// paths accept exactly the same lines with the same Op, so the output does not depend on which one
// read a line. Each predicted op gets its 80% interval (validate/intervals.h) here, so every caller
// (`ridgeline op`, the Python package) shows it.
#include "cli/op_runner.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "validate/intervals.h"
#include "workloads/op_parse.h"
#include "workloads/op_parse_fast.h"

#include <string_view>

namespace ridgeline {

namespace {

std::optional<PredictionInterval> interval_of(const Op& op, const OpCost& cost,
                                              const GpuSpec& gpu) {
  return kernel_interval(builtin_interval_table(), gpu, op, cost.time_us);
}

}  // namespace

OpResult run_op_object(const nlohmann::json& object, const std::string& label,
                       const std::string& fallback_id, const GpuSpec& gpu) {
  OpResult r;
  r.id = fallback_id;
  if (object.is_object() && object.contains("id")) {
    const auto& id = object["id"];
    r.id = id.is_string() ? id.get<std::string>() : id.dump();
  }
  try {
    r.op = parse_op(object, label, r.id);
    r.cost = predict_op(*r.op, gpu);
    r.interval = interval_of(*r.op, *r.cost, gpu);
  } catch (const InputError& e) {
    std::string msg = e.what();
    // Model errors start with the JSON path; name the line in front of them.
    r.error = msg.rfind(label, 0) == 0 ? msg : label + ": " + msg;
    r.cost.reset();
  }
  return r;
}

namespace {

// The strict path for one line: its JSON error, or run_op_object's result.
OpResult run_line_strictly(std::string_view line, const std::string& label, int number,
                           const GpuSpec& gpu) {
  std::string where = label + " line " + std::to_string(number);
  nlohmann::json object;
  try {
    object = parse_json_text(std::string(line), where);
  } catch (const InputError& e) {
    return {"line " + std::to_string(number), std::nullopt, std::nullopt, e.what(), std::nullopt};
  }
  return run_op_object(object, where, "line " + std::to_string(number), gpu);
}

}  // namespace

struct OpLineRunner::State {
  State(std::istream* i, std::string l, const GpuSpec& g)
      : in(i),
        label(std::move(l)),
        gpu(g),
        end_of_input(i == nullptr),
        intervals(builtin_interval_table(), g) {}
  std::istream* in;  // null: only fed texts
  std::string label;
  const GpuSpec& gpu;
  std::string text;  // read, from the start of the current line on
  size_t start = 0;
  bool end_of_input = false;
  int number = 0;
  FastOpParser fast;
  KernelIntervalMemo intervals;
  std::string fallback_id;
};

OpLineRunner::OpLineRunner(std::istream& in, std::string label, const GpuSpec& gpu)
    : s_(std::make_unique<State>(&in, std::move(label), gpu)) {}

OpLineRunner::OpLineRunner(std::string label, const GpuSpec& gpu)
    : s_(std::make_unique<State>(nullptr, std::move(label), gpu)) {}

void OpLineRunner::feed(std::string text, int lines_before) {
  State& s = *s_;
  s.text = std::move(text);
  s.start = 0;
  s.end_of_input = true;
  s.in = nullptr;
  s.number = lines_before;
}

OpLineRunner::~OpLineRunner() = default;

// The next line (without its '\n'; the last one may have none), valid until the next call;
// false at the end. Input is read 1 MiB at a time, so memory does not grow with the batch.
bool OpLineRunner::next_line(std::string_view& line) {
  State& s = *s_;
  constexpr size_t kChunk = 1 << 20;
  size_t searched = s.start;
  for (;;) {
    size_t end = s.text.find('\n', searched);
    if (end != std::string::npos) {
      line = std::string_view(s.text.data() + s.start, end - s.start);
      s.start = end + 1;
      return true;
    }
    if (s.end_of_input) {
      if (s.start >= s.text.size()) return false;
      line = std::string_view(s.text.data() + s.start, s.text.size() - s.start);
      s.start = s.text.size();
      return true;
    }
    s.text.erase(0, s.start);
    s.start = 0;
    searched = s.text.size();
    s.text.resize(searched + kChunk);
    s.in->read(s.text.data() + searched, kChunk);
    const auto got = static_cast<size_t>(s.in->gcount());
    s.text.resize(searched + got);
    if (got < kChunk) s.end_of_input = true;
  }
}

bool OpLineRunner::next() {
  State& s = *s_;
  std::string_view line;
  while (next_line(line)) {
    ++s.number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    s.fallback_id = "line " + std::to_string(s.number);
    op_ = s.fast.parse(line, s.fallback_id);
    if (op_) {
      try {
        cost_ = predict_op(*op_, s.gpu);
        interval_ = s.intervals.interval_ref(*op_, cost_.time_us);
        fast_ = true;
        return true;
      } catch (const InputError&) {  // the strict path words the model's error
      }
    }
    fast_ = false;
    interval_ = nullptr;
    result_ = run_line_strictly(line, s.label, s.number, s.gpu);
    return true;
  }
  return false;
}

std::vector<OpResult> run_op_lines(std::istream& in, const std::string& label, const GpuSpec& gpu) {
  OpLineRunner lines(in, label, gpu);
  std::vector<OpResult> out;
  while (lines.next()) {
    if (!lines.fast()) {
      out.push_back(std::move(lines.result()));
      continue;
    }
    std::optional<PredictionInterval> interval;
    if (lines.interval()) interval = *lines.interval();
    out.push_back({lines.op().id, lines.op(), lines.cost(), {}, std::move(interval)});
  }
  return out;
}

}  // namespace ridgeline
