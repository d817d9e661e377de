// Error helpers shared by every library; see errors.h.
#include "common/errors.h"

namespace ridgeline {

std::string located(const std::string& where, const std::string& message) {
  return where.empty() ? message : where + ": " + message;
}

void require_invariant(bool condition, const char* what) {
  if (!condition) throw InternalError(std::string("internal error (a ridgeline bug): ") + what);
}

}  // namespace ridgeline
