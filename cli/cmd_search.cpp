// `ridgeline search --model M --cluster C --gpus N --global-batch B --seq S [--top K] [--max-tp
// T ...] [--format table|json|csv] [--all] [--jobs N] [--out FILE]`: every valid training strategy
// predicted and ranked (model/strategy_search.h), the top K printed with why each loses to the one
// above. `ridgeline compare ... --strategy "tp=8,pp=16,zero=1" --strategy ...`: strategies side by
// side. Both train with AdamW (the state ZeRO shards) in the model's weight dtype (bf16).
#include "cli/batch_run.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/views/search_views.h"
#include "common/errors.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"

#include <cmath>
#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

struct JobOptions {
  std::string model, cluster, phase = "train", runtime = "pytorch-eager", format = "table";
  long long gpus = 0, global_batch = 0, seq = 0;
};

void add_job_flags(CLI::App& cmd, JobOptions& o) {
  cmd.add_option("--model", o.model, "Model preset name or Hugging Face config.json")->required();
  cmd.add_option("--cluster", o.cluster, "Cluster preset name or file (ridgeline clusters)")
      ->required();
  cmd.add_option("--gpus", o.gpus, "GPUs of the job")->required();
  cmd.add_option("--global-batch", o.global_batch, "Sequences per optimizer step")->required();
  cmd.add_option("--seq", o.seq, "Sequence length (tokens)")->required();
  cmd.add_option("--phase", o.phase, "train (the only phase searched)")
      ->check(CLI::IsMember({"train"}));
  cmd.add_option("--runtime", o.runtime,
                 "Which kernels run: pytorch-eager (default), fused or a file");
  cmd.add_option("--format", o.format, "table (default), json or csv");
}

struct Job {
  ModelConfig model;
  RunConfig run;
  ClusterSpec cluster;
  GpuSpec gpu;
};

Job job_of(const JobOptions& o) {
  if (o.gpus < 1) throw InputError("--gpus: must be at least 1, got " + std::to_string(o.gpus));
  if (o.global_batch < 1)
    throw InputError("--global-batch: must be at least 1, got " + std::to_string(o.global_batch));
  if (o.seq < 1) throw InputError("--seq: must be at least 1, got " + std::to_string(o.seq));
  Job j{load_model(o.model), {}, load_cluster(o.cluster), {}};
  j.gpu = load_gpu(j.cluster.gpu);
  j.run.phase = Phase::Train;
  j.run.seq = o.seq;
  j.run.optimizer = Optimizer::AdamW;
  j.run.runtime = load_runtime(o.runtime);
  check_run_config(j.run, j.model);
  return j;
}

std::string describe(const Job& j, int64_t gpus, int64_t global_batch) {
  return j.model.name + " train, global batch " + std::to_string(global_batch) + ", seq " +
         std::to_string(j.run.seq) + " on " + std::to_string(gpus) + " x " + j.gpu.name + " (" +
         j.cluster.name + "), AdamW";
}

// "0,1,3" -> {0, 1, 3}, each checked.
template <class T, class Parse>
std::vector<T> list_of(const std::string& text, const std::string& flag, Parse parse) {
  std::vector<T> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    out.push_back(parse(item, flag));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
  }
  return out;
}

int zero_of(const std::string& s, const std::string& flag) {
  if (s.size() == 1 && s[0] >= '0' && s[0] <= '3') return s[0] - '0';
  throw InputError(flag + ": \"" + s + "\": a ZeRO stage is 0, 1, 2 or 3");
}
Recompute recompute_of(const std::string& s, const std::string& flag) {
  if (s == "none") return Recompute::None;
  if (s == "selective") return Recompute::Selective;
  if (s == "full") return Recompute::Full;
  throw InputError(flag + ": \"" + s + "\": expected none, selective or full");
}
PipelineSchedule schedule_of(const std::string& s, const std::string& flag) {
  if (s == "gpipe") return PipelineSchedule::GPipe;
  if (s == "1f1b") return PipelineSchedule::OneFOneB;
  if (s == "interleaved") return PipelineSchedule::Interleaved;
  throw InputError(flag + ": \"" + s + "\": expected gpipe, 1f1b or interleaved");
}

void check_format(const std::string& format) {
  if (format != "table" && format != "json" && format != "csv")
    throw InputError("--format " + format + ": no such format; choose table, json or csv");
}

}  // namespace

