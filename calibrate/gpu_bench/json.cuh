// A small ordered JSON value for the benchmark report. The suite writes one file whose key order
// should read like the method (meta first, then each point's name, parameters, samples, derived
// figures), so objects keep insertion order; a hand-written value avoids a third-party dependency
// on the GPU machine, where nothing can be installed. Non-finite numbers are written as null.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridgeline::gpubench {

class Json {
 public:
  Json() = default;  // null
  Json(bool b) : kind_(Kind::Bool), bool_(b) {}
  Json(int v) : kind_(Kind::Int), int_(v) {}
  Json(long v) : kind_(Kind::Int), int_(v) {}
  Json(long long v) : kind_(Kind::Int), int_(v) {}
  Json(unsigned v) : kind_(Kind::Int), int_(v) {}
  Json(unsigned long v) : kind_(Kind::Int), int_(static_cast<int64_t>(v)) {}
  Json(unsigned long long v) : kind_(Kind::Int), int_(static_cast<int64_t>(v)) {}
  Json(double v) : kind_(Kind::Double), double_(v) {}
  Json(float v) : kind_(Kind::Double), double_(v) {}
  Json(const char* s) : kind_(Kind::String), string_(s) {}
  Json(std::string s) : kind_(Kind::String), string_(std::move(s)) {}

  static Json array() { return Json(Kind::Array); }
  static Json object() { return Json(Kind::Object); }
  template <typename T>
  static Json array_of(const std::vector<T>& values) {
    Json a = array();
    for (const T& v : values) a.push_back(Json(v));
    return a;
  }

  // Object access: returns the member, inserting null (and turning a null into an object).
  Json& operator[](const std::string& key);
  const Json* find(const std::string& key) const;
  bool contains(const std::string& key) const { return find(key) != nullptr; }
  void push_back(Json v);  // arrays (a null becomes an array)
  size_t size() const { return kind_ == Kind::Object ? keys_.size() : items_.size(); }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Double; }
  double as_double() const { return kind_ == Kind::Int ? static_cast<double>(int_) : double_; }

  // indent < 0: one line. Arrays of plain numbers stay on one line either way.
  std::string dump(int indent = 1) const;

 private:
  enum class Kind { Null, Bool, Int, Double, String, Array, Object };
  explicit Json(Kind k) : kind_(k) {}
  void dump_to(std::string& out, int indent, int depth) const;
  bool is_flat_array() const;

  Kind kind_ = Kind::Null;
  bool bool_ = false;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<std::string> keys_;  // objects: keys_[i] names items_[i]
  std::vector<Json> items_;
};

}  // namespace ridgeline::gpubench
