// RowWriter (row_output.h): a batch command's rows streamed as table, CSV, JSON or shard JSONL.
#include "cli/row_output.h"

#include "common/errors.h"

namespace ridgeline {

namespace {

using ojson = nlohmann::ordered_json;

// nlohmann's dump(2) of a value nested `depth` levels deep: each line after the first indented.
std::string indented(const ojson& j, int spaces) {
  std::string text = j.dump(2), pad(spaces, ' '), out = pad;
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

}  // namespace

void json_open(std::ostream& os, const RowDocHead& head) {
  if (!head.json_head.is_object() || head.json_head.empty())
    throw InternalError("json_open: the head must be a non-empty object");
  std::string text = head.json_head.dump(2);
  text.resize(text.size() - 2);  // drop "\n}"
  os << text << ",\n  " << ojson(head.json_key).dump() << ": [";
}

void json_row(std::ostream& os, const ojson& row, bool first) {
  os << (first ? "\n" : ",\n") << indented(row, 4);
}

void json_close(std::ostream& os, bool any_rows) {
  os << (any_rows ? "\n  ]\n}\n" : "]\n}\n");
}

RowWriter::RowWriter(std::ostream& os, std::string format, ShardSpec shard)
    : os_(os), format_(std::move(format)), shard_(shard) {}

RowForms RowWriter::forms() const {
  if (shard_.on) return {true, true, true};
  return {format_ == "table", format_ == "csv", format_ == "json"};
}

void RowWriter::begin(const RowDocHead& head) {
  if (shard_.on) {
    ojson h{{"record", "header"},          {"command", head.command},
            {"shard", shard_.text()},      {"points", head.points},
            {"inputs", head.inputs},       {"table_head", head.table_head},
            {"has_csv", head.has_csv},     {"csv_head", head.csv_head},
            {"json_head", head.json_head}, {"json_key", head.json_key}};
    os_ << h.dump() << "\n";
  } else if (format_ == "json") {
    json_open(os_, head);
  } else {
    os_ << (format_ == "csv" ? head.csv_head : head.table_head);
  }
}

void RowWriter::row(int64_t index, const RowText& r) {
  failed_ += r.ok ? 0 : 1;
  if (shard_.on) {
    ojson j{{"record", "point"}, {"shard", shard_.text()}, {"index", index}, {"ok", r.ok},
            {"table", r.table},  {"csv", r.csv},           {"json", r.json}};
    os_ << j.dump() << "\n";
  } else if (format_ == "json") {
    json_row(os_, r.json, rows_ == 0);
  } else {
    os_ << (format_ == "csv" ? r.csv : r.table);
  }
  ++rows_;
}

void RowWriter::end() {
  if (shard_.on) {
    ojson f{{"record", "footer"}, {"shard", shard_.text()}, {"points", rows_}, {"complete", true}};
    os_ << f.dump() << "\n";
  } else if (format_ == "json") {
    json_close(os_, rows_ > 0);
  }
}

}  // namespace ridgeline
