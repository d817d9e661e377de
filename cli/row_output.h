// Streaming output of a batch command whose rows are independent (sweep points, capacity rows):
// a head, the rows in index order, an end, written as they come so a 10^6-point sweep never holds
// its rows. The views render each row as text (table, CSV) or a JSON object; RowWriter lays them
// out as the unsharded command always printed them (JSON: the head object with the rows as its
// last key, byte-identical to nlohmann's dump(2) of the whole document), or, for a shard, as JSONL
// records that `ridgeline merge` turns back into exactly that output:
//   {"record":"header","command":"sweep","shard":"1/4","points":12,"inputs":"...",
//    "table_head":"...","csv_head":"...","json_head":{...},"json_key":"points"}
//   {"record":"point","shard":"1/4","index":1,"ok":true,"table":"...","csv":"...","json":{...}}
//   {"record":"footer","shard":"1/4","points":3,"complete":true}
// A shard without its footer (a killed run) is incomplete, and merge refuses it.
#pragma once

#include "cli/batch_run.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>
#include <string>

namespace ridgeline {

struct RowDocHead {
  std::string command;     // "sweep"
  std::string inputs;      // run_inputs_text(): shards of one run agree on it
  int64_t points = 0;      // rows of the whole (unsharded) run
  std::string table_head;  // text before the first table row
  std::string csv_head;    // text before the first CSV row ("" when there is no CSV view)
  nlohmann::ordered_json json_head = nlohmann::ordered_json::object();
  std::string json_key;  // the rows' key, placed last in the JSON document
  bool has_csv = true;
};

struct RowText {
  bool ok = true;  // false: a failed point (counted, exit 1)
  std::string table, csv;
  nlohmann::ordered_json json;
};

// Which of RowText's forms a format needs ("jsonl": all).
struct RowForms {
  bool table = false, csv = false, json = false;
};

class RowWriter {
 public:
  // format: table, json or csv; with shard.on the output is JSONL whatever the format.
  RowWriter(std::ostream& os, std::string format, ShardSpec shard);
  RowForms forms() const;
  void begin(const RowDocHead& head);
  void row(int64_t index, const RowText& r);
  void end();  // the JSON close, or a shard's footer
  int64_t rows() const { return rows_; }
  int64_t failed() const { return failed_; }

 private:
  std::ostream& os_;
  std::string format_;
  ShardSpec shard_;
  int64_t rows_ = 0, failed_ = 0;
};

// Writes `head`'s JSON object without its closing brace, opening the rows' array; json_row and
// json_close finish it (shared with merge).
void json_open(std::ostream& os, const RowDocHead& head);
void json_row(std::ostream& os, const nlohmann::ordered_json& row, bool first);
void json_close(std::ostream& os, bool any_rows);

}  // namespace ridgeline
