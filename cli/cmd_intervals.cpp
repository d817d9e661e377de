// `ridgeline calibrate intervals`: writes the prediction interval table (validate/intervals.json)
// from the FIT split of the data sets that accuracy baselines name, or checks a table's coverage
// on the HELD-OUT split of the same data sets (the table's provenance names them):
//   ridgeline calibrate intervals --baseline validate/accuracy_baseline.json ...
//       --collectives validate/data/published-collectives.json --out validate/intervals.json
//   ridgeline calibrate intervals --coverage validate/intervals.json
// --coverage prints the fraction of held-out measurements inside the stated 80% interval per
// kind, calibration level and category, and exits 1 when the overall fraction is outside
// [--min, --max] (0.70-0.90 by default).
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/views/interval_views.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "validate/interval_build.h"

#include <ctime>
#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

std::string today_utc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

nlohmann::json provenance_of(const IntervalSources& s, int min_count, const std::string& out) {
  std::string command = "ridgeline calibrate intervals";
  for (const auto& b : s.baselines) command += " --baseline " + b;
  if (!s.collectives.empty()) command += " --collectives " + s.collectives;
  command += " --min-count " + std::to_string(min_count) + " --out " + out;
  nlohmann::json p = {{"command", command},
                      {"split", "fit"},
                      {"generated_utc", today_utc()},
                      {"baselines", s.baselines}};
  if (!s.collectives.empty()) p["collectives"] = s.collectives;
  return p;
}

// The data sets a table was built from, as its provenance names them.
IntervalSources sources_of(const IntervalTable& t) {
  JsonReader r(t.provenance, t.file, "/provenance");
  IntervalSources s;
  const nlohmann::json& b = r.raw("baselines");
  if (!b.is_array() || b.empty()) r.fail("baselines", "expected an array of baseline files");
  for (size_t i = 0; i < b.size(); ++i) {
    if (!b[i].is_string()) r.fail("baselines/" + std::to_string(i), "expected a file name");
    s.baselines.push_back(b[i].get<std::string>());
  }
  if (r.has("collectives")) s.collectives = r.string("collectives");
  r.one_of("split", {"fit"});  // a table is built from the fit split only
  return s;
}

}  // namespace

Command add_calibrate_intervals_command(CLI::App& calibrate, CLI::App*& sub) {
  struct Options {
    IntervalSources sources;
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
      for (const char* f : {"--baseline", "--collectives", "--min-count", "--out"})
        if (cmd->count(f))
          throw InputError(std::string(f) + ": not with --coverage (the table names its data)");
      IntervalTable t = load_interval_table(o->coverage);
      std::vector<IntervalCase> held = interval_cases(sources_of(t), "holdout", &t);
      std::vector<CoverageRow> rows = interval_coverage(t, held);
      print_interval_coverage(std::cout, t, rows, o->min, o->max);
      double all = rows.back().coverage();
      return all < o->min || all > o->max ? 1 : 0;
    }
    for (const char* f : {"--min", "--max"})
      if (cmd->count(f)) throw InputError(std::string(f) + ": only with --coverage");
    if (o->sources.baselines.empty())
      throw InputError("--baseline: give at least one accuracy baseline (or --coverage TABLE)");
    if (o->out.empty()) throw InputError("--out: say where to write the table");
    std::vector<IntervalCase> fit = interval_cases(o->sources, "fit");
    IntervalTable t =
        build_interval_table(fit, o->min_count, provenance_of(o->sources, o->min_count, o->out));
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
