// The JSONL view of `ridgeline op` results: one object a line, the bytes nlohmann's dump()
// prints for op_result_json (same keys in the same order, numbers through nlohmann's own
// shortest round-trip formatter, strings escaped by nlohmann whenever they need escaping),
// written straight into one buffer that goes out in large writes. A batch of 200k ops spends
// most of its time here otherwise: building an ordered_json allocates for every key.
#include "cli/views/op_fields.h"
#include "cli/views/views.h"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>
#include <type_traits>

namespace ridgeline {

namespace {

class JsonlWriter {
 public:
  explicit JsonlWriter(std::string& out) : out_(out) {}

  void open() { out_ += '{'; }
  void close() { out_ += "}\n"; }
  template <size_t N, class T>
  void field(const char (&key)[N], const T& value) {
    comma_and_key(std::string_view(key, N - 1));
    write(value);
  }
  template <size_t N>
  void begin(const char (&key)[N]) {
    comma_and_key(std::string_view(key, N - 1));
    out_ += '{';
    first_ = true;
  }
  void end() {
    out_ += '}';
    first_ = false;
  }

 private:
  void comma_and_key(std::string_view key) {
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '"';
    out_ += key;  // our own keys: plain ASCII, nothing to escape
    out_ += "\":";
  }
  void write(std::string_view s) {
    for (char c : s) {
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x80 || c == '"' || c == '\\') {  // nlohmann words these
        out_ += nlohmann::json(std::string(s)).dump();
        return;
      }
    }
    out_ += '"';
    out_ += s;
    out_ += '"';
  }
  void write(const std::string& s) { write(std::string_view(s)); }
  void write(const char* s) { write(std::string_view(s)); }
  void write(double x) {
    if (!std::isfinite(x)) {
      out_ += "null";
      return;
    }
    // A whole number below 10^15 (most byte and FLOP counts) prints as nlohmann prints it,
    // its digits and ".0", without the shortest-digits search.
    if (x == 0) {
      out_ += std::signbit(x) ? "-0.0" : "0.0";
      return;
    }
    if (std::fabs(x) < 1e15 && std::trunc(x) == x) {
      std::array<char, 24> buf;
      auto res = std::to_chars(buf.data(), buf.data() + buf.size(), static_cast<long long>(x));
      out_.append(buf.data(), res.ptr);
      out_ += ".0";
      return;
    }
    std::array<char, 64> buf;
    char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), x);
    out_.append(buf.data(), end);
  }
  void write(int x) {
    std::array<char, 16> buf;
    auto res = std::to_chars(buf.data(), buf.data() + buf.size(), x);
    out_.append(buf.data(), res.ptr);
  }

  std::string& out_;
  bool first_ = true;
};

}  // namespace

void print_op_jsonl(std::ostream& os, const std::vector<OpResult>& results) {
  constexpr size_t kFlushBytes = 1 << 20;
  std::string buffer;  // one op's line is ~700 bytes
  buffer.reserve(kFlushBytes + 4096);
  for (const auto& r : results) {
    JsonlWriter w(buffer);
    w.open();
    op_result_fields(r, w);
    w.close();
    if (buffer.size() >= kFlushBytes) {
      os.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  os.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace ridgeline
