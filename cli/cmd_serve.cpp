// `ridgeline serve`: a serving run of one engine on one GPU (a replica).
//   ridgeline serve --gpu h200-sxm --model llama-3.1-8b --engine vllm --input-len 1024
//     --output-len 128 --rate 8 --requests 2000 --format json
// Arrivals: --rate R (Poisson; --arrival gamma --cv 2 bursty, --arrival fixed), --rate inf (all at
// t = 0), --concurrency C (closed loop), or a --workload file's own arrival times. --warmup N
// leaves the first N requests out of the metrics (steady state). --out FILE is renamed into
// place when complete; SIGINT ends the run with exit 130 and no output file.
#include "cli/batch_run.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/serve_options.h"
#include "cli/views/serve_views.h"
#include "common/errors.h"
#include "hardware/gpu_load.h"
#include "serve/gpu_step_model.h"
#include "serve/workload.h"

#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

struct ServeFlags {
  ServeOptions o;
  std::string rate, arrival = "poisson", trace, slo, out;
  double cv = 1;
  long long concurrency = 0, warmup = 0;
};

ArrivalSpec arrivals_from(const ServeFlags& f, const CLI::App& cmd, bool trace_file) {
  bool rate = cmd.count("--rate") > 0, conc = cmd.count("--concurrency") > 0;
  if (rate && conc) throw InputError("--concurrency: give --rate or --concurrency, not both");
  if (trace_file) {
    if (rate || conc)
      throw InputError(std::string(rate ? "--rate" : "--concurrency") +
                       ": the --workload file gives each request's arrival_s");
    return ArrivalSpec{ArrivalSpec::Kind::Trace, 0, 1, 0};
  }
  if (conc) {
    if (cmd.count("--arrival") > 0 || cmd.count("--cv") > 0)
      throw InputError("--concurrency: a closed loop has no --arrival/--cv");
    return ArrivalSpec{ArrivalSpec::Kind::ClosedLoop, 0, 1, f.concurrency};
  }
  if (!rate) throw InputError("--rate R|inf or --concurrency C: say how requests arrive");
  return parse_rate(f.rate, f.arrival, f.cv, cmd.count("--cv") > 0);
}

std::string workload_label(const ServeOptions& o) {
  if (!o.workload.empty()) return o.workload;
  return "input " + o.input_len + ", output " + o.output_len + ", " + std::to_string(o.requests) +
         " requests";
}

}  // namespace

Command add_serve_command(CLI::App& app) {
  auto f = std::make_shared<ServeFlags>();
  CLI::App* cmd =
      app.add_subcommand("serve", "Simulate a serving engine on one GPU: TTFT, TPOT, throughput");
  cmd->add_option("--gpu", f->o.gpu, "GPU preset or file")->required();
  cmd->add_option("--engine", f->o.engine, "vllm, trtllm, sglang, hf-cb or an engine .json")
      ->required();
  add_serve_workload_flags(*cmd, f->o);
  cmd->add_option("--rate", f->rate, "Requests per second, or inf (all at t = 0)");
  cmd->add_option("--arrival", f->arrival, "poisson (default), gamma (with --cv) or fixed");
  cmd->add_option("--cv", f->cv, "Coefficient of variation of gamma gaps (1: Poisson)");
  cmd->add_option("--concurrency", f->concurrency, "Closed loop: requests in flight")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", f->warmup,
                  "Leave the first N requests out of every metric (steady state; a closed loop's "
                  "first wave)");
  cmd->add_option("--slo", f->slo, "Goodput under e.g. ttft_p99=2s,tpot_p99=100ms");
  cmd->add_option("--format", f->o.format, "table, json or csv (one row a request)")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_option("--trace", f->trace, "Write a Perfetto trace of steps and requests");
  cmd->add_option("--out", f->out, "Write the output to FILE (renamed into place when complete)");
  return [f, cmd]() {
    const ServeOptions& o = f->o;
    Workload w = serve_workload(o, *cmd);
    ServeSetup setup;
    setup.arrivals = arrivals_from(*f, *cmd, !o.workload.empty());
    EngineConfig engine = load_engine(o.engine);
    GpuSpec gpu = load_gpu(o.gpu);
    ModelConfig model = load_model(o.model);
    GpuStepModel step(gpu, model, serve_run_config(o.precision, engine));
    setup.engine = &engine;
    setup.model = &step;
    setup.seed = (uint64_t)o.seed;
    if (!f->slo.empty()) setup.slo = parse_slo("--slo", f->slo);
    setup.record_steps = !f->trace.empty();
    if (f->warmup < 0)
      throw InputError("--warmup " + std::to_string(f->warmup) + ": must be 0 or more");
    setup.warmup_requests = f->warmup;
    setup.lengths_from_flags = o.workload.empty();
    // The callback also ends the run on SIGINT (exit 130, a --out file removed).
    const bool show = w.requests.size() >= 5000;
    catch_sigint();
    setup.progress = [show](int64_t done, int64_t total, double t) {
      if (interrupted()) {
        if (show) std::cerr << "\n";
        throw Interrupted();
      }
      if (show)
        std::cerr << "\rserve: " << done << "/" << total << " requests finished, t = " << t << " s"
                  << std::flush;
    };
    KvSizing kv = engine_kv(engine, step);
    OutputFile out("--out", f->out);  // an unwritable path fails before the run
    ServeRun run = run_serving(std::move(w), setup, kv);
    if (interrupted()) throw Interrupted();
    if (show) std::cerr << "\n";
    ServeSubject s{gpu.name,          model.name,  engine.name,
                   engine.file,       o.precision, describe(setup.arrivals),
                   workload_label(o), o.seed};
    if (!f->trace.empty()) {
      std::ofstream out = open_output("--trace", f->trace);
      write_serve_trace(out, s, run);
    }
    if (o.format == "json")
      print_serve_json(out.stream(), s, run);
    else if (o.format == "csv")
      print_serve_csv(out.stream(), run);
    else
      print_serve_table(out.stream(), s, run);
    out.commit();
    return 0;
  };
}

}  // namespace ridgeline
