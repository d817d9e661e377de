// `ridgeline predict`: a workload (model + run options) on one GPU.
//   ridgeline predict --gpu h100-sxm --model llama-3-8b --phase decode --batch 32 --kv-len 2048
//   ridgeline predict --gpu h200-sxm --model path/to/config.json --phase prefill --batch 1 --seq
//   8192 ridgeline predict --gpu a100-sxm-80gb --model gpt3-175b --phase train --batch 1 --seq 2048
//   --blocks 4
// A step that does not fit in the GPU's memory is an error saying how much it needs and how
// much there is, unless --ignore-memory. With --cluster (and the strategy flags: --gpus, --tp,
// --pp, --dp ...) the model runs on many GPUs: model/parallel_predict.h.
#include "cli/commands.h"
#include "cli/fp8_options.h"
#include "cli/output_file.h"
#include "cli/predict_options.h"
#include "cli/views/generate_views.h"
#include "cli/views/parallel_views.h"
#include "cli/views/predict_views.h"
#include "cli/views/views.h"
#include "common/errors.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "model/generate_predict.h"
#include "model/parallel_predict.h"
#include "validate/intervals.h"
#include "validate/output_intervals.h"
#include "workloads/graph_builder.h"

#include <fstream>
#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

// The flag to change when a step does not fit: the batch when a smaller one fits; else the
// length when the weights alone fit; else the model (or its precision).
std::string flag_at_fault(const Prediction& p) {
  const MemoryFootprint& f = p.memory;
  if (f.max_batch >= 1) return "--batch";
  double fixed = f.weights_bytes + f.gradient_bytes + f.optimizer_bytes + f.reserved_bytes;
  if (fixed < f.capacity_bytes) return p.run.phase == Phase::Decode ? "--kv-len" : "--seq";
  return "--model";
}

void check_fits(const Prediction& p, const ModelConfig& m) {
  const MemoryFootprint& f = p.memory;
  if (f.fits()) return;
  auto gb = [](double b) { return human_bytes(b); };
  std::string msg = m.name + " " + p.description.substr(p.description.find(' ') + 1) + " needs " +
                    gb(f.total()) + " (weights " + gb(f.weights_bytes) + ", KV cache " +
                    gb(f.kv_cache_bytes) + ", activations " + gb(f.activation_bytes) +
                    ", gradients " + gb(f.gradient_bytes) + ", optimizer " + gb(f.optimizer_bytes) +
                    ", reserved " + gb(f.reserved_bytes) + ") but " + p.gpu + " has " +
                    gb(f.capacity_bytes);
  msg += f.max_batch > 0 ? "; the largest batch that fits is " + std::to_string(f.max_batch)
                         : "; not even batch 1 fits";
  throw InputError(flag_at_fault(p) + ": " + msg + " (--ignore-memory predicts anyway)");
}

// `predict --cluster`: the model on many GPUs under the strategy the flags give.
int predict_on_cluster(const CLI::App& cmd, const PredictOptions& o, const RunConfig& run,
                       const ParallelConfig& parallel, const Fp8Training& fp8) {
  auto given = [&](const char* flag) { return cmd.get_option(flag)->count() > 0; };
  ClusterSpec cluster = load_cluster(o.cluster);
  if (given("--gpu"))
    throw InputError("--gpu: the GPUs are the cluster's (" + cluster.name + ": " + cluster.gpu +
                     "); leave --gpu out (--set applies what-ifs to them)");
  if (given("--top")) throw InputError("--top: lists kernels of one GPU; --cluster lists stages");
  if (o.format == "csv")
    throw InputError("--format csv: a prediction on a cluster is table or json");
  GpuSpec gpu = load_gpu(cluster.gpu, o.sets, o.profile);
  ModelConfig model = load_model(o.model);
  ParallelOptions options;
  options.timeline = !o.trace.empty();
  options.fp8 = fp8;
  ParallelPrediction p = predict_parallel(model, run, parallel, cluster, gpu, options);
  if (!p.memory.fits() && !o.ignore_memory)
    throw InputError("memory per GPU: " + model.name + " " + p.memory.reason +
                     " (--ignore-memory predicts anyway)");
  if (!o.trace.empty()) {
    std::ofstream out = open_output("--trace", o.trace);
    write_parallel_trace(out, p);
  }
  PredictionInterval interval =
      cluster_interval(builtin_interval_table(), gpu, cluster, model, run, parallel, p);
  if (o.format == "json")
    print_parallel_json(
        std::cout, p,
        RunSubject{model.name, model.source, gpu.name, gpu.file, gpu.profile, what_if_labels(gpu)},
        &interval);
  else
    print_parallel_table(std::cout, p, &interval);
  return 0;
}

