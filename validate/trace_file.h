// Reading a profiler trace file as it is written: plain JSON (trace.json) or gzipped
// (trace.json.gz, what torch.profiler's export_chrome_trace writes for a ".gz" name and what the
// committed traces under validate/data/traces are). A gzipped file is recognised by its magic
// bytes, not its name. The file's SHA-256 is computed from the bytes as stored, for provenance.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace ridgeline {

struct TraceFile {
  nlohmann::json json;
  std::string sha256;  // of the file's bytes as stored (compressed when gzipped), hex
  bool gzipped = false;
};

// Errors name `path`: unreadable, a gzip stream that does not inflate, text that is not JSON.
TraceFile read_trace_file(const std::string& path);

// The SHA-256 of `bytes`, 64 lowercase hex digits.
std::string sha256_hex(const std::string& bytes);

}  // namespace ridgeline
