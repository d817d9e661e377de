// Number formatting for text views.
#include "cli/views/views.h"

#include <charconv>
#include <cstdio>

namespace ridgeline {

std::string fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

std::string exact(double x) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, res.ptr);
}

std::string human_us(double us) {
  if (us >= 1e6) return fixed(us / 1e6, 3) + " s";
  if (us >= 1e3) return fixed(us / 1e3, 3) + " ms";
  return fixed(us, us < 10 ? 2 : 1) + " us";
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  return fixed(bytes, bytes < 10 && u > 0 ? 2 : (u > 0 ? 1 : 0)) + " " + units[u];
}

}  // namespace ridgeline