Command add_search_command(CLI::App& app) {
  struct Options {
    JobOptions job;
    int top = 10;
    long long max_tp = 0, max_pp = 0, max_vp = 0, max_cp = 1, max_ep = 0, max_microbatch = 8;
    std::string zero = "0,1,2,3", recompute = "none,selective,full", schedule = "1f1b,interleaved";
    std::string sp = "both";
    bool all = false;
    BatchFlags batch;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("search", "Rank every valid training strategy on a cluster");
  add_job_flags(*cmd, o->job);
  cmd->add_option("--top", o->top, "Strategies listed (default 10)");
  cmd->add_option("--max-tp", o->max_tp, "Largest TP tried (default: a node's GPUs)");
  cmd->add_option("--max-pp", o->max_pp, "Largest PP tried (default: no limit)");
  cmd->add_option("--max-vp", o->max_vp, "Largest VP tried (default: no limit)");
  cmd->add_option("--max-cp", o->max_cp, "Largest CP tried (default 1)");
  cmd->add_option("--max-ep", o->max_ep, "Largest EP tried, MoE (default: no limit)");
  cmd->add_option("--max-microbatch", o->max_microbatch,
                  "Largest micro-batch (1, 2, 4 ... ; default 8)");
  cmd->add_option("--zero", o->zero, "ZeRO stages tried (default 0,1,2,3)");
  cmd->add_option("--recompute", o->recompute,
                  "Recompute settings tried (default none,selective,full)");
  cmd->add_option("--schedule", o->schedule, "Pipeline schedules tried (default 1f1b,interleaved)");
  cmd->add_option("--sp", o->sp, "Sequence parallelism with TP > 1: both (default), on or off")
      ->check(CLI::IsMember({"both", "on", "off"}));
  cmd->add_flag("--all", o->all, "Also list the strategies that do not fit, with their reason");
  add_batch_flags(*cmd, o->batch, false);
  return [o]() {
    Batch batch = batch_of(o->batch);
    check_format(o->job.format);
    if (o->top < 1) throw InputError("--top: must be at least 1, got " + std::to_string(o->top));
    Job j = job_of(o->job);
    SearchSpace s;
    s.gpus = o->job.gpus, s.global_batch = o->job.global_batch;
    s.max_tp = o->max_tp, s.max_pp = o->max_pp, s.max_vp = o->max_vp, s.max_cp = o->max_cp;
    s.max_ep = o->max_ep, s.max_microbatch = o->max_microbatch;
    s.zero = list_of<int>(o->zero, "--zero", zero_of);
    s.recompute = list_of<Recompute>(o->recompute, "--recompute", recompute_of);
    s.schedules = list_of<PipelineSchedule>(o->schedule, "--schedule", schedule_of);
    s.sp_on = o->sp != "off", s.sp_off = o->sp != "on";
    SearchProgress progress;
    if (progress_wanted(o->batch)) {
      progress.every = 500;
      progress.report = [](int64_t done, int64_t total) {
        std::cerr << "search: " << done << " of " << total << " strategies priced\n";
      };
    }
    OutputFile out("--out", o->batch.out);  // an unwritable path fails before the search
    catch_sigint();
    progress.stop = &interrupt_flag();
    SearchResult r =
        search_strategies(j.model, j.run, s, j.cluster, j.gpu, progress, {}, batch.jobs);
    if (!r.complete) throw Interrupted();
    search_views().pick(o->job.format, "--format")(
        out.stream(), SearchReport{r, describe(j, s.gpus, s.global_batch), o->top, o->all});
    out.commit();
    return r.ranked.empty() ? 1 : 0;
  };
}

Command add_compare_command(CLI::App& app) {
  struct Options {
    JobOptions job;
    std::vector<std::string> strategies;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("compare", "Put training strategies side by side");
  add_job_flags(*cmd, o->job);
  cmd->add_option(
         "--strategy", o->strategies,
         "A strategy: \"tp=8,pp=16,vp=1,zero=1,mb=1,sp=1,recompute=none\" (dp = the rest); "
         "repeatable")
      ->required();
  return [o]() {
    check_format(o->job.format);
    Job j = job_of(o->job);
    CompareReport rep;
    rep.description = describe(j, o->job.gpus, o->job.global_batch);
    rep.texts = o->strategies;
    for (const std::string& text : o->strategies) {
      ParallelConfig p = parse_strategy(text, o->job.gpus, o->job.global_batch, "--strategy");
      StrategyRow row;
      row.parallel = p;
      try {
        row.prediction = predict_parallel(j.model, strategy_run(j.run, p), p, j.cluster, j.gpu);
      } catch (const InputError& e) {
        throw InputError("--strategy \"" + text + "\": " + e.what());
      }
      row.memory = row.prediction.memory;
      row.timed = true;
      rep.rows.push_back(std::move(row));
    }
    for (size_t i = 1; i < rep.rows.size(); ++i) {
      StrategyRow& r = rep.rows[i];
      r.behind_us = r.prediction.total_us - rep.rows[0].prediction.total_us;
      r.loses_because = r.behind_us >= 0 ? why_slower(r.prediction, rep.rows[0].prediction)
                                         : why_slower(rep.rows[0].prediction, r.prediction);
    }
    compare_views().pick(o->job.format, "--format")(std::cout, rep);
    return 0;
  };
}

}  // namespace ridgeline
