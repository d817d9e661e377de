// `ridgeline merge a.jsonl b.jsonl ... [--format table|json|csv] [--out FILE]`: the shards of a
// `sweep` or `capacity` run (`--shard I/N`, cli/row_output.h) combined into exactly the output the
// unsharded command prints. Pass 1 checks every file on its own and against the others before a
// byte is written: a header first; one command, one N, the same inputs and heads in all; each
// shard I/N exactly once and all N present; in each file the points of its shard only, in order,
// none missing or repeated, and the footer that marks it complete (a killed run has none). Every
// error names the file and line. Pass 2 streams the rows back in index order (point i is in shard
// i % N), so merging holds one row a shard, not the run.
#include "cli/batch_run.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/row_output.h"
#include "common/errors.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <map>
#include <memory>

namespace ridgeline {

namespace {

using ojson = nlohmann::ordered_json;

struct ShardFile {
  std::string path;
  ShardSpec shard;
  RowDocHead head;
};

// Reads one JSONL record; errors name the file and line.
class RecordReader {
 public:
  explicit RecordReader(const std::string& path) : path_(path), in_(path) {
    if (!in_) throw InputError(path + ": cannot read file");
  }
  bool next(ojson& j) {
    std::string line;
    if (!std::getline(in_, line)) return false;
    ++line_;
    try {
      j = ojson::parse(line);
    } catch (const nlohmann::json::exception&) {
      throw error("not a JSON record (is this a --shard output?)");
    }
    if (!j.is_object() || !j.contains("record") || !j["record"].is_string())
      throw error("not a shard record (no \"record\" key)");
    return true;
  }
  InputError error(const std::string& what) const {
    return InputError(path_ + ":" + std::to_string(line_) + ": " + what);
  }

