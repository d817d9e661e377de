// `ridgeline serve`: a serving run of one engine on one GPU (a replica).
//   ridgeline serve --gpu h200-sxm --model llama-3.1-8b --engine vllm --input-len 1024
//     --output-len 128 --rate 8 --requests 2000 --format json
// Arrivals: --rate R (Poisson; --arrival gamma --cv 2 bursty, --arrival fixed), --rate inf (all at
// t = 0), --concurrency C (closed loop), or a --workload file's own arrival times. --warmup N
// leaves the first N requests out of the metrics (steady state). --out FILE is renamed into
// place when complete; SIGINT ends the run with exit 130 and no output file.
// Memory follows the requests in flight, not the run: lengths from flags are drawn as requests
// arrive, metrics are folded as they finish (serve/metrics_stream.h; exact up to 100000
// requests, a histogram of 0.1% relative error above, said in the output), and the per-request
// list of --format json/csv and --trace is kept in a temporary file. --trace is refused above
// kMaxTraceRequests requests (a viewer cannot open it; its steps are kept in memory).
#include "cli/batch_run.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/serve_intervals.h"
#include "cli/serve_options.h"
#include "cli/serve_replica.h"
#include "cli/views/serve_views.h"
#include "common/errors.h"
#include "serve/trtllm_bench.h"
#include "serve/workload.h"

#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

constexpr int64_t kMaxTraceRequests = 100000;

struct ServeFlags {
  ServeOptions o;
  ReplicaFlags replica;
  std::string rate, arrival = "poisson", trace, slo, out, disaggregate;
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
  cmd->add_option("--gpu", f->o.gpu, "GPU preset or file (or --cluster C --tp N)");
  add_replica_flags(*cmd, f->replica, false);
  cmd->add_option("--disaggregate", f->disaggregate,
                  "P:D: P prefill and D decode replicas, the KV cache sent between them (with "
                  "--cluster)");
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
    std::vector<int64_t> tp = replica_tp_sizes(f->replica, *cmd, cmd->count("--gpu") > 0);
    if (tp.size() != 1) throw InputError("--tp " + f->replica.tp + ": serve runs one replica size");
    // Lengths from flags are drawn as requests arrive, except for disaggregated pools, which
    // route every request before they run.
    const bool disagg = cmd->count("--disaggregate") > 0;
    GeneratedWorkload lengths;
    Workload w = serve_workload(o, *cmd, disagg ? nullptr : &lengths);
    const bool from_file = !o.workload.empty() || disagg;
    const int64_t count = from_file ? (int64_t)w.requests.size() : lengths.count;
    ServeSetup setup;
    setup.arrivals = arrivals_from(*f, *cmd, !o.workload.empty());
    ReplicaGpus replica = load_replica(f->replica, o.gpu, tp[0]);
    ModelConfig model = load_model(o.model);
    EngineConfig loaded = load_engine(o.engine);
    model = engine_model(loaded, model);
    check_replica_engine(replica, loaded);
    const auto [mean_in, mean_out] = mean_lengths(w, from_file ? nullptr : &lengths);
    EngineConfig engine =
        with_workload_limits(loaded, model, replica.gpu, replica.tp,
                             serve_run_config(o.precision, loaded), mean_in, mean_out);
    std::unique_ptr<StepModel> step_model =
        make_replica_step_model(replica, model, serve_run_config(o.precision, engine));
    StepModel& step = *step_model;
    setup.engine = &engine;
    setup.model = &step;
    setup.seed = (uint64_t)o.seed;
    if (!f->slo.empty()) setup.slo = parse_slo("--slo", f->slo);
    setup.record_steps = !f->trace.empty();
    if (!f->trace.empty() && count > kMaxTraceRequests)
      throw InputError("--trace " + f->trace + ": a trace of " + std::to_string(count) +
                       " requests is too large to view; --trace takes at most " +
                       std::to_string(kMaxTraceRequests) + " requests");
    setup.keep_requests = false;
    setup.log_requests = o.format != "table" || !f->trace.empty();
    if (f->warmup < 0)
      throw InputError("--warmup " + std::to_string(f->warmup) + ": must be 0 or more");
    setup.warmup_requests = f->warmup;
    setup.lengths_from_flags = o.workload.empty();
    std::optional<DisaggSpec> disaggregate;
    if (cmd->count("--disaggregate") > 0) {
      disaggregate = replica_disaggregation(f->disaggregate, replica);
      if (!f->trace.empty())
        throw InputError("--trace: not with --disaggregate (a trace shows one engine's steps)");
      setup.disaggregate = &*disaggregate;
    }
    // The callback also ends the run on SIGINT (exit 130, a --out file removed).
    const bool show = count >= 5000;
    bool shown = false;  // a progress line is on stderr: an error mid-run starts a new line
    catch_sigint();
    setup.progress = [show, &shown](int64_t done, int64_t total, double t) {
      if (interrupted()) {
        if (show) std::cerr << "\n";
        throw Interrupted();
      }
      if (show)
        std::cerr << "\rserve: " << done << "/" << total << " requests finished, t = " << t << " s"
                  << std::flush;
      shown = show;
    };
    KvSizing kv = engine_kv(engine, step);
    OutputFile out("--out", f->out);  // an unwritable path fails before the run
    ServeRun run;
    try {  // lengths from flags are checked as they are drawn, inside the run
      run = from_file ? run_serving(std::move(w), setup, kv) : run_serving(lengths, setup, kv);
    } catch (const InputError&) {
      if (shown) std::cerr << "\n";
      throw;
    }
    if (interrupted()) throw Interrupted();
    if (show) std::cerr << "\n";
    std::string on = replica.long_label();
    if (disaggregate) on += ", disaggregated " + f->disaggregate;
    ServeSubject s{on,
                   model.name,
                   engine.name,
                   engine.file,
                   o.precision,
                   describe(setup.arrivals),
                   workload_label(o),
                   o.seed};
    if (!f->trace.empty()) {
      std::ofstream out = open_output("--trace", f->trace);
      write_serve_trace(out, s, run);
    }
    const bool one_gpu = replica.states_intervals(disaggregate.has_value(), o.precision);
    ServingIntervals iv;
    if (one_gpu && o.format != "csv" && run.report.requests > 0)
      iv = run_intervals(replica.gpu, model, serve_run_config(o.precision, engine), run.report);
    const ServingIntervals* ivp = one_gpu && run.report.requests > 0 ? &iv : nullptr;
    if (o.format == "json")
      print_serve_json(out.stream(), s, run, ivp);
    else if (o.format == "csv")
      print_serve_csv(out.stream(), run);
    else
      print_serve_table(out.stream(), s, run, ivp);
    out.commit();
    return 0;
  };
}

}  // namespace ridgeline
