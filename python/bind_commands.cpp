// run_command: one `ridgeline` subcommand run in-process, exactly as the CLI runs it. The
// command's flags are declared by the same add_*_command function main() uses, the arguments
// the Python wrapper built from keyword arguments are parsed by CLI11 (so an unknown or bad
// flag gets CLI11's own message), and what the command prints is captured: the Python side
// reads the `--format json` text into dicts. This keeps one implementation of every flag;
// the package adds none of its own logic.
#include "cli/commands.h"
#include "common/errors.h"
#include "python/bindings.h"

#include <pybind11/stl.h>

#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

namespace ridgeline::python {

namespace {

using Adder = Command (*)(CLI::App&);

const std::map<std::string, Adder>& commands() {
  static const std::map<std::string, Adder> all = {{"predict", add_predict_command},
                                                   {"sweep", add_sweep_command},
                                                   {"op", add_op_command},
                                                   {"validate", add_validate_command},
                                                   {"collective", add_collective_command},
                                                   {"serve", add_serve_command},
                                                   {"capacity", add_capacity_command},
                                                   {"search", add_search_command},
                                                   {"compare", add_compare_command},
                                                   {"gpus", add_gpus_command},
                                                   {"models", add_models_command},
                                                   {"clusters", add_clusters_command}};
  return all;
}

// std::cout and std::cerr into strings for the lifetime of the guard (the GIL is held).
class Capture {
 public:
  Capture() : out_(std::cout.rdbuf(out.rdbuf())), err_(std::cerr.rdbuf(err.rdbuf())) {}
  ~Capture() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  std::ostringstream out, err;

 private:
  std::streambuf* out_;
  std::streambuf* err_;
};

// A flag with no values is a switch; several values are repeated for a repeatable option
// (--set, --data) and comma-joined for a list option (--batches 1,16,64; --zero 0,1).
std::vector<std::string> argv_of(
    const std::string& name, CLI::App& cmd,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& args) {
  std::vector<std::string> argv = {"ridgeline", name};
  for (const auto& [flag, values] : args) {
    const CLI::Option* opt = cmd.get_option_no_throw(flag);
    bool repeatable = opt != nullptr && opt->get_items_expected_max() > 1;
    if (values.empty() || !repeatable) argv.push_back(flag);
    std::string joined;
    for (const auto& v : values) {
      if (repeatable) {
        argv.push_back(flag);
        argv.push_back(v);
      } else {
        joined += (joined.empty() ? "" : ",") + v;
      }
    }
    if (!values.empty() && !repeatable) argv.push_back(joined);
  }
  return argv;
}

// Returns (exit status, stdout, stderr) of `ridgeline NAME ARGS...`; bad input raises.
std::tuple<int, std::string, std::string> run_command(
    const std::string& name,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& args) {
  auto it = commands().find(name);
  if (it == commands().end()) throw InternalError("run_command: no command " + name);
  CLI::App app{"ridgeline"};
  app.require_subcommand(1);
  Command command = it->second(app);
  CLI::App* cmd = app.get_subcommand(name);
  std::vector<std::string> argv = argv_of(name, *cmd, args);
  std::vector<char*> c_argv;
  for (auto& a : argv) c_argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(c_argv.size()), c_argv.data());
  } catch (const CLI::CallForHelp&) {
    return {0, cmd->help(), ""};
  } catch (const CLI::ParseError& e) {
    throw InputError(e.what());
  }
  Capture capture;
  int status = command();
  return {status, capture.out.str(), capture.err.str()};
}

}  // namespace

void bind_commands(pybind11::module_& m) {
  m.def("run_command", &run_command, pybind11::arg("name"), pybind11::arg("args"),
        "Runs `ridgeline NAME ARGS...` in-process; returns (exit status, stdout, stderr)");
  m.def(
      "command_names",
      [] {
        std::vector<std::string> names;
        for (const auto& [n, _] : commands()) names.push_back(n);
        return names;
      },
      "The subcommands run_command knows");
}

}  // namespace ridgeline::python
