// `ridgeline gpus [--format table|json]` lists the presets and whether each is calibrated (its own
// profile, its architecture's, or none); `ridgeline gpus show NAME [--set path=value]` prints one
// with every figure's provenance, derived peaks and ridge points.
#include "cli/commands.h"
#include "cli/views/report_views.h"
#include "cli/views/views.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_load.h"
#include "hardware/profiles.h"

#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

GpuCalibration calibration_of(const GpuSpec& g) {
  ProfileUse use = find_profile(g.name, g.architecture, "");
  if (use.doc.is_null()) return {"none", "", ""};
  return {use.own ? "own" : "architecture", string_or(use.doc, "gpu"), use.label};
}

}  // namespace

Command add_gpus_command(CLI::App& app) {
  struct Options {
    std::string name;
    std::vector<std::string> sets;
    std::string format = "table";
    std::string list_format = "table";
  };
  auto opt = std::make_shared<Options>();
  CLI::App* gpus = app.add_subcommand("gpus", "List GPU presets, or show one");
  CLI::Option* list_format = gpus->add_option("--format", opt->list_format, "table or json")
                                 ->check(CLI::IsMember({"table", "json"}));
  CLI::App* show =
      gpus->add_subcommand("show", "Show one GPU: figures, provenance, peaks, ridge points");
  show->add_option("name", opt->name, "Preset name or path to a GPU .json")->required();
  show->add_option("--set", opt->sets, "What-if override PATH=VALUE (repeatable)");
  show->add_option("--format", opt->format, "table or json")
      ->check(CLI::IsMember(gpu_show_views().names()));
  return [opt, show, list_format]() {
    if (show->parsed()) {
      if (list_format->count() > 0) {
        throw InputError(located("--format",
                                 "before `show` it formats the list; give it after "
                                 "`gpus show NAME`"));
      }
      GpuSpec g = load_gpu(opt->name, opt->sets);
      gpu_show_views().pick(opt->format, "--format")(std::cout, g);
      return 0;
    }
    std::vector<GpuSpec> all;
    std::vector<GpuCalibration> calibrations;
    for (const auto& n : gpu_preset_names()) {
      all.push_back(load_gpu(n));
      calibrations.push_back(calibration_of(all.back()));
    }
    if (opt->list_format == "json")
      std::cout << gpu_list_json(all, calibrations).dump(2) << "\n";
    else
      print_gpu_list(std::cout, all, calibrations);
    return 0;
  };
}

}  // namespace ridgeline
