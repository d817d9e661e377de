// ridgeline: the thin driver. Parses the command line, runs one subcommand, and is the only
// place where errors become messages and exit codes: 1 for bad input (the message names the
// file and JSON path, or the flag), 2 for usage errors, 3 for a broken invariant (a bug), 130 for a
// run stopped by SIGINT.
#include "cli/batch_run.h"
#include "cli/commands.h"
#include "common/errors.h"

#include <iostream>
#include <map>

int main(int argc, char** argv) {
  CLI::App app{"ridgeline: predicts GPU kernel and transformer latency from hardware descriptions"};
  app.require_subcommand(1);
  std::map<std::string, ridgeline::Command> commands;
  commands["op"] = ridgeline::add_op_command(app);
  commands["gpus"] = ridgeline::add_gpus_command(app);
  commands["predict"] = ridgeline::add_predict_command(app);
  commands["sweep"] = ridgeline::add_sweep_command(app);
  commands["calibrate"] = ridgeline::add_calibrate_command(app);
  commands["validate"] = ridgeline::add_validate_command(app);
  commands["models"] = ridgeline::add_models_command(app);
  commands["collective"] = ridgeline::add_collective_command(app);
  commands["clusters"] = ridgeline::add_clusters_command(app);
  commands["serve"] = ridgeline::add_serve_command(app);
  commands["capacity"] = ridgeline::add_capacity_command(app);
  commands["validate-serving"] = ridgeline::add_validate_serving_command(app);
  commands["search"] = ridgeline::add_search_command(app);
  commands["compare"] = ridgeline::add_compare_command(app);
  commands["report"] = ridgeline::add_report_command(app);
  commands["export"] = ridgeline::add_export_command(app);
  commands["merge"] = ridgeline::add_merge_command(app);
  commands["runtime"] = ridgeline::add_runtime_command(app);  // cmd_runtime.cpp: learn, show
  commands["version"] = ridgeline::add_version_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    for (auto* sub : app.get_subcommands()) return commands.at(sub->get_name())();
  } catch (const ridgeline::Interrupted& e) {  // SIGINT (cli/batch_run.h)
    std::cerr << "ridgeline: " << e.what() << "\n";
    return 130;
  } catch (const ridgeline::InputError& e) {
    std::cerr << "ridgeline: error: " << e.what() << "\n";
    return 1;
  } catch (const ridgeline::InternalError& e) {
    std::cerr << "ridgeline: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "ridgeline: internal error (a ridgeline bug): " << e.what() << "\n";
    return 3;
  }
  return 2;
}
