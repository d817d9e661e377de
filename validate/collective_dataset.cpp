// Loading and scoring measured collectives; see collective_dataset.h.
#include "validate/collective_dataset.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "model/collective_cost.h"

#include <cmath>
#include <cstdio>

namespace ridgeline {

uint64_t fnv1a64(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

namespace {

CollectiveMeasurement read_row(JsonReader& r) {
  CollectiveMeasurement m;
  m.id = r.string("id");
  m.split = r.one_of("split", {"fit", "holdout"});
  // The split is the hash of the published row's own fields; a row whose split or id disagrees
  // with it was edited (or moved between splits) after the fact.
  uint64_t h = fnv1a64(r.string("split_key"));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
  if (m.id != hex)
    r.fail("id", "is not the FNV-1a 64 hash of split_key (" + std::string(hex) + ")");
  if (m.split != (h % 5 == 0 ? "holdout" : "fit"))
    r.fail("split", "disagrees with the hash of split_key (held out when hash % 5 == 0)");
  m.cluster = r.string("cluster");
  m.gpu = r.string("gpu");
  m.op.kind = *collective_kinds().parse(r.one_of("collective", collective_kinds().names()));
  m.op.ranks = (int)r.integer("gpus", 1);
  int nodes = (int)r.integer("nodes", 1);
  if (m.op.ranks % nodes != 0) r.fail("nodes", "does not divide gpus");
  m.op.ranks_per_node = m.op.ranks / nodes;
  m.op.bytes = r.positive("message_bytes");
  m.measured_us = r.positive("time_us");
  m.nccl_version = r.string("nccl_version");
  m.source = r.string("source");
  r.string("dtype");
  r.string("tool");
  r.string("system");
  r.finish();
  return m;
}

void add(MapeCell& c, double error) {
  c.mape = (c.mape * c.n + std::fabs(error)) / (c.n + 1);
  ++c.n;
}

void add_row(CollectiveScoreRow& row, const CollectiveMeasurement& m, double error) {
  bool big = m.op.bytes >= 1e6;
  if (m.split == "fit") {
    add(row.fit_all, error);
    if (big) add(row.fit_1mb, error);
  } else {
    add(row.holdout_all, error);
    if (big) add(row.holdout_1mb, error);
  }
}

}  // namespace

CollectiveDataset load_collective_dataset(const std::string& path) {
  nlohmann::json doc = read_json_file(path);
  if (!doc.is_object()) throw InputError(located(path, "/: expected an object"));
  JsonReader r(doc, path);
  r.raw("meta");
  CollectiveDataset d;
  d.file = path;
  for (auto& row : r.array_of_objects("rows")) d.rows.push_back(read_row(row));
  r.finish();
  if (d.rows.empty()) r.fail("rows", "no rows");
  return d;
}

double collective_error(const CollectiveMeasurement& m, const ClusterSpec& cluster) {
  return collective_cost(m.op, cluster).time_us / m.measured_us - 1;
}

CollectiveScorecard score_collectives(const CollectiveDataset& data,
                                      std::map<std::string, ClusterSpec> clusters) {
  std::map<std::string, CollectiveScoreRow> by_category, by_collective, by_gpu;
  CollectiveScoreRow all{"all", {}, {}, {}, {}};
  for (const auto& m : data.rows) {
    auto it = clusters.find(m.cluster);
    if (it == clusters.end()) it = clusters.emplace(m.cluster, load_cluster(m.cluster)).first;
    double e = collective_error(m, it->second);
    std::string cat =
        m.gpu + "/" + collective_kind_name(m.op.kind) + "/" + std::to_string(m.op.ranks);
    by_category[cat].category = cat;
    add_row(by_category[cat], m, e);
    std::string coll = m.gpu + "/" + collective_kind_name(m.op.kind);
    by_collective[coll].category = coll;
    add_row(by_collective[coll], m, e);
    by_gpu[m.gpu].category = m.gpu;
    add_row(by_gpu[m.gpu], m, e);
    add_row(all, m, e);
  }
  CollectiveScorecard sc;
  sc.file = data.file;
  for (auto& [k, v] : by_category) sc.rows.push_back(v);
  for (auto& [k, v] : by_collective) sc.rows.push_back(v);
  for (auto& [k, v] : by_gpu) sc.rows.push_back(v);
  sc.rows.push_back(all);
  return sc;
}

}  // namespace ridgeline
