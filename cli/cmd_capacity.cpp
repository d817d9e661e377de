// `ridgeline capacity`: GPUs for a target request rate under an SLA, across GPUs, precisions
// and engines (every combination of the lists).
//   ridgeline capacity --gpu h100-sxm,h200-sxm --model llama-3.1-8b --engine vllm,trtllm
//     --precision bf16,fp8 --input-len 1024 --output-len 256 --requests 1000
//     --slo ttft_p99=2s,tpot_p99=100ms --target-rate 500 --price-per-gpu-hour 3.5
//     [--jobs N] [--shard I/N] [--out FILE]
// Each configuration's search is independent: --jobs runs them on threads, --shard splits them
// (cli/batch_run.h), and the rows stream in order (cli/row_output.h).
#include "cli/batch_run.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/row_output.h"
#include "cli/serve_intervals.h"
#include "cli/serve_options.h"
#include "cli/serve_replica.h"
#include "cli/views/serve_interval_views.h"
#include "cli/views/serve_views.h"
#include "common/errors.h"
#include "common/parallel_map.h"
#include "hardware/gpu_load.h"
#include "serve/trtllm_bench.h"

#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

namespace ridgeline {

namespace {

struct CapacityFlags {
  ServeOptions o;
  ReplicaFlags replica;
  std::string gpus, engines, precisions = "bf16", slo, prices, disaggregate;
  double target = 0;
  BatchFlags batch;
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
  cmd->add_option("--gpu", f->gpus, "GPU presets or files, comma-separated (or --cluster)");
  add_replica_flags(*cmd, f->replica, true);
  cmd->add_option("--disaggregate", f->disaggregate,
                  "P:D splits to compare, comma-separated (e.g. 1:1,1:2,2:1): P prefill and D "
                  "decode replicas a group, the KV cache sent between them (with --cluster)");
  cmd->add_option("--engine", f->engines, "Engines, comma-separated")->required();
  add_serve_workload_flags(*cmd, f->o);
  cmd->remove_option(cmd->get_option("--precision"));
  cmd->add_option("--precision", f->precisions,
                  "Precisions, comma-separated (bf16, fp16, fp8, nvfp4)");
  cmd->add_option("--slo", f->slo, "SLA, e.g. ttft_p99=2s,tpot_p99=100ms")->required();
  cmd->add_option("--target-rate", f->target, "Requests per second to serve")->required();
  cmd->add_option("--price-per-gpu-hour", f->prices, "A price, or GPU=PRICE,... for each GPU");
  cmd->add_option("--format", f->o.format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  add_batch_flags(*cmd, f->batch);
  return [f, cmd]() {
    Batch batch = batch_of(f->batch);
    if (batch.shard.on && cmd->get_option("--format")->count() > 0)
      throw InputError(
          "--format: a --shard run writes JSONL for `ridgeline merge`; give --format "
          "to merge");
    if (!(f->target > 0) || !std::isfinite(f->target))
      throw InputError("--target-rate: must be > 0 requests per second");
    std::vector<SloTerm> slo = parse_slo("--slo", f->slo);
    std::vector<int64_t> tps = replica_tp_sizes(f->replica, *cmd, cmd->count("--gpu") > 0);
    std::vector<ReplicaGpus> replicas;  // GPU outermost, then TP size
    std::vector<std::string> gpus =
        f->replica.cluster.empty() ? list("--gpu", f->gpus)
                                   : std::vector<std::string>{load_cluster(f->replica.cluster).gpu};
    std::vector<std::string> engines = list("--engine", f->engines),
                             precisions = list("--precision", f->precisions);
    for (const auto& p : precisions)
      if (p != "bf16" && p != "fp16" && p != "fp8" && p != "nvfp4")
        throw InputError("--precision " + p + ": expected bf16, fp16, fp8 or nvfp4");
    std::map<std::string, double> price = prices(f->prices, gpus);
    Workload w = serve_workload(f->o, *cmd);
    // Plain names, not a structured binding: the lambda below captures them (clang 14 refuses
    // to capture a binding).
    const std::pair<double, double> means = mean_lengths(w);
    const double mean_in = means.first, mean_out = means.second;
    ModelConfig model = load_model(f->o.model);
    for (const std::string& g : gpus)
      for (int64_t tp : tps) replicas.push_back(load_replica(f->replica, g, tp));
    std::vector<EngineConfig> engine_specs;
    for (const std::string& e : engines) engine_specs.push_back(load_engine(e));
    for (const ReplicaGpus& r : replicas) {  // a split the model cannot take is an error (--tp)
      for (const EngineConfig& e : engine_specs) check_replica_engine(r, e);
      make_replica_step_model(r, model, serve_run_config(precisions[0], engine_specs[0]));
    }
    // Disaggregated P:D splits (none: one engine does both), inside the replica loop.
    std::vector<std::string> splits{""};
    if (cmd->count("--disaggregate") > 0) splits = list("--disaggregate", f->disaggregate);
    std::vector<std::vector<DisaggSpec>> layouts(replicas.size());
    for (size_t r = 0; r < replicas.size(); ++r)
      for (const std::string& sp : splits)
        layouts[r].push_back(sp.empty() ? DisaggSpec{} : replica_disaggregation(sp, replicas[r]));
    auto gpu_label = [](const ReplicaGpus& r, const std::string& split) {
      return split.empty() ? r.label() : r.label() + " " + split;
    };
    std::vector<std::string> labels;  // every row's, so that each shard's table is alike
    for (const ReplicaGpus& r : replicas)
      for (const std::string& sp : splits) labels.push_back(gpu_label(r, sp));
    const int gpu_width = capacity_gpu_width(labels);
    // Row i: GPU outermost (then TP size, then P:D split), then engine, then precision.
    auto row_at = [&](int64_t i) {
      const std::string& p = precisions[(size_t)(i % (int64_t)precisions.size())];
      i /= (int64_t)precisions.size();
      const EngineConfig& loaded = engine_specs[(size_t)(i % (int64_t)engines.size())];
      i /= (int64_t)engines.size();
      size_t si = (size_t)(i % (int64_t)splits.size());
      size_t ri = (size_t)(i / (int64_t)splits.size()), gi = ri / tps.size();
      const ReplicaGpus& replica = replicas[ri];
      const ModelConfig run_model = engine_model(loaded, model);
      const EngineConfig engine =
          with_workload_limits(loaded, run_model, replica.gpu, replica.tp,
                               serve_run_config(p, loaded), mean_in, mean_out);
      std::unique_ptr<StepModel> step_model =
          make_replica_step_model(replica, run_model, serve_run_config(p, engine));
      StepModel& step = *step_model;
      ServeSetup setup;
      setup.engine = &engine;
      setup.model = &step;
      setup.seed = (uint64_t)f->o.seed;
      setup.slo = slo;
      setup.lengths_from_flags = f->o.workload.empty();
      if (!splits[si].empty()) setup.disaggregate = &layouts[ri][si];
      std::optional<double> pr;
      if (price.count(gpus[gi])) pr = price.at(gpus[gi]);
      ServeSubject s{gpu_label(replica, splits[si]),
                     model.name,
                     engine.name,
                     engine.file,
                     p,
                     "poisson (searched)",
                     f->o.workload.empty()
                         ? "input " + f->o.input_len + ", output " + f->o.output_len
                         : f->o.workload,
                     f->o.seed};
      KvSizing kv;
      try {
        kv = engine_kv(engine, step);
      } catch (const InputError& e) {
        if (!replica.cluster) throw;  // --gpu rows read as before
        CapacityResult none;
        none.reason = std::string("the weights leave no KV cache on a GPU: ") + e.what();
        return std::make_pair(CapacityRow{s, none}, std::optional<ServingIntervals>{});
      }
      CapacityRow row{s, search_capacity(w, setup, kv, f->target, pr)};
      const bool one_gpu = replica.states_intervals(!splits[si].empty(), p);
      std::optional<ServingIntervals> iv;
      if (one_gpu && row.result.at_max.requests > 0)
        iv = run_intervals(replica.gpu, model, serve_run_config(p, engine), row.result.at_max);
      return std::make_pair(std::move(row), iv);
    };
    const int64_t total =
        (int64_t)(replicas.size() * splits.size() * engines.size() * precisions.size());
    RowDocHead head{"capacity",
                    run_inputs_text(*cmd),
                    total,
                    capacity_table_head(describe(slo), f->target, gpu_width),
                    "",
                    capacity_json_head(describe(slo), f->target),
                    "configurations",
                    false};
    OutputFile out("--out", f->batch.out);
    RowWriter writer(out.stream(), f->o.format, batch.shard);
    const RowForms forms = writer.forms();
    const int64_t mine = (total - batch.shard.index + batch.shard.count - 1) / batch.shard.count;
    Progress progress("capacity", "configurations", mine, progress_wanted(f->batch));
    catch_sigint();
    writer.begin(head);
    bool complete = ordered_parallel_for<RowText>(
        mine, batch.jobs,
        [&](int64_t k) {
          auto [row, iv] = row_at(batch.shard.index + k * batch.shard.count);
          RowText t;
          if (forms.table) t.table = capacity_table_row(row, gpu_width);
          if (forms.json) {
            t.json = capacity_json_row(row);
            if (iv) t.json["intervals"] = capacity_intervals_json(*iv, row.result, f->target);
          }
          return t;
        },
        [&](int64_t k, RowText&& t) {
          writer.row(batch.shard.index + k * batch.shard.count, t);
          progress.tick(k + 1);
        },
        &interrupt_flag(), 4 * (int64_t)batch.jobs);
    if (!complete) throw Interrupted();
    writer.end();
    out.commit();
    progress.finish(writer.rows());
    return 0;
  };
}

}  // namespace ridgeline
