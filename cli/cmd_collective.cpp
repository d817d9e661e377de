// `ridgeline collective`: the time of NCCL collectives on a cluster (model/collective_cost.h),
// one from flags or a JSONL batch like `ridgeline op` (one result a line, same order; a bad line
// gets {"id","error"} and the rest still run; exit status 1 when any failed):
//   ridgeline collective --cluster dgx-h100 --op all_reduce --gpus 16 --bytes 1GiB --format json
//   ridgeline collective --cluster dgx-h100 --input ops.jsonl
// `ridgeline clusters [--format table|json]` lists the cluster presets; `clusters show NAME`
// prints one with every figure's provenance and the collective model's parameters.
#include "cli/collective_runner.h"
#include "cli/commands.h"
#include "cli/views/collective_views.h"
#include "common/errors.h"
#include "validate/intervals.h"

#include <fstream>
#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

struct CollectiveOptions {
  std::string cluster, input, format, id = "op", op, bytes, dtype;
  long long gpus = 0, gpus_per_node = 0;
};

// The JSON object the flags describe; only the flags given, so the parser checks them all.
nlohmann::json flags_object(const CollectiveOptions& o, CLI::App& cmd) {
  nlohmann::json j;
  j["id"] = o.id;
  j["op"] = o.op;
  if (cmd.count("--gpus") > 0) j["gpus"] = o.gpus;
  if (cmd.count("--bytes") > 0) j["bytes"] = o.bytes;
  if (cmd.count("--gpus-per-node") > 0) j["gpus_per_node"] = o.gpus_per_node;
  if (cmd.count("--dtype") > 0) j["dtype"] = o.dtype;
  return j;
}

}  // namespace

Command add_collective_command(CLI::App& app) {
  auto o = std::make_shared<CollectiveOptions>();
  CLI::App* cmd = app.add_subcommand(
      "collective", "Predict NCCL collectives on a cluster (one from flags or a JSONL batch)");
  cmd->add_option("--cluster", o->cluster, "Cluster preset name or path to a .json")->required();
  cmd->add_option("--input", o->input, "JSONL file of collectives, one per line ('-' for stdin)");
  cmd->add_option("--format", o->format,
                  "table, json or jsonl (default: table for flags, jsonl "
                  "for --input)")
      ->check(CLI::IsMember(collective_views().names()));
  cmd->add_option("--id", o->id, "Id of the collective given by flags");
  cmd->add_option("--op", o->op,
                  "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv");
  cmd->add_option("--gpus", o->gpus, "GPUs in the group");
  cmd->add_option("--bytes", o->bytes,
                  "Message size as nccl-tests prints it: bytes, or 64KiB, 1MiB, 1GiB, 1GB");
  cmd->add_option("--gpus-per-node", o->gpus_per_node,
                  "Group members per node (default: fill nodes)");
  cmd->add_option("--dtype", o->dtype, "Element type (default bf16)");
  return [o, cmd]() {
    bool from_flags = cmd->count("--op") > 0;
    if (from_flags == !o->input.empty())
      throw InputError("collective: give either --input FILE or --op OP --gpus N --bytes B");
    if (!from_flags) {
      for (const char* flag : {"--gpus", "--bytes", "--gpus-per-node", "--dtype", "--id"})
        if (cmd->count(flag) > 0)
          throw InputError(located(flag,
                                   "describes one collective from flags; with --input "
                                   "each line gives its own"));
    }
    ClusterSpec cluster = load_cluster(o->cluster);
    std::vector<CollectiveResult> results;
    if (from_flags) {
      results.push_back(run_collective_object(flags_object(*o, *cmd), "flags", o->id, cluster));
    } else if (o->input == "-") {
      results = run_collective_lines(std::cin, "stdin", cluster);
    } else {
      std::ifstream in(o->input);
      if (!in) throw InputError(located("--input " + o->input, "cannot open file"));
      results = run_collective_lines(in, o->input, cluster);
    }
    std::string format = !o->format.empty() ? o->format : (from_flags ? "table" : "jsonl");
    for (auto& r : results)
      if (r.cost) r.interval = collective_interval(builtin_interval_table(), r.cost->time_us);
    collective_views().pick(format, "--format")(std::cout, CollectiveReport{cluster, results});
    int failed = 0;
    for (const auto& r : results) {
      if (r.error.empty()) continue;
      ++failed;
      std::cerr << "ridgeline: error: " << r.error << "\n";
    }
    if (failed)
      std::cerr << "ridgeline: " << failed << " of " << results.size() << " collectives failed\n";
    return failed ? 1 : 0;
  };
}

Command add_clusters_command(CLI::App& app) {
  struct Options {
    std::string name, format = "table", list_format = "table";
  };
  auto opt = std::make_shared<Options>();
  CLI::App* clusters = app.add_subcommand("clusters", "List cluster presets, or show one");
  CLI::Option* list_format = clusters->add_option("--format", opt->list_format, "table or json")
                                 ->check(CLI::IsMember(cluster_list_views().names()));
  CLI::App* show = clusters->add_subcommand("show", "Show one cluster: figures and provenance");
  show->add_option("name", opt->name, "Preset name or path to a cluster .json")->required();
  show->add_option("--format", opt->format, "table or json")
      ->check(CLI::IsMember(cluster_show_views().names()));
  return [opt, show, list_format]() {
    if (show->parsed()) {
      if (list_format->count() > 0)
        throw InputError(located("--format",
                                 "before `show` it formats the list; give it after "
                                 "`clusters show NAME`"));
      cluster_show_views().pick(opt->format, "--format")(std::cout, load_cluster(opt->name));
      return 0;
    }
    std::vector<ClusterSpec> all;
    for (const auto& n : cluster_names()) all.push_back(load_cluster(n));
    cluster_list_views().pick(opt->list_format, "--format")(std::cout, all);
    return 0;
  };
}

}  // namespace ridgeline
