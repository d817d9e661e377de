// `ridgeline --version` and `ridgeline version`: the CMake project version, and the git commit
// the build was configured from (`git describe --always --dirty`) when it was a git checkout.
#include "cli/commands.h"
#include "ridgeline_version.h"

#include <iostream>

namespace ridgeline {

std::string version_text() {
  std::string describe = RIDGELINE_GIT_DESCRIBE;
  return std::string("ridgeline ") + RIDGELINE_VERSION +
         (describe.empty() ? "" : " (git " + describe + ")");
}

Command add_version_command(CLI::App& app) {
  app.set_version_flag("--version", version_text(), "Print the version and exit");
  app.add_subcommand("version", "Print the version");
  return []() {
    std::cout << version_text() << "\n";
    return 0;
  };
}

}  // namespace ridgeline
