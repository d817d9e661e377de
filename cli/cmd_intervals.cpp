// `ridgeline calibrate intervals`: writes the prediction interval table (validate/intervals.json)
// from the FIT split of the data sets that accuracy baselines name (kernels, one-GPU steps,
// collectives) and of published training and serving runs (output-level quantiles), or checks a
// table's coverage on the HELD-OUT split of the same data (the table's provenance names them):
//   ridgeline calibrate intervals --baseline validate/accuracy_baseline.json ...
//       --collectives validate/data/published-collectives.json
//       --training-runs validate/data/published-training-runs.json
//       --serving-data validate/data/published-serving.json --engine-for FAMILY=ENGINE ...
//       --cross-fit h100-sxm=validate/data/h100-sxm-ops-2026-11-29.json ... --folds 5
//       --out validate/intervals.json
//   ridgeline calibrate intervals --coverage validate/intervals.json
// --coverage prints the fraction of held-out measurements inside the stated 80% interval per
// kind, calibration level and category, and per output kind; it exits 1 when the kernels' and
// steps' overall fraction is outside [--min, --max] (0.70-0.90 by default) or an output kind's
// held-out coverage is too low for an 80% interval (coverage_too_low, interval_build.h).
// --cross-fit GPU=FILE names the kernels GPU's profile was fitted on: its own-level fit kernels
// are then predicted K-fold cross-fitted (--folds, calibrate/fit/cross_fit.h), not in-sample.
#include "calibrate/fit/cross_fit.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/serving_coverage.h"
#include "cli/views/interval_views.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "validate/cluster_coverage.h"
#include "validate/interval_build.h"

#include <ctime>
#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

// The published runs output-level quantiles come from ("" / empty: none).
struct OutputSources {
  std::string training_runs;
  std::vector<std::string> serving_data, engine_for;
};

// The profiles' fit kernels to cross-fit (GPU=FILE items), and in how many folds.
struct CrossFitSources {
  std::vector<std::string> items;
  int folds = 5;
};

std::string today_utc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

nlohmann::json provenance_of(const IntervalSources& s, const OutputSources& o,
                             const CrossFitSources& x, int min_count, const std::string& out) {
  std::string command = "ridgeline calibrate intervals";
  for (const auto& b : s.baselines) command += " --baseline " + b;
  if (!s.collectives.empty()) command += " --collectives " + s.collectives;
  if (!o.training_runs.empty()) command += " --training-runs " + o.training_runs;
  for (const auto& d : o.serving_data) command += " --serving-data " + d;
  for (const auto& e : o.engine_for) command += " --engine-for " + e;
  for (const auto& c : x.items) command += " --cross-fit " + c;
  if (!x.items.empty()) command += " --folds " + std::to_string(x.folds);
  command += " --min-count " + std::to_string(min_count) + " --out " + out;
  nlohmann::json p = {{"command", command},
                      {"split", "fit"},
                      {"generated_utc", today_utc()},
                      {"baselines", s.baselines}};
  if (!s.collectives.empty()) p["collectives"] = s.collectives;
  if (!o.training_runs.empty()) p["training_runs"] = o.training_runs;
  if (!o.serving_data.empty()) p["serving_data"] = o.serving_data;
  if (!o.engine_for.empty()) p["engine_for"] = o.engine_for;
  if (!x.items.empty())
    p["cross_fit"] = {{"data", x.items},
                      {"folds", x.folds},
                      {"method",
                       "own-level fit kernels of these GPUs: fold FNV-1a(id) mod folds; each "
                       "fold predicted with the profile's parameters refitted (fit_parameters, "
                       "from the committed profile) on the other folds"}};
  return p;
}

std::vector<std::string> strings_at(JsonReader& r, const std::string& key, const char* what) {
  const nlohmann::json& a = r.raw(key);
  if (!a.is_array() || a.empty()) r.fail(key, std::string("expected an array of ") + what);
  std::vector<std::string> out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string()) r.fail_at(key + "/" + std::to_string(i), "expected a string");
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

