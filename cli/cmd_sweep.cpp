// `ridgeline sweep`: one model on one GPU over batch sizes, sequence (or KV) lengths and weight
// precisions, one point per combination. Points that do not fit in memory stay, marked; a point
// the run config rejects gets its error in its own row and the others still run (exit 1).
//   ridgeline sweep --model llama-3-8b --phase decode --kv-len 2048 --batches 1,8,32,128
//   --weight-dtypes bf16,fp8 --format table|json|csv [--jobs N] [--shard I/N] [--out FILE]
// The points stream (cli/row_output.h): each is priced on one of --jobs threads and printed in
// order as soon as the points before it are, so memory does not grow with the sweep.
#include "cli/batch_run.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/predict_options.h"
#include "cli/row_output.h"
#include "cli/views/sweep_views.h"
#include "common/errors.h"
#include "common/parallel_map.h"
#include "hardware/gpu_load.h"
#include "model/prediction.h"
#include "validate/intervals.h"
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
    pt.interval = step_interval(builtin_interval_table(), gpu, g, pr, model.moe.experts > 0);
  } catch (const InputError& e) {
    pt.error = e.what();
  }
  return pt;
}

// The grid of points, enumerated lazily (a 10^6-point sweep is never held): weights outermost,
// then batch, sequence length and KV length.
struct Grid {
  std::vector<std::string> dtypes;
  std::vector<long long> batches, seqs, kv_lens;
  int64_t size() const {
    return (int64_t)(dtypes.size() * batches.size() * seqs.size() * kv_lens.size());
  }
  PredictOptions at(const PredictOptions& base, int64_t i) const {
    PredictOptions p = base;
    p.kv_len = kv_lens[(size_t)(i % (int64_t)kv_lens.size())], i /= (int64_t)kv_lens.size();
    p.seq = seqs[(size_t)(i % (int64_t)seqs.size())], i /= (int64_t)seqs.size();
    p.batch = batches[(size_t)(i % (int64_t)batches.size())], i /= (int64_t)batches.size();
    p.weights = dtypes[(size_t)i];
    return p;
  }
};

Grid grid_of(const Options& o) {
  auto or_one = [](std::vector<long long> v, long long x) {
    return v.empty() ? std::vector<long long>{x} : v;
  };
  return {o.weight_dtypes.empty() ? std::vector<std::string>{o.base.weights} : o.weight_dtypes,
          or_one(o.batches, o.base.batch), or_one(o.seqs, o.base.seq),
          or_one(o.kv_lens, o.base.kv_len)};
}

RowText row_of(const SweepResult& r, const SweepPoint& p, RowForms forms) {
  RowText t;
  t.ok = p.ok;
  if (forms.table) t.table = sweep_table_row(p);
  if (forms.csv) t.csv = sweep_csv_row(p);
  if (forms.json) t.json = sweep_json_point(r, p);
  return t;
}

int run_sweep(const Options& o, const BatchFlags& flags, const CLI::App& cmd) {
  check_generate_flags(cmd, o.base, false);
  Batch batch = batch_of(flags);
  if (batch.shard.on && cmd.get_option("--format")->count() > 0)
    throw InputError(
        "--format: a --shard run writes JSONL for `ridgeline merge`; give --format "
        "to merge");
  GpuSpec gpu = load_gpu(o.base.gpu, o.base.sets, o.base.profile);
  ModelConfig model = load_model(o.base.model);
  SweepResult r{model.name,
                model.source,
                gpu.name,
                gpu.file,
                gpu.profile,
                what_if_labels(gpu),
                run_config_from(o.base),
                {}};
  const Grid grid = grid_of(o);
  const int64_t total = grid.size();
  RowDocHead head{"sweep",           run_inputs_text(cmd), total,    sweep_table_head(r),
                  sweep_csv_head(r), sweep_json_head(r),   "points", true};
  OutputFile out("--out", flags.out);
  RowWriter writer(out.stream(), o.base.format, batch.shard);
  const RowForms forms = writer.forms();
  // This shard's points: indexes shard.index, shard.index + N, ...
  const int64_t mine = (total - batch.shard.index + batch.shard.count - 1) / batch.shard.count;
  Progress progress("sweep", "points", mine, progress_wanted(flags));
  catch_sigint();
  writer.begin(head);
  bool complete = ordered_parallel_for<RowText>(
      mine, batch.jobs,
      [&](int64_t k) {
        int64_t i = batch.shard.index + k * batch.shard.count;
        return row_of(r, sweep_point(grid.at(o.base, i), model, gpu), forms);
      },
      [&](int64_t k, RowText&& t) {
        writer.row(batch.shard.index + k * batch.shard.count, t);
        progress.tick(k + 1);
      },
      &interrupt_flag());
  if (!complete) throw Interrupted();
  writer.end();
  out.commit();
  progress.finish(writer.rows());
  if (writer.failed() > 0) {
    std::cerr << "ridgeline sweep: " << writer.failed() << " of " << writer.rows()
              << " points failed\n";
    return 1;
  }
  return 0;
}

}  // namespace

Command add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto flags = std::make_shared<BatchFlags>();
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
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "fp8", "nvfp4", "int8", "int4"}));
  add_batch_flags(*cmd, *flags);
  return [o, flags, cmd]() { return run_sweep(*o, *flags, *cmd); };
}

}  // namespace ridgeline
