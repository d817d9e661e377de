// `ridgeline calibrate fit-collectives --data TABLE.json --cluster C --out cluster.json`: fits a
// cluster's collective-model parameters to measured nccl-tests rows (the fit split of the rows
// measured on that cluster; calibrate/fit/collective_fit.h) and writes the cluster file with the
// fitted values, each sourced "fitted: ...". Without --out it only reports.
#include "calibrate/fit/collective_fit.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "common/errors.h"

#include <chrono>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

std::string today_utc() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace

Command add_fit_collectives_command(CLI::App& calibrate, CLI::App*& sub) {
  struct Options {
    std::string data, cluster, out;
  };
  auto o = std::make_shared<Options>();
  sub = calibrate.add_subcommand(
      "fit-collectives", "Fit a cluster's collective-model parameters to nccl-tests-style rows");
  sub->add_option("--data", o->data,
                  "Measured collectives (validate/data/published-collectives.json)")
      ->required();
  sub->add_option("--cluster", o->cluster, "Cluster preset or path the rows were measured on")
      ->required();
  sub->add_option("--out", o->out, "Where to write the fitted cluster file (JSON)");
  return [o]() {
    CollectiveDataset data = load_collective_dataset(o->data);
    ClusterSpec cluster = load_cluster(o->cluster);
    CollectiveFit fit = fit_collectives(data, cluster);
    std::cout << "ridgeline calibrate fit-collectives: " << cluster.name << " from " << fit.rows
              << " fit-split rows of " << o->data << "\n"
              << std::fixed << std::setprecision(1) << "MAPE all sizes " << 100 * fit.mape_before
              << "% -> " << 100 * fit.mape_after << "%, >= 1 MB " << 100 * fit.mape_1mb_before
              << "% -> " << 100 * fit.mape_1mb_after << "%\n";
    for (const auto& p : fit.parameters)
      std::cout << "  " << std::left << std::setw(24) << p.path << std::right << std::setw(10)
                << std::setprecision(4) << p.before << " -> " << std::setw(10) << p.after << "\n";
    if (o->out.empty()) return 0;
    nlohmann::json doc =
        fitted_cluster_document(cluster_document(o->cluster), fit, o->data, today_utc());
    load_cluster_text(doc.dump(), o->out);  // what is written must load
    std::ofstream out = open_output("--out", o->out);
    out << doc.dump(2) << "\n";
    std::cout << "wrote " << o->out << "\n";
    return 0;
  };
}

}  // namespace ridgeline
