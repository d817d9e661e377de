// `search --shard I/N` records and their merge. A shard prices the valid strategies whose index i
// (enumeration order) has i % N == I and writes JSONL in the shape of cli/row_output.h: a header
// (json_head: the search's counts and description, which every shard computes alike), one point
// a strategy with its row exactly (memory, and for a fitting one the prediction parts the views
// and the ranking read; doubles round-trip through JSON), and a footer. `ridgeline merge` checks
// the files as for sweep (cmd_merge.cpp), reads every row back in index order, ranks them
// (rank_strategies) and prints the search views: exactly the unsharded search's output.
#pragma once

#include "cli/views/search_views.h"

#include <nlohmann/json.hpp>

namespace ridgeline {

// A strategy row as a record's "json", and back (errors name `where`).
nlohmann::ordered_json strategy_row_record(const StrategyRow& row);
StrategyRow strategy_row_from(const nlohmann::ordered_json& j, const std::string& where);

// The header's json_head: what the views print besides the rows.
struct SearchHead {
  std::string description;
  int top = 10;
  bool all = false;
};
nlohmann::ordered_json search_head_record(const SearchResult& r, const SearchHead& h);
// A SearchResult without rows, and the head, from a header's json_head.
SearchResult search_result_from(const nlohmann::ordered_json& j, SearchHead& h,
                                const std::string& where);

}  // namespace ridgeline
