// `ridgeline capacity`: GPUs for a target request rate under an SLA, across GPUs, precisions
// and engines (every combination of the lists).
//   ridgeline capacity --gpu h100-sxm,h200-sxm --model llama-3.1-8b --engine vllm,trtllm
//     --precision bf16,fp8 --input-len 1024 --output-len 256 --requests 1000
//     --slo ttft_p99=2s,tpot_p99=100ms --target-rate 500 --price-per-gpu-hour 3.5
#include "cli/commands.h"
#include "cli/serve_options.h"
#include "cli/views/serve_views.h"
#include "common/errors.h"
#include "hardware/gpu_load.h"
#include "serve/gpu_step_model.h"

#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

namespace ridgeline {

namespace {

struct CapacityFlags {
  ServeOptions o;
  std::string gpus, engines, precisions = "bf16", slo, prices;
  double target = 0;
};

std::vector<std::string> list(const std::string& flag, const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  if (out.empty()) throw InputError(flag + ": expected a comma-separated list");
  return out;
}

double positive_number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v > 0) || !std::isfinite(v))
    throw InputError(flag + " " + text + ": expected a positive number");
  return v;
}

// "3.5" (every GPU) or "h100-sxm=2.5,h200-sxm=3.5" (each GPU of --gpu named once).
std::map<std::string, double> prices(const std::string& text,
                                     const std::vector<std::string>& gpus) {
  std::map<std::string, double> out;
  if (text.empty()) return out;
  if (text.find('=') == std::string::npos) {
    double p = positive_number("--price-per-gpu-hour", text);
    for (const auto& g : gpus) out[g] = p;
    return out;
  }
  for (const std::string& item : list("--price-per-gpu-hour", text)) {
    size_t eq = item.find('=');
    std::string g = item.substr(0, eq);
    if (eq == std::string::npos || std::find(gpus.begin(), gpus.end(), g) == gpus.end())
      throw InputError("--price-per-gpu-hour " + item + ": expected GPU=PRICE for a GPU of --gpu");
    out[g] = positive_number("--price-per-gpu-hour", item.substr(eq + 1));
  }
  for (const auto& g : gpus)
    if (!out.count(g)) throw InputError("--price-per-gpu-hour: no price for " + g);
  return out;
}

}  // namespace

Command add_capacity_command(CLI::App& app) {
  auto f = std::make_shared<CapacityFlags>();
  CLI::App* cmd = app.add_subcommand(
      "capacity", "Highest request rate a replica sustains under an SLA, and GPUs for a target");
  cmd->add_option("--gpu", f->gpus, "GPU presets or files, comma-separated")->required();
  cmd->add_option("--engine", f->engines, "Engines, comma-separated")->required();
  add_serve_workload_flags(*cmd, f->o);
  cmd->remove_option(cmd->get_option("--precision"));
  cmd->add_option("--precision", f->precisions, "Precisions, comma-separated (bf16, fp16, fp8)");
  cmd->add_option("--slo", f->slo, "SLA, e.g. ttft_p99=2s,tpot_p99=100ms")->required();
  cmd->add_option("--target-rate", f->target, "Requests per second to serve")->required();
  cmd->add_option("--price-per-gpu-hour", f->prices, "A price, or GPU=PRICE,... for each GPU");
  cmd->add_option("--format", f->o.format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  return [f, cmd]() {
    if (!(f->target > 0) || !std::isfinite(f->target))
      throw InputError("--target-rate: must be > 0 requests per second");
    std::vector<SloTerm> slo = parse_slo("--slo", f->slo);
    std::vector<std::string> gpus = list("--gpu", f->gpus), engines = list("--engine", f->engines),
                             precisions = list("--precision", f->precisions);
    for (const auto& p : precisions)
      if (p != "bf16" && p != "fp16" && p != "fp8")
        throw InputError("--precision " + p + ": expected bf16, fp16 or fp8");
    std::map<std::string, double> price = prices(f->prices, gpus);
    Workload w = serve_workload(f->o, *cmd);
    ModelConfig model = load_model(f->o.model);
    std::vector<CapacityRow> rows;
    for (const std::string& g : gpus) {
      GpuSpec gpu = load_gpu(g);
      for (const std::string& e : engines) {
        EngineConfig engine = load_engine(e);
        for (const std::string& p : precisions) {
          GpuStepModel step(gpu, model, serve_run_config(p, engine));
          ServeSetup setup;
          setup.engine = &engine;
          setup.model = &step;
          setup.seed = (uint64_t)f->o.seed;
          setup.slo = slo;
          setup.lengths_from_flags = f->o.workload.empty();
          KvSizing kv = engine_kv(engine, step);
          std::optional<double> pr;
          if (price.count(g)) pr = price[g];
          ServeSubject s{gpu.name,
                         model.name,
                         engine.name,
                         engine.file,
                         p,
                         "poisson (searched)",
                         f->o.workload.empty()
                             ? "input " + f->o.input_len + ", output " + f->o.output_len
                             : f->o.workload,
                         f->o.seed};
          rows.push_back({s, search_capacity(w, setup, kv, f->target, pr)});
        }
      }
    }
    if (f->o.format == "json")
      print_capacity_json(std::cout, rows, describe(slo), f->target);
    else
      print_capacity_table(std::cout, rows, describe(slo), f->target);
    return 0;
  };
}

}  // namespace ridgeline
