// FastOpParser; see op_parse_fast.h. FlatReader offers JsonReader's typed calls over the
// fields of one line; every failure, instead of a message, throws GiveUp, which parse() turns
// into "ask parse_op". The line is copied into a buffer with simdjson's padding (lines are
// short), so the parser never reads past what it owns.
#include "workloads/op_parse_fast.h"

#include "workloads/op_parse_rules.h"

#ifdef RIDGELINE_HAVE_SIMDJSON
#include <simdjson.h>
#endif

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

namespace ridgeline {

#ifdef RIDGELINE_HAVE_SIMDJSON

namespace {

struct GiveUp {};

struct Field {
  enum class Type { Integer, Float, String, Boolean } type;
  std::string_view key;
  long long integer = 0;
  double number = 0;
  std::string_view text;
  bool flag = false;
  bool read = false;
};

// An op object has at most a dozen keys; more than this is left to parse_op.
constexpr size_t kMaxFields = 16;

class FlatReader {
 public:
  bool add(const Field& f) {
    if (count_ == kMaxFields || find(f.key) != nullptr) return false;  // repeated key: parse_op
    fields_[count_++] = f;
    return true;
  }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  long long integer(std::string_view key, long long min_value) {
    const Field& f = get(key, Field::Type::Integer);
    if (f.integer < min_value) give_up();
    return f.integer;
  }
  double positive(std::string_view key) { return number(key, true); }
  double non_negative(std::string_view key) { return number(key, false); }
  bool boolean(std::string_view key) { return get(key, Field::Type::Boolean).flag; }
  std::string string(std::string_view key) {
    return std::string(get(key, Field::Type::String).text);
  }
  std::string one_of(std::string_view key, const std::vector<std::string>& choices) {
    std::string_view s = get(key, Field::Type::String).text;
    for (const auto& c : choices) {
      if (c == s) return c;
    }
    give_up();
  }
  std::string op_id(std::string_view key) {
    Field* f = find(key);
    if (f == nullptr || f->type == Field::Type::Float || f->type == Field::Type::Boolean) give_up();
    f->read = true;
    return f->type == Field::Type::String ? std::string(f->text) : std::to_string(f->integer);
  }
  [[noreturn]] void fail(std::string_view, const std::string&) const { give_up(); }
  void finish() const {
    for (size_t i = 0; i < count_; ++i) {
      if (!fields_[i].read) give_up();
    }
  }

 private:
  [[noreturn]] static void give_up() { throw GiveUp{}; }
  Field* find(std::string_view key) {
    for (size_t i = 0; i < count_; ++i) {
      if (fields_[i].key == key) return &fields_[i];
    }
    return nullptr;
  }
  const Field* find(std::string_view key) const { return const_cast<FlatReader*>(this)->find(key); }
  Field& get(std::string_view key, Field::Type type) {
    Field* f = find(key);
    if (f == nullptr || f->type != type) give_up();
    f->read = true;
    return *f;
  }
  double number(std::string_view key, bool strictly_positive) {
    Field* f = find(key);
    if (f == nullptr || (f->type != Field::Type::Integer && f->type != Field::Type::Float))
      give_up();
    double x = f->type == Field::Type::Integer ? static_cast<double>(f->integer) : f->number;
    if (!std::isfinite(x) || !(strictly_positive ? x > 0 : x >= 0)) give_up();
    f->read = true;
    return x;
  }

  std::array<Field, kMaxFields> fields_;
  size_t count_ = 0;
};

// The value of one field, or false when parse_op should judge it (null, arrays, objects,
// integers beyond what JsonReader takes as they are, malformed text).
bool read_value(simdjson::ondemand::value v, Field& f) {
  using simdjson::ondemand::json_type;
  json_type type;
  if (v.type().get(type)) return false;
  if (type == json_type::string) {
    f.type = Field::Type::String;
    return !v.get_string().get(f.text);
  }
  if (type == json_type::boolean) {
    f.type = Field::Type::Boolean;
    return !v.get_bool().get(f.flag);
  }
  if (type != json_type::number) return false;
  simdjson::ondemand::number_type nt;
  if (v.get_number_type().get(nt)) return false;
  if (nt == simdjson::ondemand::number_type::signed_integer) {
    int64_t i;
    if (v.get_int64().get(i) || i > 9000000000000000000LL || i < -9000000000000000000LL)
      return false;
    f.type = Field::Type::Integer;
    f.integer = i;
    return true;
  }
  if (nt != simdjson::ondemand::number_type::floating_point_number) return false;
  f.type = Field::Type::Float;
  return !v.get_double().get(f.number);
}

}  // namespace

struct FastOpParser::Impl {
  simdjson::ondemand::parser parser;
  std::string buffer;
};

FastOpParser::FastOpParser() : impl_(std::make_unique<Impl>()) {}
FastOpParser::~FastOpParser() = default;

std::optional<Op> FastOpParser::parse(std::string_view line, const std::string& fallback_id) {
  std::string& buf = impl_->buffer;
  if (buf.size() < line.size() + simdjson::SIMDJSON_PADDING)
    buf.assign(line.size() + simdjson::SIMDJSON_PADDING, '\0');
  std::memcpy(buf.data(), line.data(), line.size());
  std::memset(buf.data() + line.size(), 0, simdjson::SIMDJSON_PADDING);
  simdjson::ondemand::document doc;
  if (impl_->parser.iterate(buf.data(), line.size(), buf.size()).get(doc)) return std::nullopt;
  simdjson::ondemand::object object;
  if (doc.get_object().get(object)) return std::nullopt;
  FlatReader r;
  for (auto field : object) {
    Field f{};
    simdjson::ondemand::value v;
    if (field.unescaped_key().get(f.key) || field.value().get(v)) return std::nullopt;
    if (!read_value(v, f) || !r.add(f)) return std::nullopt;
  }
  const char* rest = nullptr;  // simdjson says OUT_OF_BOUNDS at the end of the line
  if (doc.current_location().get(rest) != simdjson::OUT_OF_BOUNDS) return std::nullopt;
  try {
    return op_rules::read_op(r, fallback_id);
  } catch (const GiveUp&) {
    return std::nullopt;
  }
}

#else  // built without simdjson: every line goes to parse_op

struct FastOpParser::Impl {};
FastOpParser::FastOpParser() = default;
FastOpParser::~FastOpParser() = default;
std::optional<Op> FastOpParser::parse(std::string_view, const std::string&) {
  return std::nullopt;
}

#endif

}  // namespace ridgeline
