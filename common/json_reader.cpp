// Strict, path-naming JSON reading; see json_reader.h.
#include "common/json_reader.h"

#include "common/errors.h"
#include "common/json_path.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace ridgeline {

namespace {

std::string pointer_escape(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string describe_json(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

std::string string_or(const nlohmann::json& object, const std::string& key,
                      const std::string& fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

JsonReader::JsonReader(const nlohmann::json& object, std::string file, std::string path)
    : object_(object), file_(std::move(file)), path_(std::move(path)) {
  if (!object_.is_object()) {
    throw InputError(located(where(), "expected an object, got " + describe_json(object_)));
  }
}

JsonReader::~JsonReader() = default;

std::string JsonReader::where(const std::string& key) const {
  std::string p = key.empty() ? path_ : path_ + "/" + pointer_escape(key);
  if (p.empty()) p = "/";
  return file_.empty() ? p : file_ + ": " + p;
}

void JsonReader::fail(const std::string& key, const std::string& message) const {
  throw InputError(where(key) + ": " + message);
}

void JsonReader::fail_at(const std::string& slash_path, const std::string& message) const {
  std::string p = path_ + "/" + slash_path;
  throw InputError((file_.empty() ? p : file_ + ": " + p) + ": " + message);
}

bool JsonReader::has(const std::string& key) const {
  return object_.contains(key);
}

std::vector<std::string> JsonReader::keys() const {
  std::vector<std::string> out;
  for (auto it = object_.begin(); it != object_.end(); ++it) out.push_back(it.key());
  return out;
}

const nlohmann::json& JsonReader::get(const std::string& key, const char* expected) {
  auto it = object_.find(key);
  if (it == object_.end()) fail(key, std::string("missing; expected ") + expected);
  read_.insert(key);
  return *it;
}

const nlohmann::json& JsonReader::raw(const std::string& key) {
  return get(key, "a value");
}

double JsonReader::number(const std::string& key) {
  const auto& v = get(key, "a number");
  if (!v.is_number()) fail(key, "expected a number, got " + describe_json(v));
  double x = v.get<double>();
  if (!std::isfinite(x)) fail(key, "expected a finite number");
  return x;
}

double JsonReader::positive(const std::string& key) {
  const auto& v = get(key, "a positive number");
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
    fail(key, "expected a positive number, got " + describe_json(v));
  }
  return v.get<double>();
}

double JsonReader::non_negative(const std::string& key) {
  const auto& v = get(key, "a number >= 0");
  if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>())) {
    fail(key, "expected a number >= 0, got " + describe_json(v));
  }
  return v.get<double>();
}

double JsonReader::fraction(const std::string& key) {
  const auto& v = get(key, "a fraction in (0, 1]");
  if (!v.is_number() || !(v.get<double>() > 0) || !(v.get<double>() <= 1)) {
    fail(key, "expected a fraction in (0, 1], got " + describe_json(v));
  }
  return v.get<double>();
}

long long JsonReader::integer(const std::string& key, long long min_value) {
  const auto& v = get(key, "an integer");
  bool whole = v.is_number_integer() ||
               (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
                std::fabs(v.get<double>()) < 9e15);
  if (!whole) fail(key, "expected an integer, got " + describe_json(v));
  long long x = v.is_number_integer() ? v.get<long long>() : (long long)v.get<double>();
  if (v.is_number_unsigned() && v.get<unsigned long long>() > 9000000000000000000ULL) {
    fail(key, "integer too large: " + describe_json(v));
  }
  if (x < min_value) {
    fail(key, "expected an integer >= " + std::to_string(min_value) + ", got " + describe_json(v));
  }
  return x;
}

bool JsonReader::boolean(const std::string& key) {
  const auto& v = get(key, "true or false");
  if (!v.is_boolean()) fail(key, "expected true or false, got " + describe_json(v));
  return v.get<bool>();
}

std::string JsonReader::string(const std::string& key) {
  const auto& v = get(key, "a string");
  if (!v.is_string()) fail(key, "expected a string, got " + describe_json(v));
  return v.get<std::string>();
}

std::string JsonReader::one_of(const std::string& key, const std::vector<std::string>& choices) {
  std::string s = string(key);
  for (const auto& c : choices) {
    if (c == s) return s;
  }
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  fail(key, "expected one of " + list + "; got \"" + s + "\"");
}

std::optional<double> JsonReader::optional_positive(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return positive(key);
}

std::optional<long long> JsonReader::optional_integer(const std::string& key, long long min_value) {
  if (!has(key)) return std::nullopt;
  return integer(key, min_value);
}

std::optional<bool> JsonReader::optional_boolean(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return boolean(key);
}

std::optional<std::string> JsonReader::optional_string(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return string(key);
}

JsonReader& JsonReader::child(const std::string& key) {
  const auto& v = get(key, "an object");
  if (!v.is_object()) fail(key, "expected an object, got " + describe_json(v));
  std::string child_path = path_ + "/" + pointer_escape(key);
  for (auto& c : children_) {
    if (c->path_ == child_path) return *c;
  }
  children_.push_back(std::make_unique<JsonReader>(v, file_, child_path));
  return *children_.back();
}

JsonReader& JsonReader::descend(const std::string& slash_path) {
  JsonReader* r = this;
  if (slash_path.empty()) return *r;
  for (const auto& key : split_json_path(slash_path, "/")) r = &r->child(key);
  return *r;
}

std::vector<JsonReader> JsonReader::array_of_objects(const std::string& key) {
  const auto& v = get(key, "an array");
  if (!v.is_array()) fail(key, "expected an array, got " + describe_json(v));
  std::vector<JsonReader> out;
  std::string base = path_ + "/" + pointer_escape(key);
  for (size_t i = 0; i < v.size(); ++i) {
    out.emplace_back(v[i], file_, base + "/" + std::to_string(i));
  }
  return out;
}

void JsonReader::finish() {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (!read_.count(it.key())) fail(it.key(), "unknown key");
  }
  for (auto& c : children_) c->finish();
}

namespace {

// Found probing with 10^6 nested arrays: the file parsed, then an error message's dump of it
// overflowed the stack (a segfault). No input of ours nests past a few levels.
constexpr int kMaxJsonDepth = 512;

void check_depth(const std::string& text, const std::string& file) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw InputError(located(
            file, "invalid JSON: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& file) {
  check_depth(text, file);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string msg = e.what();
    auto pos = msg.find("parse error");
    throw InputError(
        located(file, "invalid JSON: " + (pos == std::string::npos ? msg : msg.substr(pos))));
  } catch (const nlohmann::json::out_of_range& e) {  // a number too large for a double
    std::string msg = e.what();
    auto pos = msg.find("number overflow");
    throw InputError(
        located(file, "invalid JSON: " + (pos == std::string::npos ? msg : msg.substr(pos))));
  }
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(located(path, "cannot open file"));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_json_text(ss.str(), path);
}

}  // namespace ridgeline
