// The JSONL view of `ridgeline op` results: one object a line, the bytes nlohmann's dump()
// prints for op_result_json (same keys in the same order, numbers through nlohmann's own
// shortest round-trip formatter, strings escaped by nlohmann whenever they need escaping),
// written through a cursor into one reserved buffer that goes out in large writes. Before each
// line the buffer is made to hold the line's worst case (a fixed bound for the keys and numbers,
// six bytes a character for its strings, nlohmann's worst escape), so no write checks for room.
// A batch of 200k ops spent most of its time here: building an ordered_json allocates for every
// key, and std::string appends cost a capacity check and a call each. Numbers that are not whole
// go through json_double_to_chars (nlohmann's digits, faster).
#include "cli/views/op_jsonl.h"

#include "cli/views/json_double.h"
#include "cli/views/op_fields.h"
#include "cli/views/views.h"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace ridgeline {

namespace {

// Room one line needs besides its strings: ~40 keys and ~35 numbers of at most 32 bytes each.
constexpr size_t kLineBytes = 4096;

// The text of the last value each key printed: the shortest-digits search is the one costly step
// left, and some values repeat line after line (the interval's coverage, an op kind's overhead).
// Slots are keyed by the key literal's address; a collision only costs a miss.
struct NumberCache {
  struct Slot {
    uint64_t bits = 0;
    const char* key = nullptr;
    uint8_t len = 0;
    char text[32];  // copied whole (a fixed-size copy is two moves; a number is at most 25 bytes)
  };
  std::array<Slot, 128> slots;
};

class JsonlWriter {
 public:
  JsonlWriter(char* p, NumberCache& cache) : p_(p), cache_(cache) {}
  char* cursor() const { return p_; }

  void open() { *p_++ = '{'; }
  void close() {
    *p_++ = '}';
    *p_++ = '\n';
  }
  template <size_t N, class T>
  void field(const char (&key)[N], const T& value) {
    comma_and_key(key);
    write(value);
  }
  template <size_t N>
  void field(const char (&key)[N], double value) {
    comma_and_key(key);
    write_number(key, value);
  }
  template <size_t N>
  void begin(const char (&key)[N]) {
    comma_and_key(key);
    *p_++ = '{';
    first_ = true;
  }
  void end() {
    *p_++ = '}';
    first_ = false;
  }

 private:
  template <size_t N>
  void comma_and_key(const char (&key)[N]) {  // our own keys: plain ASCII, nothing to escape
    if (!first_) *p_++ = ',';
    first_ = false;
    *p_++ = '"';
    std::memcpy(p_, key, N - 1);
    p_ += N - 1;
    *p_++ = '"';
    *p_++ = ':';
  }
  void write(std::string_view s) {
    if (needs_escape(s)) {  // nlohmann words these
      std::string text = nlohmann::json(std::string(s)).dump();
      std::memcpy(p_, text.data(), text.size());
      p_ += text.size();
      return;
    }
    *p_++ = '"';
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
    *p_++ = '"';
  }
  // A control character, a non-ASCII byte, '"' or '\\': eight bytes a step (SWAR).
  static bool needs_escape(std::string_view s) {
    constexpr uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    auto has_zero = [](uint64_t v) { return (v - ones) & ~v & highs; };
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & highs) || has_zero(w & (0xe0e0e0e0e0e0e0e0ull)) || has_zero(w ^ (ones * '"')) ||
          has_zero(w ^ (ones * '\\')))
        return true;
    }
    for (; i < s.size(); ++i) {
      auto u = static_cast<unsigned char>(s[i]);
      if (u < 0x20 || u >= 0x80 || s[i] == '"' || s[i] == '\\') return true;
    }
    return false;
  }
  void write(const std::string& s) { write(std::string_view(s)); }
  void write(const char* s) { write(std::string_view(s)); }
  void write(double x) {
    if (!std::isfinite(x)) {
      std::memcpy(p_, "null", 4);
      p_ += 4;
      return;
    }
    // A whole number below 10^15 (most byte and FLOP counts) prints as nlohmann prints it,
    // its digits and ".0", without the shortest-digits search.
    if (x == 0) {
      if (std::signbit(x)) *p_++ = '-';
      std::memcpy(p_, "0.0", 3);
      p_ += 3;
      return;
    }
    if (std::fabs(x) < 1e15 && std::trunc(x) == x) {
      p_ = std::to_chars(p_, p_ + 24, static_cast<long long>(x)).ptr;
      *p_++ = '.';
      *p_++ = '0';
      return;
    }
    p_ = json_double_to_chars(p_, x);
  }
  void write(int x) { p_ = std::to_chars(p_, p_ + 16, x).ptr; }
  void write_number(const char* key, double x) {
    if (!std::isfinite(x) || x == 0 || (std::fabs(x) < 1e15 && std::trunc(x) == x)) {
      write(x);  // no digit search to save
      return;
    }
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    NumberCache::Slot& slot = cache_.slots[(reinterpret_cast<uintptr_t>(key) >> 3) % 128];
    if (slot.key == key && slot.bits == bits) {
      if (slot.len > 0) {
        std::memcpy(p_, slot.text, sizeof slot.text);  // the line's room holds the excess
        p_ += slot.len;
        return;
      }
      char* start = p_;  // seen the second time: keep its text from now on
      p_ = json_double_to_chars(p_, x);
      slot.len = static_cast<uint8_t>(p_ - start);
      std::memcpy(slot.text, start, sizeof slot.text);
      return;
    }
    // Seen the first time: only remembered. Copying text just written byte by byte stalls the
    // load on the stores, a cost not worth paying for values that never come again.
    p_ = json_double_to_chars(p_, x);
    slot.key = key, slot.bits = bits, slot.len = 0;
  }

  char* p_;
  NumberCache& cache_;
  bool first_ = true;
};

