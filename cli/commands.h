// The subcommands of `ridgeline`. Each add_* function declares its flags on the app and
// returns the function that runs it; main() wires them up and turns errors into exit codes.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace ridgeline {

using Command = std::function<int()>;  // returns the exit status

Command add_op_command(CLI::App& app);
Command add_gpus_command(CLI::App& app);
Command add_validate_command(CLI::App& app);
Command add_predict_command(CLI::App& app);
Command add_sweep_command(CLI::App& app);
Command add_calibrate_command(CLI::App& app);

}  // namespace ridgeline
