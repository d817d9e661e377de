// Search shard records; see search_records.h. Each key is listed once, in a field table that a
// writer and a reader both walk (the prediction's timed fields are the JSON view's table,
// cli/views/strategy_fields.h). Enums are written as their names and read back through the same
// tables the views use; every key is required.
#include "cli/search_records.h"

#include "cli/views/strategy_fields.h"
#include "common/errors.h"

#include <utility>

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
std::array<double, N> array_from(const ojson& j, const char* key, const std::string& where) {
  auto v = get<std::vector<double>>(j, key, where);
  if (v.size() != N) throw InputError(where + ": /" + key + ": expected " + std::to_string(N));
  std::array<double, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = v[i];
  return out;
}

// The field tables: each key once, for the writer and the reader below (M, R, H const to write).
using PM = ParallelMemory;
constexpr std::pair<const char*, double PM::*> kMemoryBytes[] = {
    {"weights_bytes", &PM::weights_bytes},     {"gradient_bytes", &PM::gradient_bytes},
    {"optimizer_bytes", &PM::optimizer_bytes}, {"activation_bytes", &PM::activation_bytes},
    {"kv_cache_bytes", &PM::kv_cache_bytes},   {"comm_buffer_bytes", &PM::comm_buffer_bytes},
    {"reserved_bytes", &PM::reserved_bytes},   {"capacity_bytes", &PM::capacity_bytes}};

template <class M, class V>
void memory_fields(M& m, V& v) {
  for (const auto& [key, field] : kMemoryBytes) v(key, m.*field);
  v("stage", m.stage);
  v("in_flight", m.in_flight);
  v("reason", m.reason);
}

template <class R, class V>
void row_fields(R& row, V& v) {
  v.strategy(row.parallel);  // "strategy" (its text), "gpus", "global_batch"
  v.memory("memory", row.memory);
  v("timed", row.timed);
  if (row.timed) {
    prediction_fields(row.prediction, v);
    v("stage_busy_us", row.prediction.pipeline.stage_busy_us);
  }
}

template <class R, class H, class V>
void head_fields(R& r, H& h, V& v) {
  v("description", h.description);
  v("top", h.top);
  v("all", h.all);
  v("model", r.model);
  v("cluster", r.cluster);
  v("gpu", r.gpu);
  v("gpus", r.space.gpus);
  v("global_batch", r.space.global_batch);
  v("candidates", r.candidates);
  v("valid", r.valid);
  v("refused", r.refused);
}

struct Writer {
  ojson& j;
  template <class T>
  void operator()(const char* key, const T& x) {
    j[key] = x;
  }
  template <class A>
  void streams(const char* key, const A& a) {
    j[key] = a;
  }
  template <class A>
  void groups(const char* key, const A& a) {
    j[key] = a;
  }
  void strategy(const ParallelConfig& p) {
    j["strategy"] = strategy_text(p);
    j["gpus"] = p.gpus;
    j["global_batch"] = p.global_batch;
  }
  void memory(const char* key, const ParallelMemory& m) {
    ojson out;
    Writer w{out};
    memory_fields(m, w);
    j[key] = out;
  }
};

struct Reader {
  const ojson& j;
  const std::string& w;
  template <class T>
  void operator()(const char* key, T& x) {
    x = get<T>(j, key, w);
  }
  template <size_t N>
  void streams(const char* key, std::array<double, N>& a) {
    a = array_from<N>(j, key, w);
  }
  template <size_t N>
  void groups(const char* key, std::array<double, N>& a) {
    a = array_from<N>(j, key, w);
  }
  void strategy(ParallelConfig& p) {
    std::string text = get<std::string>(j, "strategy", w);
    int64_t gpus = get<int64_t>(j, "gpus", w), global_batch = get<int64_t>(j, "global_batch", w);
    p = parse_strategy(text, gpus, global_batch, w + ": /strategy");
  }
  void memory(const char* key, ParallelMemory& m) {
    if (!j.contains(key) || !j[key].is_object())
      throw InputError(w + ": /" + key + ": missing or of the wrong type");
    std::string where = w + ": /" + key;
    Reader r{j[key], where};
    memory_fields(m, r);
  }
};

}  // namespace

ojson strategy_row_record(const StrategyRow& row) {
  ojson j;
  Writer w{j};
  row_fields(row, w);
  return j;
}

StrategyRow strategy_row_from(const ojson& j, const std::string& w) {
  StrategyRow row;
  Reader r{j, w};
  row_fields(row, r);
  if (row.timed) {
    row.prediction.parallel = row.parallel;
    row.prediction.memory = row.memory;
  }
  return row;
}

ojson search_head_record(const SearchResult& r, const SearchHead& h) {
  ojson j;
  Writer w{j};
  head_fields(r, h, w);
  return j;
}

SearchResult search_result_from(const ojson& j, SearchHead& h, const std::string& w) {
  SearchResult r;
  Reader reader{j, w};
  head_fields(r, h, reader);
  return r;
}

}  // namespace ridgeline