// `predict --phase generate`: a generate() call, its prefill and decode steps on one GPU.
int predict_generate_call(const CLI::App& cmd, const PredictOptions& o, const RunConfig& run) {
  auto given = [&](const char* flag) { return cmd.get_option(flag)->count() > 0; };
  for (const char* f : {"--trace", "--top"})
    if (given(f))
      throw InputError(std::string(f) +
                       ": shows the kernels of one step; not with --phase generate");
  GpuSpec gpu = load_gpu(o.gpu, o.sets, o.profile);
  ModelConfig model = load_model(o.model);
  GenerateSteps g = predict_generate_steps(model, run, o.new_tokens, gpu);
  if (!o.ignore_memory && !g.memory.fits())
    throw InputError("--new-tokens: " + model.name + " generate of " + std::to_string(run.seq) +
                     " + " + std::to_string(o.new_tokens) + " tokens needs " +
                     human_bytes(g.memory.total()) + " at its last step but " + gpu.name + " has " +
                     human_bytes(g.memory.capacity_bytes) + " (--ignore-memory predicts anyway)");
  if (o.format == "json")
    print_generate_json(std::cout, g);
  else if (o.format == "csv")
    print_generate_csv(std::cout, g);
  else
    print_generate_table(std::cout, g);
  return 0;
}

}  // namespace

Command add_predict_command(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand(
      "predict", "Predict a model's step (prefill, decode or training) on one GPU");
  add_predict_flags(*cmd, *o);
  add_parallel_flags(*cmd, *o);
  auto f8 = std::make_shared<Fp8Flags>();
  add_fp8_flags(*cmd, *f8);
  CLI::Option* top = cmd->get_option("--top");
  return [o, f8, top, cmd]() {
    if (top->count() > 0 && o->format != "table" && o->cluster.empty())
      throw InputError("--top: lists kernels in the table; --format " + o->format +
                       " holds every kernel");
    check_generate_flags(*cmd, *o, true);
    RunConfig run = run_config_from(*o);
    if (o->phase == "generate" && !o->cluster.empty())
      throw InputError("--phase generate: a generate() call on one GPU; not with --cluster");
    Fp8Training fp8 = fp8_training_from(*cmd, *f8, !o->cluster.empty(), o->phase);
    if (o->phase == "generate") return predict_generate_call(*cmd, *o, run);
    ParallelConfig parallel = parallel_config_from(*cmd, *o, run);
    if (!o->cluster.empty()) return predict_on_cluster(*cmd, *o, run, parallel, fp8);
    GpuSpec gpu = load_gpu(o->gpu, o->sets, o->profile);
    ModelConfig model = load_model(o->model);
    OpGraph graph = build_graph(model, run);
    Prediction p = predict_workload(graph, model, run, gpu);
    p.interval = step_interval(builtin_interval_table(), gpu, graph, p, model.moe.experts > 0);
    if (!o->ignore_memory) check_fits(p, model);
    if (!o->trace.empty()) {
      std::ofstream out = open_output("--trace", o->trace);
      write_chrome_trace(out, p);
    }
    if (o->format == "json")
      print_prediction_json(std::cout, p);
    else if (o->format == "csv")
      print_prediction_csv(std::cout, p);
    else
      print_prediction_table(std::cout, p, o->top);
    return 0;
  };
}

}  // namespace ridgeline
