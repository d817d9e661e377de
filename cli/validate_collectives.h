// `ridgeline validate --collectives FILE [--cluster FILE ...]` and the check of a collective
// baseline (`ridgeline validate --check validate/collective_baseline.json`): wired here so that
// cmd_validate.cpp stays about kernels and workloads.
#pragma once

#include <string>
#include <vector>

namespace ridgeline {

// Scores FILE's rows on their clusters (each --cluster file stands in for the preset of its
// name) and prints the scorecard in `format`.
int run_collective_validate(const std::string& file, const std::vector<std::string>& clusters,
                            const std::string& format);
// Whether the baseline at `path` is a collective one (it names a "collective_dataset").
bool is_collective_baseline(const std::string& path);
// Every recorded category must score no worse; exit status 1 when any did.
int run_collective_check(const std::string& path);

}  // namespace ridgeline
