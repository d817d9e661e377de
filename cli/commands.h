// The subcommands of `ridgeline`. Each add_* function declares its flags on the app and
// returns the function that runs it; main() wires them up and turns errors into exit codes.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace ridgeline {

using Command = std::function<int()>;  // returns the exit status

Command add_op_command(CLI::App& app);
Command add_gpus_command(CLI::App& app);
Command add_validate_command(CLI::App& app);
Command add_predict_command(CLI::App& app);
Command add_sweep_command(CLI::App& app);
Command add_calibrate_command(CLI::App& app);
Command add_models_command(CLI::App& app);
Command add_collective_command(CLI::App& app);
Command add_clusters_command(CLI::App& app);
Command add_serve_command(CLI::App& app);
Command add_capacity_command(CLI::App& app);
Command add_validate_serving_command(CLI::App& app);
Command add_search_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
// `report KIND ...` (an HTML page of a run) and `export prometheus ...` (expected metrics).
Command add_report_command(CLI::App& app);
Command add_export_command(CLI::App& app);
Command add_merge_command(CLI::App& app);  // cli/cmd_merge.cpp: shards of sweep/capacity
Command add_runtime_command(CLI::App& app);  // cli/cmd_runtime.cpp: runtime learn, show
// `calibrate fit-collectives`, a subcommand of `calibrate` (sub is set to it).
Command add_fit_collectives_command(CLI::App& calibrate, CLI::App*& sub);
// `calibrate intervals` (cmd_intervals.cpp), likewise.
Command add_calibrate_intervals_command(CLI::App& calibrate, CLI::App*& sub);
// Also sets the app's --version flag.
Command add_version_command(CLI::App& app);
std::string version_text();  // "ridgeline 0.1.0 (git e9ec4ed-dirty)"

}  // namespace ridgeline
