// Serialization of the small ordered JSON value (see json.cuh): objects in insertion order,
// numbers with 10 significant digits (microsecond samples need no more), strings escaped per
// RFC 8259, NaN and infinities as null so the file always parses.
#include "json.cuh"

#include <cmath>
#include <cstdio>

namespace ridgeline::gpubench {

Json& Json::operator[](const std::string& key) {
  if (kind_ == Kind::Null) kind_ = Kind::Object;
  for (size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key) return items_[i];
  keys_.push_back(key);
  items_.emplace_back();
  return items_.back();
}

const Json* Json::find(const std::string& key) const {
  for (size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key) return &items_[i];
  return nullptr;
}

void Json::push_back(Json v) {
  if (kind_ == Kind::Null) kind_ = Kind::Array;
  items_.push_back(std::move(v));
}

namespace {

void escape_to(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void newline_to(std::string& out, int indent, int depth) {
  if (indent < 0) return;
  out += '\n';
  out.append(static_cast<size_t>(indent * depth), ' ');
}

}  // namespace

bool Json::is_flat_array() const {
  for (const Json& v : items_)
    if (v.kind_ == Kind::Array || v.kind_ == Kind::Object) return false;
  return true;
}

void Json::dump_to(std::string& out, int indent, int depth) const {
  switch (kind_) {
    case Kind::Null:
      out += "null";
      return;
    case Kind::Bool:
      out += bool_ ? "true" : "false";
      return;
    case Kind::Int:
      out += std::to_string(int_);
      return;
    case Kind::Double: {
      if (!std::isfinite(double_)) {
        out += "null";
        return;
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.10g", double_);
      out += buf;
      return;
    }
    case Kind::String:
      escape_to(out, string_);
      return;
    case Kind::Array: {
      bool flat = is_flat_array();
      out += '[';
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) out += flat || indent < 0 ? ", " : ",";
        if (!flat) newline_to(out, indent, depth + 1);
        items_[i].dump_to(out, indent, depth + 1);
      }
      if (!flat && !items_.empty()) newline_to(out, indent, depth);
      out += ']';
      return;
    }
    case Kind::Object: {
      out += '{';
      for (size_t i = 0; i < keys_.size(); ++i) {
        if (i) out += indent < 0 ? ", " : ",";
        newline_to(out, indent, depth + 1);
        escape_to(out, keys_[i]);
        out += ": ";
        items_[i].dump_to(out, indent, depth + 1);
      }
      if (!keys_.empty()) newline_to(out, indent, depth);
      out += '}';
      return;
    }
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  dump_to(out, indent, 0);
  return out;
}

}  // namespace ridgeline::gpubench