 private:
  std::string path_;
  std::ifstream in_;
  int64_t line_ = 0;
};

template <class T>
T field(const RecordReader& r, const ojson& j, const char* key) {
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw r.error(std::string("/") + key + ": missing or of the wrong type");
  }
}

RowDocHead head_of(const RecordReader& r, const ojson& j, ShardSpec& shard) {
  if (field<std::string>(r, j, "record") != "header")
    throw r.error("expected the shard's header record first");
  try {
    shard = parse_shard("/shard", field<std::string>(r, j, "shard"));
  } catch (const InputError& e) {
    throw r.error(e.what());
  }
  RowDocHead h;
  h.command = field<std::string>(r, j, "command");
  h.inputs = field<std::string>(r, j, "inputs");
  h.points = field<int64_t>(r, j, "points");
  h.table_head = field<std::string>(r, j, "table_head");
  h.has_csv = field<bool>(r, j, "has_csv");
  h.csv_head = field<std::string>(r, j, "csv_head");
  h.json_head = j.at("json_head");
  h.json_key = field<std::string>(r, j, "json_key");
  return h;
}

// Pass 1 over one file: its header, then its shard's points in order, then its footer.
ShardFile check_file(const std::string& path) {
  RecordReader r(path);
  ojson j;
  ShardFile f{path, {}, {}};
  if (!r.next(j)) throw InputError(path + ": empty (no shard header)");
  f.head = head_of(r, j, f.shard);
  int64_t expect = f.shard.index;
  bool footer = false;
  while (r.next(j)) {
    std::string kind = field<std::string>(r, j, "record");
    if (footer) throw r.error("a record after the footer");
    if (kind == "footer") {
      footer = true;
      if (field<int64_t>(r, j, "points") != (expect - f.shard.index) / f.shard.count)
        throw r.error("footer's point count differs from the points before it");
      continue;
    }
    if (kind != "point") throw r.error("unknown record \"" + kind + "\"");
    if (field<std::string>(r, j, "shard") != f.shard.text())
      throw r.error("a point of shard " + j["shard"].get<std::string>() + " in shard " +
                    f.shard.text() + "'s file");
    int64_t index = field<int64_t>(r, j, "index");
    if (index < 0 || index >= f.head.points)
      throw r.error("point " + std::to_string(index) + " outside the run's " +
                    std::to_string(f.head.points) + " points");
    if (index < expect)
      throw r.error("point " + std::to_string(index) + " again or out of order (duplicate point)");
    if (index > expect) throw r.error("point " + std::to_string(expect) + " missing");
    expect += f.shard.count;
  }
  if (!footer)
    throw InputError(path + ": no footer record: the shard is incomplete (interrupted run?)");
  if (expect < f.head.points)
    throw InputError(path + ": point " + std::to_string(expect) + " missing");
  return f;
}

// Every file against the first: one run, each shard once, none missing.
void check_together(const std::vector<ShardFile>& files) {
  const ShardFile& a = files[0];
  std::map<int64_t, std::string> seen;
  for (const ShardFile& f : files) {
    auto differs = [&](const std::string& what) {
      return InputError(f.path + ": " + what + " differs from " + a.path + "'s (not one run)");
    };
    if (f.head.command != a.head.command)
      throw InputError(f.path + ": a `" + f.head.command + "` shard, " + a.path + " is a `" +
                       a.head.command + "` shard (mixed commands)");
    if (f.shard.count != a.shard.count) throw differs("shard count " + f.shard.text());
    if (f.head.inputs != a.head.inputs) throw differs("the command's inputs");
    if (f.head.points != a.head.points || f.head.table_head != a.head.table_head ||
        f.head.csv_head != a.head.csv_head || f.head.json_head != a.head.json_head ||
        f.head.json_key != a.head.json_key)
      throw differs("the header (GPU, model or profile)");
    auto [it, fresh] = seen.emplace(f.shard.index, f.path);
    if (!fresh)
      throw InputError(f.path + ": shard " + f.shard.text() + " again (also " + it->second + ")");
  }
  for (int64_t i = 0; i < a.shard.count; ++i)
    if (!seen.count(i))
      throw InputError("merge: shard " + std::to_string(i) + "/" + std::to_string(a.shard.count) +
                       " missing (no file given holds it)");
}

int merge(const std::vector<std::string>& paths, const std::string& format,
          const std::string& out_path) {
  std::vector<ShardFile> files;
  for (const auto& p : paths) files.push_back(check_file(p));
  check_together(files);
  const RowDocHead& head = files[0].head;
  if (format == "csv" && !head.has_csv)
    throw InputError("--format csv: `" + head.command +
                     "` has no CSV output; choose table or json");
  std::vector<std::unique_ptr<RecordReader>> readers((size_t)files[0].shard.count);
  ojson j;
  for (const ShardFile& f : files) {
    readers[(size_t)f.shard.index] = std::make_unique<RecordReader>(f.path);
    readers[(size_t)f.shard.index]->next(j);  // the header
  }
  OutputFile out("--out", out_path);
  RowWriter writer(out.stream(), format, ShardSpec{});
  writer.begin(head);
  for (int64_t i = 0; i < head.points; ++i) {
    RecordReader& r = *readers[(size_t)(i % files[0].shard.count)];
    r.next(j);
    RowText t;
    t.ok = j["ok"].get<bool>();
    t.table = j["table"].get<std::string>(), t.csv = j["csv"].get<std::string>();
    t.json = j["json"];
    writer.row(i, t);
  }
  writer.end();
  out.commit();
  if (writer.failed() > 0) {
    std::cerr << "ridgeline " << head.command << ": " << writer.failed() << " of " << writer.rows()
              << " points failed\n";
    return 1;
  }
  return 0;
}

}  // namespace

Command add_merge_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> files;
    std::string format = "table", out;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("merge", "Combine the --shard I/N outputs of sweep or capacity into one");
  cmd->add_option("files", o->files, "Shard files (JSONL), one for each shard, any order")
      ->required();
  cmd->add_option("--format", o->format, "table (default), json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_option("--out", o->out, "Write the output to FILE (renamed into place when complete)");
  return [o]() { return merge(o->files, o->format, o->out); };
}

}  // namespace ridgeline