// The worst case of a line's strings: nlohmann escapes a byte into at most six ("\u001f").
size_t string_bytes(const std::string& id, const std::string& error,
                    const PredictionInterval* interval) {
  size_t n = id.size() + error.size();
  if (interval)
    n += interval->category.size() + interval->calibration.size() + interval->basis.size();
  return 6 * n + 64;
}

constexpr size_t kFlushBytes = 1 << 20;

}  // namespace

struct OpJsonlPrinter::State {
  std::vector<char> buffer = std::vector<char>(kFlushBytes + kLineBytes);
  size_t used = 0;
  NumberCache cache;
};

OpJsonlPrinter::OpJsonlPrinter(std::ostream& os) : os_(os), s_(std::make_unique<State>()) {}

OpJsonlPrinter::~OpJsonlPrinter() {
  flush();
}

void OpJsonlPrinter::flush() {
  os_.write(s_->buffer.data(), static_cast<std::streamsize>(s_->used));
  s_->used = 0;
}

template <class Fill>
void OpJsonlPrinter::line(size_t string_room, const Fill& fill) {
  State& s = *s_;
  const size_t need = kLineBytes + string_room;
  if (s.buffer.size() - s.used < need) {
    flush();
    if (s.buffer.size() < need) s.buffer.resize(need);
  }
  JsonlWriter w(s.buffer.data() + s.used, s.cache);
  w.open();
  fill(w);
  w.close();
  s.used = static_cast<size_t>(w.cursor() - s.buffer.data());
  if (s.used >= kFlushBytes) flush();
}

void OpJsonlPrinter::print(const OpResult& r) {
  const PredictionInterval* interval = r.interval ? &*r.interval : nullptr;
  line(string_bytes(r.id, r.error, interval), [&](JsonlWriter& w) { op_result_fields(r, w); });
}

void OpJsonlPrinter::print(const std::string& id, const Op& op, const OpCost& cost,
                           const PredictionInterval* interval) {
  static const std::string kNoError;
  line(string_bytes(id, kNoError, interval),
       [&](JsonlWriter& w) { op_cost_fields(id, op, cost, interval, w); });
}

void print_op_jsonl(std::ostream& os, const std::vector<OpResult>& results) {
  OpJsonlPrinter printer(os);
  for (const auto& r : results) printer.print(r);
}

}  // namespace ridgeline
