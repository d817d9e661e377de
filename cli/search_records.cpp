// Search shard records; see search_records.h. Enums are written as their names and read back
// through the same tables the views use; every key is required.
#include "cli/search_records.h"

#include "common/errors.h"

namespace ridgeline {

namespace {

using ojson = nlohmann::ordered_json;

template <class T>
T get(const ojson& j, const char* key, const std::string& where) {
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(where + ": /" + key + ": missing or of the wrong type");
  }
}

template <size_t N>
ojson array_of(const std::array<double, N>& a) {
  ojson out = ojson::array();
  for (double x : a) out.push_back(x);
  return out;
}

template <size_t N>
std::array<double, N> array_from(const ojson& j, const char* key, const std::string& where) {
  auto v = get<std::vector<double>>(j, key, where);
  if (v.size() != N) throw InputError(where + ": /" + key + ": expected " + std::to_string(N));
  std::array<double, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = v[i];
  return out;
}

ojson memory_record(const ParallelMemory& m) {
  return {{"weights_bytes", m.weights_bytes},
          {"gradient_bytes", m.gradient_bytes},
          {"optimizer_bytes", m.optimizer_bytes},
          {"activation_bytes", m.activation_bytes},
          {"kv_cache_bytes", m.kv_cache_bytes},
          {"comm_buffer_bytes", m.comm_buffer_bytes},
          {"reserved_bytes", m.reserved_bytes},
          {"capacity_bytes", m.capacity_bytes},
          {"stage", m.stage},
          {"in_flight", m.in_flight},
          {"reason", m.reason}};
}

ParallelMemory memory_from(const ojson& j, const std::string& w) {
  ParallelMemory m;
  m.weights_bytes = get<double>(j, "weights_bytes", w);
  m.gradient_bytes = get<double>(j, "gradient_bytes", w);
  m.optimizer_bytes = get<double>(j, "optimizer_bytes", w);
  m.activation_bytes = get<double>(j, "activation_bytes", w);
  m.kv_cache_bytes = get<double>(j, "kv_cache_bytes", w);
  m.comm_buffer_bytes = get<double>(j, "comm_buffer_bytes", w);
  m.reserved_bytes = get<double>(j, "reserved_bytes", w);
  m.capacity_bytes = get<double>(j, "capacity_bytes", w);
  m.stage = get<int>(j, "stage", w);
  m.in_flight = get<int64_t>(j, "in_flight", w);
  m.reason = get<std::string>(j, "reason", w);
  return m;
}

}  // namespace

ojson strategy_row_record(const StrategyRow& row) {
  ojson j;
  j["strategy"] = strategy_text(row.parallel);
  j["gpus"] = row.parallel.gpus;
  j["global_batch"] = row.parallel.global_batch;
  j["memory"] = memory_record(row.memory);
  j["timed"] = row.timed;
  if (row.timed) {
    const ParallelPrediction& p = row.prediction;
    j["total_us"] = p.total_us;
    j["mfu"] = p.mfu;
    j["tokens_per_s"] = p.tokens_per_s;
    j["bubble_fraction"] = p.bubble_fraction;
    j["time_by_stream_us"] = array_of(p.time_by_stream_us);
    j["comm_us"] = array_of(p.comm_us);
    j["exposed_comm_us"] = array_of(p.exposed_comm_us);
    j["stage_busy_us"] = p.pipeline.stage_busy_us;
  }
  return j;
}

StrategyRow strategy_row_from(const ojson& j, const std::string& w) {
  StrategyRow row;
  row.parallel = parse_strategy(get<std::string>(j, "strategy", w), get<int64_t>(j, "gpus", w),
                                get<int64_t>(j, "global_batch", w), w + ": /strategy");
  if (!j.contains("memory") || !j["memory"].is_object())
    throw InputError(w + ": /memory: missing or of the wrong type");
  row.memory = memory_from(j["memory"], w + ": /memory");
  row.timed = get<bool>(j, "timed", w);
  if (row.timed) {
    ParallelPrediction& p = row.prediction;
    p.parallel = row.parallel;
    p.memory = row.memory;
    p.total_us = get<double>(j, "total_us", w);
    p.mfu = get<double>(j, "mfu", w);
    p.tokens_per_s = get<double>(j, "tokens_per_s", w);
    p.bubble_fraction = get<double>(j, "bubble_fraction", w);
    p.time_by_stream_us = array_from<kStreams>(j, "time_by_stream_us", w);
    p.comm_us = array_from<kCommGroups>(j, "comm_us", w);
    p.exposed_comm_us = array_from<kCommGroups>(j, "exposed_comm_us", w);
    p.pipeline.stage_busy_us = get<std::vector<double>>(j, "stage_busy_us", w);
  }
  return row;
}

ojson search_head_record(const SearchResult& r, const SearchHead& h) {
  return {{"description", h.description},
          {"top", h.top},
          {"all", h.all},
          {"model", r.model},
          {"cluster", r.cluster},
          {"gpu", r.gpu},
          {"gpus", r.space.gpus},
          {"global_batch", r.space.global_batch},
          {"candidates", r.candidates},
          {"valid", r.valid},
          {"refused", r.refused}};
}

SearchResult search_result_from(const ojson& j, SearchHead& h, const std::string& w) {
  SearchResult r;
  h.description = get<std::string>(j, "description", w);
  h.top = get<int>(j, "top", w);
  h.all = get<bool>(j, "all", w);
  r.model = get<std::string>(j, "model", w);
  r.cluster = get<std::string>(j, "cluster", w);
  r.gpu = get<std::string>(j, "gpu", w);
  r.space.gpus = get<int64_t>(j, "gpus", w);
  r.space.global_batch = get<int64_t>(j, "global_batch", w);
  r.candidates = get<int64_t>(j, "candidates", w);
  r.valid = get<int64_t>(j, "valid", w);
  r.refused = get<std::map<std::string, int64_t>>(j, "refused", w);
  return r;
}

}  // namespace ridgeline
