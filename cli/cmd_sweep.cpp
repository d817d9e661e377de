// `ridgeline sweep`: one model on one GPU over batch sizes, sequence (or KV) lengths and weight
// precisions, one point per combination. Points that do not fit in memory stay, marked; a point
// the run config rejects gets its error in its own row and the others still run (exit 1).
//   ridgeline sweep --model llama-3-8b --phase decode --kv-len 2048 --batches 1,8,32,128
//   --weight-dtypes bf16,fp8 --format table|json|csv
#include "cli/commands.h"
#include "cli/predict_options.h"
#include "cli/views/sweep_views.h"
#include "common/errors.h"
#include "hardware/gpu_load.h"
#include "model/prediction.h"
#include "workloads/graph_builder.h"

#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

struct Options {
  PredictOptions base;
  std::vector<long long> batches, seqs, kv_lens;
  std::vector<std::string> weight_dtypes;
};

SweepPoint sweep_point(const PredictOptions& p, const ModelConfig& model, const GpuSpec& gpu) {
  SweepPoint pt;
  pt.weights = p.weights;
  pt.run.batch = p.batch, pt.run.seq = p.seq, pt.run.kv_len = p.kv_len;
  try {
    pt.run = run_config_from(p);
    OpGraph g = build_graph(model, pt.run);
    Prediction pr = predict_workload(g, model, pt.run, gpu);
    pt.ok = true;
    pt.total_us = pr.total_us;
    pt.tokens_per_s = pr.tokens_per_s;
    pt.memory = pr.memory;
  } catch (const InputError& e) {
    pt.error = e.what();
  }
  return pt;
}

SweepResult run_sweep(const Options& o) {
  GpuSpec gpu = load_gpu(o.base.gpu, o.base.sets, o.base.profile);
  ModelConfig model = load_model(o.base.model);
  SweepResult r{model.name, model.source, gpu.name, gpu.file, gpu.profile, what_if_labels(gpu),
                run_config_from(o.base), {}};
  auto or_one = [](std::vector<long long> v, long long x) {
    return v.empty() ? std::vector<long long>{x} : v;
  };
  auto dtypes =
      o.weight_dtypes.empty() ? std::vector<std::string>{o.base.weights} : o.weight_dtypes;
  for (const auto& dt : dtypes)
    for (long long b : or_one(o.batches, o.base.batch))
      for (long long s : or_one(o.seqs, o.base.seq))
        for (long long kv : or_one(o.kv_lens, o.base.kv_len)) {
          PredictOptions p = o.base;
          p.weights = dt, p.batch = b, p.seq = s, p.kv_len = kv;
          r.points.push_back(sweep_point(p, model, gpu));
        }
  return r;
}

}  // namespace

Command add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("sweep", "Predict a model over batch sizes, lengths and precisions");
  add_target_flags(*cmd, o->base);
  cmd->add_option("--batches", o->batches, "Batch sizes, comma-separated")->delimiter(',');
  cmd->add_option("--seqs", o->seqs, "Sequence lengths (prefill, train), comma-separated")
      ->delimiter(',');
  cmd->add_option("--kv-lens", o->kv_lens, "Cached tokens (decode), comma-separated")
      ->delimiter(',');
  cmd->add_option("--weight-dtypes", o->weight_dtypes, "Weight precisions, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "fp8", "int8", "int4"}));
  return [o]() {
    SweepResult r = run_sweep(*o);
    if (o->base.format == "json")
      print_sweep_json(std::cout, r);
    else if (o->base.format == "csv")
      print_sweep_csv(std::cout, r);
    else
      print_sweep_table(std::cout, r);
    if (r.failed() > 0) {
      std::cerr << "ridgeline sweep: " << r.failed() << " of " << r.points.size()
                << " points failed\n";
      return 1;
    }
    return 0;
  };
}

}  // namespace ridgeline
