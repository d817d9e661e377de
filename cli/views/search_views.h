// Views of a strategy search (`ridgeline search`) and of strategies side by side (`ridgeline
// compare`): table, JSON and CSV, each from the same finished SearchResult or predictions.
// The table lists the top K with, for each after the first, how far behind the row above it is
// and why (the largest difference of their parts); JSON and CSV hold the same numbers, and with
// --all the strategies that do not fit, each with its memory and reason.
#pragma once

#include "cli/views/view_set.h"
#include "model/strategy_search.h"

#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

struct SearchReport {
  const SearchResult& result;
  std::string description;  // model, run and cluster in words
  int top = 10;
  bool all = false;  // also list the strategies that do not fit
};

// compare: a row faster than #1 has a negative behind_us, and its loses_because says why #1
// loses to it.
struct CompareReport {
  std::string description;
  std::vector<std::string> texts;  // each --strategy as given
  std::vector<StrategyRow> rows;   // in the order given; timed when they fit
};

const ViewSet<SearchReport>& search_views();
const ViewSet<CompareReport>& compare_views();

// "bubble +812.0 us (pp 32 vs 16, vp 1 vs 3)": a loss reason as the table and CSV spell it.
std::string loss_text(const LossReason& r);

}  // namespace ridgeline