// The data sets a table was built from, as its provenance names them.
std::pair<IntervalSources, OutputSources> sources_of(const IntervalTable& t) {
  JsonReader r(t.provenance, t.file, "/provenance");
  IntervalSources s;
  s.baselines = strings_at(r, "baselines", "baseline files");
  if (r.has("collectives")) s.collectives = r.string("collectives");
  OutputSources o;
  if (r.has("training_runs")) o.training_runs = r.string("training_runs");
  if (r.has("serving_data")) o.serving_data = strings_at(r, "serving_data", "serving data files");
  if (r.has("engine_for")) o.engine_for = strings_at(r, "engine_for", "FAMILY=ENGINE items");
  r.one_of("split", {"fit"});  // a table is built from the fit split only
  return {s, o};
}

// Scored serving rows (the scores point into `rows`).
struct ServingScores {
  std::vector<PublishedRow> rows;
  PublishedScorecard card;
};

std::unique_ptr<ServingScores> score_serving(const OutputSources& o, const std::string& split) {
  auto s = std::make_unique<ServingScores>();
  for (const std::string& f : o.serving_data) {
    std::vector<PublishedRow> some = read_serving_data(f);
    s->rows.insert(s->rows.end(), some.begin(), some.end());
  }
  s->card = score_published(s->rows, split, engine_map(o.engine_for));
  return s;
}

// The output-level entries from the fit rows.
void add_outputs(IntervalTable& t, const OutputSources& o) {
  if (!o.training_runs.empty()) {
    std::vector<ClusterRow> rows = cluster_rows(load_training_runs(o.training_runs), nullptr);
    t.outputs[kClusterStep] = output_entry(cluster_ratios(rows, "fit"), {o.training_runs});
  }
  if (!o.serving_data.empty())
    for (auto& [kind, ratios] : serving_ratios(score_serving(o, "fit")->card, "fit"))
      t.outputs[kind] = output_entry(std::move(ratios), o.serving_data);
}

// Held-out coverage per output kind, judged against 80%; true when one is too low.
bool check_outputs(std::ostream& os, const IntervalTable& t, const OutputSources& o) {
  std::vector<CoverageRow> held;
  if (!o.training_runs.empty()) {
    std::vector<CoverageRow> rows = cluster_coverage(t, load_training_runs(o.training_runs));
    print_cluster_coverage(os, rows);
    held.push_back(rows[0]);
    held.back().category = kClusterStep;
  }
  if (!o.serving_data.empty()) {
    std::vector<CoverageRow> rows =
        serving_coverage(t, score_serving(o, "all")->card, engine_map(o.engine_for));
    print_serving_coverage(os, rows);
    std::map<std::string, CoverageRow> by_kind;
    for (const CoverageRow& r : rows) {
      std::string kind = serving_output_kind(r.category);
      if (r.level != "held_out" || kind.empty()) continue;
      CoverageRow& k = by_kind[kind];
      k.kind = "serving", k.level = "held_out", k.category = kind;
      k.count += r.count, k.below += r.below, k.inside += r.inside, k.above += r.above;
    }
    for (const auto& [kind, r] : by_kind) held.push_back(r);
  }
  if (held.empty()) return false;
  return print_output_coverage(os, t, held);
}

}  // namespace

