// `ridgeline validate-serving`: the serving simulator against published measurements.
//   ridgeline validate-serving --data validate/data/published-serving.json --split held_out
//   ridgeline validate-serving --check validate/serving_baseline.json   (what ctest runs)
// A baseline names the data, the split and the engine run for each source family, and holds
// each group's MAPE; --check fails when a group got worse by more than its tolerance (or its
// rows changed), and says which.
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/serving_coverage.h"
#include "common/errors.h"
#include "common/json_reader.h"
#include "serve/published.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

struct Flags {
  std::vector<std::string> data;
  std::string split = "all", check, write_baseline, format = "table";
  std::vector<std::string> engine_for;
  bool intervals = false;
};

void print_table(std::ostream& os, const PublishedScorecard& c, bool rows) {
  char b[256];
  os << "  family                                   metric               split     rows   MAPE  "
        "median|e|  mean e\n";
  for (const GroupScore& g : c.groups) {
    std::snprintf(b, sizeof b, "  %-40s %-20s %-9s %4lld %5.1f%% %9.1f%% %+6.1f%%\n",
                  g.family.c_str(), g.metric.c_str(), g.split.c_str(), (long long)g.rows,
                  100 * g.mape, 100 * g.median_abs_error, 100 * g.mean_signed_error);
    os << b;
  }
  std::snprintf(b, sizeof b, "failed rows (not scored): %lld\n", (long long)c.failed);
  os << b;
  for (const RowScore& r : c.rows) {
    if (!r.failure.empty()) {
      os << "  failed " << r.row->id << ": " << r.failure << "\n";
      continue;
    }
    if (!rows) continue;
    for (auto [k, e] : r.error) {
      std::snprintf(b, sizeof b,
                    "  %-36s %-8s %-14s %-6s %-20s predicted %10.2f measured %10.2f "
                    "%+6.1f%%\n",
                    r.row->id.c_str(), r.row->split.c_str(), r.row->gpu.c_str(),
                    r.row->precision.c_str(), k.c_str(), r.predicted.at(k), r.row->measured.at(k),
                    100 * e);
      os << b;
    }
  }
}

nlohmann::ordered_json baseline_json(const Flags& f, const std::map<std::string, std::string>& e,
                                     const PublishedScorecard& c) {
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const GroupScore& g : c.groups)
    groups.push_back({{"family", g.family},
                      {"metric", g.metric},
                      {"split", g.split},
                      {"rows", g.rows},
                      {"mape", std::round(g.mape * 1e4) / 1e4},
                      {"tolerance", 0.005}});
  return {{"description",
           "Serving simulator accuracy on published measurements; ctest runs "
           "`ridgeline validate-serving --check` on this file"},
          {"data", f.data},
          {"split", f.split},
          {"engine_for", e},
          {"failed_rows", c.failed},
          {"groups", groups}};
}

std::vector<PublishedRow> read_all(const std::vector<std::string>& files) {
  std::vector<PublishedRow> rows;
  for (const std::string& f : files) {
    std::vector<PublishedRow> some = read_serving_data(f);
    rows.insert(rows.end(), some.begin(), some.end());
  }
  return rows;
}

int check(const std::string& path, std::ostream& os) {
  nlohmann::json doc = read_json_file(path);
  JsonReader r(doc, path);
  r.string("description");
  std::vector<std::string> data;
  const nlohmann::json& files = r.raw("data");
  if (!files.is_array() || files.empty()) r.fail("data", "expected an array of data files");
  for (const auto& x : files) {
    if (!x.is_string()) r.fail("data", "expected an array of data files");
    data.push_back(x.get<std::string>());
  }
  std::string split = r.one_of("split", {"all", "fit", "held_out"});
  std::map<std::string, std::string> engines;
  JsonReader& e = r.child("engine_for");
  for (const std::string& k : e.keys()) engines[k] = e.string(k);
  long long failed = r.integer("failed_rows", 0);
  std::vector<PublishedRow> rows = read_all(data);  // the scores point here
  PublishedScorecard c = score_published(rows, split, engines);
  int worse = 0;
  char b[256];
  for (JsonReader& g : r.array_of_objects("groups")) {
    std::string fam = g.string("family"), metric = g.string("metric"), sp = g.string("split");
    long long rows = g.integer("rows", 1);
    double mape = g.non_negative("mape"), tol = g.non_negative("tolerance");
    g.finish();
    auto it = std::find_if(c.groups.begin(), c.groups.end(), [&](const GroupScore& x) {
      return x.family == fam && x.metric == metric && x.split == sp;
    });
    bool bad = it == c.groups.end() || it->rows != rows || it->mape > mape + tol;
    std::snprintf(b, sizeof b, "%s %s %s %s: MAPE %.1f%% (baseline %.1f%%), %lld rows\n",
                  bad ? "WORSE" : "ok   ", fam.c_str(), metric.c_str(), sp.c_str(),
                  it == c.groups.end() ? NAN : 100 * it->mape, 100 * mape,
                  it == c.groups.end() ? 0LL : (long long)it->rows);
    os << b;
    worse += bad ? 1 : 0;
  }
  r.finish();
  if (c.failed != failed) {
    os << "WORSE failed rows: " << c.failed << " (baseline " << failed << ")\n";
    ++worse;
  }
  return worse == 0 ? 0 : 1;
}

}  // namespace

Command add_validate_serving_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "validate-serving", "Score the serving simulator against published serving measurements");
  cmd->add_option("--data", f->data,
                  "published-serving.json (scripts/select_published_serving.py) or measured hf-cb "
                  "runs; repeatable");
  cmd->add_option("--split", f->split, "held_out, fit or all")
      ->check(CLI::IsMember({"held_out", "fit", "all"}));
  cmd->add_option("--engine-for", f->engine_for, "FAMILY=ENGINE: the engine a source family runs");
  cmd->add_option("--check", f->check, "Compare with a baseline file (exit 1 when worse)");
  cmd->add_option("--write-baseline", f->write_baseline, "Write the scores as a baseline file");
  cmd->add_option("--format", f->format, "table or rows (one line a row too)")
      ->check(CLI::IsMember({"table", "rows"}));
  cmd->add_flag("--intervals", f->intervals,
                "Also the coverage of serve's 80% intervals (TTFT, TPOT, throughput) on the rows");
  return [f, cmd]() {
    if (!f->check.empty()) {
      for (const char* flag :
           {"--data", "--split", "--engine-for", "--write-baseline", "--intervals"})
        if (cmd->count(flag) > 0)
          throw InputError(std::string(flag) + ": not with --check (the baseline names it)");
      return check(f->check, std::cout);
    }
    if (f->data.empty()) throw InputError("--data: the published serving file to score");
    std::map<std::string, std::string> engines = engine_map(f->engine_for);
    std::vector<PublishedRow> rows = read_all(f->data);  // the scores point here
    PublishedScorecard c = score_published(rows, f->split, engines);
    print_table(std::cout, c, f->format == "rows");
    if (f->intervals)
      print_serving_coverage(std::cout, serving_coverage(builtin_interval_table(), c, engines));
    if (!f->write_baseline.empty()) {
      std::ofstream out = open_output("--write-baseline", f->write_baseline);
      out << baseline_json(*f, engines, c).dump(2) << "\n";
    }
    return 0;
  };
}

}  // namespace ridgeline
