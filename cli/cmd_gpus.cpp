// `ridgeline gpus` lists the presets; `ridgeline gpus show NAME [--set path=value]` prints one
// with every figure's provenance, derived peaks and ridge points.
#include "cli/commands.h"
#include "cli/views/report_views.h"
#include "cli/views/views.h"
#include "hardware/gpu_load.h"

#include <iostream>
#include <memory>

namespace ridgeline {

Command add_gpus_command(CLI::App& app) {
  struct Options {
    std::string name;
    std::vector<std::string> sets;
    std::string format = "table";
  };
  auto opt = std::make_shared<Options>();
  CLI::App* gpus = app.add_subcommand("gpus", "List GPU presets, or show one");
  CLI::App* show =
      gpus->add_subcommand("show", "Show one GPU: figures, provenance, peaks, ridge points");
  show->add_option("name", opt->name, "Preset name or path to a GPU .json")->required();
  show->add_option("--set", opt->sets, "What-if override PATH=VALUE (repeatable)");
  show->add_option("--format", opt->format, "table or json")
      ->check(CLI::IsMember(gpu_show_views().names()));
  return [opt, show]() {
    if (show->parsed()) {
      GpuSpec g = load_gpu(opt->name, opt->sets);
      gpu_show_views().pick(opt->format, "--format")(std::cout, g);
      return 0;
    }
    std::vector<GpuSpec> all;
    for (const auto& n : gpu_preset_names()) all.push_back(load_gpu(n));
    print_gpu_list(std::cout, all);
    return 0;
  };
}

}  // namespace ridgeline
