// A typed, strict reader over one JSON object, in the manner of Ramulator's parameter reader.
// Every read names its key; every failure throws InputError with the file and the JSON path,
// e.g. `h100-sxm.json: /memory/hbm/bandwidth_GBps: expected a positive number, got "fast"`.
// finish() rejects keys nobody read, so a misspelt key is an error, never a silent default.
//
//   JsonReader r(doc, "h100-sxm.json");
//   double bw = r.child("memory").child("hbm").positive("bandwidth_GBps");
//   r.finish();
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ridgeline {

class JsonReader {
 public:
  // `file` is what errors call the document (a path, "--input line 3", a flag name).
  JsonReader(const nlohmann::json& object, std::string file, std::string path = "");
  JsonReader(JsonReader&&) = default;
  JsonReader(const JsonReader&) = delete;
  ~JsonReader();

  bool has(const std::string& key) const;
  const nlohmann::json& raw(const std::string& key);  // marks the key read; must exist

  double number(const std::string& key);
  double positive(const std::string& key);      // > 0
  double non_negative(const std::string& key);  // >= 0
  double fraction(const std::string& key);      // in (0, 1]
  long long integer(const std::string& key, long long min_value);
  bool boolean(const std::string& key);
  std::string string(const std::string& key);
  std::string one_of(const std::string& key, const std::vector<std::string>& choices);

  std::optional<double> optional_positive(const std::string& key);
  std::optional<long long> optional_integer(const std::string& key, long long min_value);
  std::optional<bool> optional_boolean(const std::string& key);
  std::optional<std::string> optional_string(const std::string& key);

  // A nested object (the same reader each time for one key); its finish() runs with ours.
  JsonReader& child(const std::string& key);
  // child() along a '/'-separated path, e.g. "memory/hbm".
  JsonReader& descend(const std::string& slash_path);
  // The elements of an array of objects, each a reader whose finish() the caller runs.
  std::vector<JsonReader> array_of_objects(const std::string& key);
  // The object's keys, in document order (for maps such as per-dtype tables).
  std::vector<std::string> keys() const;

  // Throws on any key that was never read (recursively through child()).
  void finish();

  // The error for a value at `key` (or at this object when key is empty).
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  // The same for a '/'-separated path below this object, e.g. "memory/l2/capacity_bytes".
  [[noreturn]] void fail_at(const std::string& slash_path, const std::string& message) const;
  std::string where(const std::string& key = "") const;
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }

 private:
  const nlohmann::json& get(const std::string& key, const char* expected);

  const nlohmann::json& object_;
  std::string file_;
  std::string path_;
  std::set<std::string> read_;
  std::vector<std::unique_ptr<JsonReader>> children_;
};

// The string at `key` of `object`, or `fallback` when `object` is not an object or the key is
// missing or not a string: for lenient reads of files whose shape is checked elsewhere (a
// profile's "gpu" when choosing one, a measurement file's meta), never an exception.
std::string string_or(const nlohmann::json& object, const std::string& key,
                      const std::string& fallback = "");

// Short, quoted rendering of a JSON value for error messages.
std::string describe_json(const nlohmann::json& value);

// Parses text as JSON, turning a syntax error into an InputError naming `file`.
nlohmann::json parse_json_text(const std::string& text, const std::string& file);
// Reads and parses a file; a missing or unreadable file is an InputError naming it.
nlohmann::json read_json_file(const std::string& path);

}  // namespace ridgeline
