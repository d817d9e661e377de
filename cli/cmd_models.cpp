// `ridgeline models` lists the model presets (shape, context, parameters total and active);
// `ridgeline models show NAME|PATH|FOLDER` prints one config's every figure with the config.json
// key it came from, its parameters and its KV-cache bytes per token in bf16 and fp8.
#include "cli/commands.h"
#include "cli/views/model_views.h"
#include "common/errors.h"

#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

ModelSummary summarise(const std::string& name_or_path) {
  ModelSummary s;
  s.config = load_model(name_or_path);
  s.parameters = parameter_count(s.config);
  s.active_parameters = active_parameter_count(s.config);
  s.block_parameters = block_parameter_count(s.config);
  s.kv_bytes_per_token_bf16 = kv_cache_bytes_per_token(s.config, 2);
  s.kv_bytes_per_token_fp8 = kv_cache_bytes_per_token(s.config, 1);
  return s;
}

}  // namespace

Command add_models_command(CLI::App& app) {
  struct Options {
    std::string name;
    std::string list_format = "table";
    std::string show_format = "table";
  };
  auto opt = std::make_shared<Options>();
  CLI::App* models = app.add_subcommand("models", "List model presets, or show one config");
  CLI::Option* list_format = models->add_option("--format", opt->list_format, "table or json")
                                 ->check(CLI::IsMember({"table", "json"}));
  CLI::App* show = models->add_subcommand(
      "show", "Show one model: every figure and its config key, parameters, KV bytes per token");
  show->add_option("model", opt->name,
                   "Preset name, path to a Hugging Face config.json, or the folder holding it")
      ->required();
  show->add_option("--format", opt->show_format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  return [opt, show, list_format]() {
    if (show->parsed()) {
      if (list_format->count() > 0) {
        throw InputError(located("--format",
                                 "before `show` it formats the list; give it after "
                                 "`models show NAME`"));
      }
      ModelSummary s = summarise(opt->name);
      if (opt->show_format == "json")
        std::cout << model_show_json(s).dump(2) << "\n";
      else
        print_model_show(std::cout, s);
      return 0;
    }
    std::vector<ModelSummary> all;
    for (const auto& n : model_preset_names()) all.push_back(summarise(n));
    if (opt->list_format == "json")
      std::cout << model_list_json(all).dump(2) << "\n";
    else
      print_model_list(std::cout, all);
    return 0;
  };
}

}  // namespace ridgeline