Command add_calibrate_intervals_command(CLI::App& calibrate, CLI::App*& sub) {
  struct Options {
    IntervalSources sources;
    OutputSources outputs;
    CrossFitSources cross;
    std::string out, coverage;
    int min_count = 10;
    double min = 0.70, max = 0.90;
  };
  auto o = std::make_shared<Options>();
  sub = calibrate.add_subcommand(
      "intervals", "Write the prediction interval table from fit data, or check its coverage");
  sub->add_option("--baseline", o->sources.baselines,
                  "An accuracy baseline (validate/accuracy_baseline*.json) whose GPU, data sets "
                  "and runtime to take; repeatable");
  sub->add_option("--collectives", o->sources.collectives,
                  "Measured collectives (validate/data/published-collectives.json)");
  sub->add_option("--training-runs", o->outputs.training_runs,
                  "Published training runs (validate/data/published-training-runs.json): the "
                  "cluster-step quantiles from their fit rows");
  sub->add_option("--serving-data", o->outputs.serving_data,
                  "Published serving measurements (as validate-serving --data): the TTFT, TPOT "
                  "and tokens/s quantiles from their fit rows; repeatable");
  sub->add_option("--engine-for", o->outputs.engine_for,
                  "With --serving-data: FAMILY=ENGINE, the engine a source family runs");
  sub->add_option("--cross-fit", o->cross.items,
                  "GPU=FILE: kernels GPU's profile was fitted on (hardware/profiles/GPU.json "
                  "source); its own-level fit kernels are then predicted cross-fitted; repeatable");
  sub->add_option("--folds", o->cross.folds, "With --cross-fit: how many folds (default 5)")
      ->check(CLI::Range(2, 100));
  sub->add_option("--min-count", o->min_count,
                  "Fewest fit measurements an entry needs to be used (default 10)")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--out", o->out, "Where to write the table (validate/intervals.json)");
  sub->add_option("--coverage", o->coverage,
                  "Check a table's held-out coverage instead of writing one");
  sub->add_option("--min", o->min, "--coverage: lowest overall coverage accepted (0.70)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--max", o->max, "--coverage: highest overall coverage accepted (0.90)")
      ->check(CLI::Range(0.0, 1.0));
  CLI::App* cmd = sub;
  return [o, cmd]() {
    if (!o->coverage.empty()) {
      for (const char* f : {"--baseline", "--collectives", "--training-runs", "--serving-data",
                            "--engine-for", "--cross-fit", "--folds", "--min-count", "--out"})
        if (cmd->count(f))
          throw InputError(std::string(f) + ": not with --coverage (the table names its data)");
      IntervalTable t = load_interval_table(o->coverage);
      auto [sources, outputs] = sources_of(t);
      std::vector<IntervalCase> held = interval_cases(sources, "holdout", &t);
      std::vector<CoverageRow> rows = interval_coverage(t, held);
      print_interval_coverage(std::cout, t, rows, o->min, o->max);
      double all = rows.back().coverage();
      bool low = check_outputs(std::cout, t, outputs);
      return all < o->min || all > o->max || low ? 1 : 0;
    }
    for (const char* f : {"--min", "--max"})
      if (cmd->count(f)) throw InputError(std::string(f) + ": only with --coverage");
    if (o->sources.baselines.empty())
      throw InputError("--baseline: give at least one accuracy baseline (or --coverage TABLE)");
    if (o->out.empty()) throw InputError("--out: say where to write the table");
    if (!o->outputs.engine_for.empty() && o->outputs.serving_data.empty())
      throw InputError("--engine-for: only with --serving-data");
    if (cmd->count("--folds") && o->cross.items.empty())
      throw InputError("--folds: only with --cross-fit");
    engine_map(o->outputs.engine_for);  // a malformed item fails before the long work
    CrossFitKernels cross = cross_fit_profiles(o->cross.items, o->cross.folds);
    std::vector<IntervalCase> fit = interval_cases(o->sources, "fit", nullptr, &cross);
    IntervalTable t = build_interval_table(
        fit, o->min_count, provenance_of(o->sources, o->outputs, o->cross, o->min_count, o->out));
    add_outputs(t, o->outputs);
    nlohmann::ordered_json doc = interval_table_json(t);
    parse_interval_table(nlohmann::json::parse(doc.dump()), o->out);  // what is written must load
    std::ofstream out = open_output("--out", o->out);
    out << doc.dump(2) << "\n";
    out.close();
    if (!out) throw InputError("--out " + o->out + ": writing the file failed");
    std::cout << "wrote " << o->out << " from " << fit.size() << " fit measurements\n";
    return 0;
  };
}

}  // namespace ridgeline
