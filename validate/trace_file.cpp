// Trace files, plain or gzipped, and SHA-256; see trace_file.h. SHA-256 follows FIPS 180-4.
#include "validate/trace_file.h"

#include "common/errors.h"
#include "common/json_reader.h"

#include <zlib.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <sstream>

namespace ridgeline {

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && (unsigned char)bytes[0] == 0x1f && (unsigned char)bytes[1] == 0x8b;
}

// Inflates a gzip stream (concatenated members included).
std::string gunzip(const std::string& bytes, const std::string& path) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    throw InputError(path + ": cannot start zlib to read the gzip file");
  z.next_in = (Bytef*)bytes.data();
  z.avail_in = (uInt)bytes.size();
  std::string out;
  std::array<char, 1 << 16> buf;
  int rc = Z_OK;
  while (rc != Z_STREAM_END || z.avail_in > 0) {
    if (rc == Z_STREAM_END) inflateReset(&z);  // another gzip member follows
    z.next_out = (Bytef*)buf.data();
    z.avail_out = (uInt)buf.size();
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      std::string why = z.msg ? z.msg : (rc == Z_BUF_ERROR ? "the file ends early" : "bad data");
      inflateEnd(&z);
      throw InputError(path + ": not a readable gzip file (" + why + ")");
    }
    out.append(buf.data(), buf.size() - z.avail_out);
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      inflateEnd(&z);
      throw InputError(path + ": not a readable gzip file (the file ends early)");
    }
  }
  inflateEnd(&z);
  return out;
}

uint32_t rotr(uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

constexpr uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

void compress_block(std::array<uint32_t, 8>& h, const unsigned char* p) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
           (uint32_t)p[4 * i + 3];
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 =
        k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  uint32_t v[8] = {a, b, c, d, e, f, g, k};
  for (int i = 0; i < 8; ++i) h[i] += v[i];
}

}  // namespace

std::string sha256_hex(const std::string& bytes) {
  std::array<uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m = bytes;
  uint64_t bits = (uint64_t)bytes.size() * 8;
  m.push_back((char)0x80);
  while (m.size() % 64 != 56) m.push_back(0);
  for (int i = 7; i >= 0; --i) m.push_back((char)(bits >> (8 * i)));
  for (size_t i = 0; i < m.size(); i += 64) compress_block(h, (const unsigned char*)m.data() + i);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (uint32_t x : h)
    for (int i = 28; i >= 0; i -= 4) out.push_back(hex[(x >> i) & 0xf]);
  return out;
}

TraceFile read_trace_file(const std::string& path) {
  std::string bytes = read_bytes(path);
  TraceFile t;
  t.sha256 = sha256_hex(bytes);
  t.gzipped = is_gzip(bytes);
  t.json = parse_json_text(t.gzipped ? gunzip(bytes, path) : bytes, path);
  return t;
}

}  // namespace ridgeline
