// Two kinds of error, as STYLE.md asks. InputError: the user gave us something we cannot use
// (a malformed file, an impossible configuration, a bad flag); its message names the file and
// JSON path, or the flag. InternalError: an invariant of ridgeline itself broke (a bug).
// Library code throws both; only the CLI's main() turns them into messages and exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace ridgeline {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

// Builds "where: message", the one format every input error uses.
std::string located(const std::string& where, const std::string& message);

// Throws InternalError when `condition` is false. For invariants, never for input checks.
void require_invariant(bool condition, const char* what);  // no allocation on the hot path

}  // namespace ridgeline
