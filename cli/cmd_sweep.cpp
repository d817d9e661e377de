// `ridgeline sweep`: one model on one GPU over batch sizes, sequence (or KV) lengths and weight
// precisions, one row per point. Points that do not fit in memory stay in the table, marked.
//   ridgeline sweep --model llama-3-8b --phase decode --kv-len 2048 --batches 1,8,32,128
//   --weight-dtypes bf16,fp8
#include "cli/commands.h"
#include "cli/predict_options.h"
#include "cli/views/views.h"
#include "common/errors.h"
#include "hardware/gpu_load.h"
#include "model/prediction.h"
#include "workloads/graph_builder.h"

#include <iomanip>
#include <iostream>
#include <memory>

namespace ridgeline {

Command add_sweep_command(CLI::App& app) {
  struct Options {
    PredictOptions base;
    std::vector<long long> batches, seqs, kv_lens;
    std::vector<std::string> weight_dtypes;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("sweep", "Predict a model over batch sizes, lengths and precisions");
  add_predict_flags(*cmd, o->base);
  cmd->add_option("--batches", o->batches, "Batch sizes, comma-separated")->delimiter(',');
  cmd->add_option("--seqs", o->seqs, "Sequence lengths (prefill, train), comma-separated")
      ->delimiter(',');
  cmd->add_option("--kv-lens", o->kv_lens, "Cached tokens (decode), comma-separated")
      ->delimiter(',');
  cmd->add_option("--weight-dtypes", o->weight_dtypes, "Weight precisions, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"bf16", "fp16", "fp8", "int8", "int4"}));
  return [o]() {
    GpuSpec gpu = load_gpu(o->base.gpu, o->base.sets, o->base.profile);
    ModelConfig model = load_model(o->base.model);
    auto or_one = [](std::vector<long long> v, long long x) {
      return v.empty() ? std::vector<long long>{x} : v;
    };
    auto batches = or_one(o->batches, o->base.batch);
    auto seqs = or_one(o->seqs, o->base.seq);
    auto kvs = or_one(o->kv_lens, o->base.kv_len);
    auto dtypes =
        o->weight_dtypes.empty() ? std::vector<std::string>{o->base.weights} : o->weight_dtypes;
    std::cout << model.name << " " << o->base.phase << " on " << gpu.name << ", " << o->base.runtime
              << ", " << o->base.launch << " launch\n"
              << std::left << std::setw(8) << "weights" << std::setw(8) << "batch" << std::setw(9)
              << "seq" << std::setw(9) << "kv_len" << std::setw(13) << "step" << std::setw(14)
              << "tokens/s" << std::setw(11) << "memory"
              << "fits\n";
    for (const auto& dt : dtypes)
      for (long long b : batches)
        for (long long s : seqs)
          for (long long kv : kvs) {
            PredictOptions p = o->base;
            p.weights = dt, p.batch = b, p.seq = s, p.kv_len = kv;
            RunConfig run = run_config_from(p);
            OpGraph g = build_graph(model, run);
            Prediction pr = predict_workload(g, model, run, gpu);
            std::cout << std::setw(8) << dt << std::setw(8) << b << std::setw(9) << s
                      << std::setw(9) << kv << std::setw(13) << human_us(pr.total_us)
                      << std::setw(14) << fixed(pr.tokens_per_s, 0) << std::setw(11)
                      << human_bytes(pr.memory.total()) << (pr.memory.fits() ? "yes" : "NO")
                      << "\n";
          }
    return 0;
  };
}

}  // namespace ridgeline
