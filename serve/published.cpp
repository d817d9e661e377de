// Published serving rows: reading and scoring (see published.h).
#include "serve/published.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_load.h"
#include "serve/gpu_step_model.h"
#include "serve/parallel_step_model.h"
#include "serve/serve_run.h"
#include "serve/trtllm_bench.h"
#include "serve/workload.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace ridgeline {

namespace {

PublishedRow read_row(JsonReader& r) {
  PublishedRow p;
  p.id = r.string("id");
  p.split = r.one_of("split", {"fit", "held_out"});
  p.source_id = r.string("source_id");
  r.raw("row");  // the copied source row, kept for people
  JsonReader& in = r.child("ridgeline");
  p.gpu = in.string("gpu");
  p.model = in.string("model");
  p.precision = in.one_of("precision", {"bf16", "fp16", "fp8", "nvfp4"});
  p.engine = in.one_of("engine", {"trtllm", "vllm", "sglang", "hf-cb"});
  p.input_tokens = in.integer("input_len", 1);
  p.output_tokens = in.integer("output_len", 1);
  if (in.has("rate")) {
    in.one_of("rate", {"inf"});
    p.requests = in.integer("requests", 1);
    if (in.has("requests_note")) in.string("requests_note");
  } else {
    p.concurrency = in.integer("concurrency", 1);
  }
  if (in.has("server")) {
    if (p.concurrency == 0) in.fail("server", "applies to a closed-loop row (concurrency) only");
    JsonReader& v = in.child("server");
    v.string("source");
    PublishedServer sv;
    sv.max_num_seqs = v.integer("max_num_seqs", 1);
    sv.max_num_batched_tokens = v.optional_integer("max_num_batched_tokens", 1).value_or(0);
    sv.max_prefill_tokens = v.optional_integer("max_prefill_tokens", 1).value_or(0);
    sv.mixed_chunk = v.optional_boolean("mixed_chunk");
    v.finish();
    p.server = sv;
  }
  if (in.has("client")) {
    if (p.concurrency == 0) in.fail("client", "applies to a closed-loop row (concurrency) only");
    JsonReader& c = in.child("client");
    c.string("source");
    c.one_of("tool", {"genai-perf"});
    p.client = PublishedClient{c.integer("requests", 1), c.integer("warmup_requests", 0)};
    c.finish();
  }
  if (in.has("tp")) {
    p.tp = in.integer("tp", 1);
    p.cluster = in.string("cluster");
  }
  if (in.has("ep")) {
    if (!in.has("tp")) in.fail("ep", "needs tp (1) and cluster beside it");
    p.ep = in.integer("ep", 1);
  }
  if (in.has("pp")) {
    if (!in.has("tp")) in.fail("pp", "needs tp and cluster beside it");
    p.pp = in.integer("pp", 1);
  }
  JsonReader& m = r.child("measured");
  for (const std::string& k : m.keys()) p.measured[k] = m.positive(k);
  p.family = p.source_id.starts_with("trtllm-perf") ? "trtllm-perf" : p.source_id + "/" + p.engine;
  if (p.tp > 1) p.family += "/tp" + std::to_string(p.tp);
  if (p.pp > 1) p.family += "/pp" + std::to_string(p.pp);
  if (p.ep > 1) p.family += "/dep" + std::to_string(p.ep);
  return p;
}

struct Models {  // one step model (and its memo) per GPU, model, precision and engine
  std::map<std::string, std::unique_ptr<StepModel>> steps;
  std::map<std::string, EngineConfig> engines;
  std::map<std::string, GpuSpec> gpus;
  std::map<std::string, ModelConfig> models;
};

RowScore score_row(const PublishedRow& p, Models& m, const std::string& engine_name) {
  RowScore s{&p, {}, {}, ""};
  try {
    if (!m.engines.count(engine_name)) m.engines.emplace(engine_name, load_engine(engine_name));
    if (!m.gpus.count(p.gpu)) m.gpus.emplace(p.gpu, load_gpu(p.gpu));
    if (!m.models.count(p.model)) m.models.emplace(p.model, load_row_model(p));
    EngineConfig e = m.engines.at(engine_name);  // with the row's deployment settings
    if (p.server) {
      const PublishedServer& v = *p.server;
      e.max_num_seqs = v.max_num_seqs;
      if (v.max_num_batched_tokens > 0) e.max_num_batched_tokens = v.max_num_batched_tokens;
      if (v.max_prefill_tokens > 0)
        e.max_num_batched_tokens = std::min(e.max_num_batched_tokens, v.max_prefill_tokens);
      if (v.mixed_chunk) {
        if (e.policy != "sglang")
          throw InputError(p.id + ": server.mixed_chunk: applies to an sglang engine only (" +
                           engine_name + " runs " + e.policy + ")");
        e.sglang.mixed_chunk = *v.mixed_chunk;
      }
    }
    std::string key = p.gpu + "|" + p.model + "|" + p.precision + "|" + engine_name + "|" +
                      p.cluster + "|" + std::to_string(p.tp) + "|" + std::to_string(p.pp) + "|" +
                      std::to_string(p.ep);
    RunConfig run = engine_precisions(*parse_dtype(p.precision), e);
    const ModelConfig model = engine_model(e, m.models.at(p.model));
    if (e.limits_from_workload) {  // trtllm-bench: sized for the row's lengths
      if (!p.trace.empty() || p.concurrency > 0)
        throw InputError(p.id + ": " + e.file +
                         " sizes itself as trtllm-bench throughput does, "
                         "for an offline (rate inf) row only");
      e = with_workload_limits(e, model, m.gpus.at(p.gpu), p.tp, run, (double)p.input_tokens,
                               (double)p.output_tokens);
    }
    if (!m.steps.count(key)) {
      run.runtime = load_runtime(e.runtime);
      run.launch = e.graph_launch ? LaunchMode::Graph : LaunchMode::Eager;
      if (p.tp > 1 || p.pp > 1 || p.ep > 1) {
        ParallelConfig par;
        par.tp = p.tp;
        par.pp = p.pp;
        par.ep = p.ep;
        m.steps.emplace(key, std::make_unique<ParallelStepModel>(
                                 m.gpus.at(p.gpu), load_cluster(p.cluster), model, run, par));
      } else {
        m.steps.emplace(key, std::make_unique<GpuStepModel>(m.gpus.at(p.gpu), model, run));
      }
    }
    StepModel& step = *m.steps.at(key);
    ServeSetup setup;
    setup.engine = &e;
    setup.model = &step;
    int64_t n = p.requests;
    ServeRun result;
    if (!p.trace.empty()) {
      setup.arrivals.kind = ArrivalSpec::Kind::Trace;
      setup.lengths_from_flags = false;
      Workload w;
      w.requests = p.trace;
      w.timed = true;
      result = run_serving(std::move(w), setup, engine_kv(e, step));
    } else if (p.concurrency > 0) {
      // Published closed-loop figures are steady state: the first wave of clients (all sent at
      // t = 0, queueing behind each other's prefills) is run as warm-up and left out, unless the
      // row's client says how many requests it measured after how many warm-up ones.
      setup.arrivals = ArrivalSpec{ArrivalSpec::Kind::ClosedLoop, 0, 1, p.concurrency};
      setup.warmup_requests = p.client ? p.client->warmup_requests : p.concurrency;
      n = (p.client ? p.client->requests : std::max<int64_t>(100, 5 * p.concurrency)) +
          setup.warmup_requests;
    } else {
      setup.arrivals.kind = ArrivalSpec::Kind::AllAtOnce;
    }
    if (p.trace.empty()) {
      LengthSpec in{LengthSpec::Kind::Fixed, (double)p.input_tokens, 0};
      LengthSpec out{LengthSpec::Kind::Fixed, (double)p.output_tokens, 0};
      result = run_serving(generate_workload(in, out, n, 0), setup, engine_kv(e, step));
    }
    s.predicted["output_tokens_per_s"] = result.report.output_tokens_per_s;
    s.predicted["ttft_ms"] = result.report.ttft_ms.mean;
    s.predicted["tpot_ms"] = result.report.tpot_ms.mean;
    s.predicted["ttft_p50_ms"] = result.report.ttft_ms.p50;
    s.predicted["tpot_p50_ms"] = result.report.tpot_ms.p50;
    for (auto [k, v] : p.measured) s.error[k] = (s.predicted.at(k) - v) / v;
  } catch (const InputError& err) {
    s.failure = err.what();
  }
  return s;
}

void add_groups(PublishedScorecard& card) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> errors;
  for (const RowScore& r : card.rows) {
    if (!r.failure.empty()) continue;
    for (auto [k, e] : r.error) errors[{r.row->family, k, r.row->split}].push_back(e);
  }
  for (auto& [key, v] : errors) {
    GroupScore g{std::get<0>(key), std::get<1>(key), std::get<2>(key), (int64_t)v.size(), 0, 0, 0};
    std::vector<double> a;
    for (double e : v) {
      a.push_back(std::fabs(e));
      g.mean_signed_error += e / (double)v.size();
      g.mape += std::fabs(e) / (double)v.size();
    }
    std::sort(a.begin(), a.end());
    size_t h = a.size() / 2;
    g.median_abs_error = a.size() % 2 ? a[h] : 0.5 * (a[h - 1] + a[h]);
    card.groups.push_back(g);
  }
}

}  // namespace

std::vector<PublishedRow> read_published_serving(const std::string& path) {
  nlohmann::json doc = read_json_file(path);
  JsonReader r(doc, path);
  r.string("description");
  r.string("split_rule");
  r.raw("metric_notes");
  r.raw("sources");
  if (r.has("skipped")) r.raw("skipped");  // --multi-gpu: the rows left out and why, counted
  std::vector<PublishedRow> rows;
  for (JsonReader& row : r.array_of_objects("rows")) {
    rows.push_back(read_row(row));
    row.finish();
  }
  r.finish();
  return rows;
}

std::vector<PublishedRow> read_hf_cb_runs(const std::string& path) {
  // A measurement file carries fields the scorer does not use, so no finish(): every field read
  // is checked (type, range) and named by its JSON path.
  nlohmann::json doc = read_json_file(path);
  JsonReader top(doc, path);
  // The GPU the runs measured (meta.device_name), and the model: meta.model_config, the HF
  // config the script built (the first file, which has none, measured a Llama-3-8B shape).
  JsonReader& meta = top.child("meta");
  std::string device = meta.string("device_name"), gpu;
  if (device.find("H100") != std::string::npos) gpu = "h100-sxm";
  if (device.find("H200") != std::string::npos) gpu = "h200-sxm";
  if (gpu.empty()) meta.fail("device_name", "\"" + device + "\" has no GPU preset here");
  std::string model = "llama-3-8b", model_text, family_suffix;
  if (meta.has("model_config")) {
    model = path + "#/meta/model_config";
    model_text = meta.raw("model_config").dump();
    family_suffix = "/" + load_model_text(model_text, model).family;
  }
  std::vector<PublishedRow> rows;
  std::vector<JsonReader> records = top.array_of_objects("records");
  for (JsonReader& r : records) {
    if (!r.has("kind") || !r.raw("kind").is_string() || r.string("kind") != "cb_run" ||
        !r.has("throughput") || r.raw("throughput").is_null())
      continue;  // a run skipped on the measurement budget has no results
    PublishedRow p;
    p.id = r.string("id");
    p.split = r.one_of("split", {"holdout", "fit"}) == "holdout" ? "held_out" : "fit";
    p.source_id = path;
    p.engine = "hf-cb";
    p.family = "hf-cb-" + r.string("engine") + family_suffix;
    p.gpu = gpu;
    p.model = model;
    p.model_text = model_text;
    p.precision = "bf16";
    std::vector<JsonReader> requests = r.array_of_objects("requests");
    if (requests.empty()) r.fail("requests", "expected at least one request");
    std::vector<double> arrival_ms;
    for (JsonReader& q : requests) {
      if (!q.has("status") || !q.raw("status").is_string() || q.string("status") != "FINISHED")
        q.fail("status", "a request did not finish");
      arrival_ms.push_back(q.non_negative("arrival_ms"));
    }
    double first = *std::min_element(arrival_ms.begin(), arrival_ms.end());
    for (size_t k = 0; k < requests.size(); ++k)
      p.trace.push_back({(int64_t)k, (arrival_ms[k] - first) / 1e3,
                         (int64_t)requests[k].integer("input_tokens", 1),
                         (int64_t)requests[k].integer("output_tokens", 1)});
    std::stable_sort(p.trace.begin(), p.trace.end(),
                     [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
    for (size_t k = 0; k < p.trace.size(); ++k) p.trace[k].id = (int64_t)k;
    p.measured["output_tokens_per_s"] = r.child("throughput").positive("output_tokens_per_s");
    p.measured["ttft_p50_ms"] = r.child("ttft").positive("p50_ms");
    p.measured["tpot_p50_ms"] = r.child("tpot").positive("p50_ms");
    rows.push_back(std::move(p));
  }
  if (rows.empty()) throw InputError(path + ": no finished cb_run record");
  return rows;
}

std::vector<PublishedRow> read_serving_data(const std::string& path) {
  nlohmann::json doc = read_json_file(path);
  if (doc.is_object() && doc.contains("records")) return read_hf_cb_runs(path);
  return read_published_serving(path);
}

ModelConfig load_row_model(const PublishedRow& p) {
  return p.model_text.empty() ? load_model(p.model) : load_model_text(p.model_text, p.model);
}

std::string engine_for_row(const std::map<std::string, std::string>& engine_for,
                           const PublishedRow& p) {
  auto it = engine_for.find(p.family);
  // A family's sub-family (a TP size, a measured run's model) runs the family's engine.
  if (it == engine_for.end() && p.family.find('/') != std::string::npos)
    it = engine_for.find(p.family.substr(0, p.family.rfind('/')));
  return it != engine_for.end() ? it->second : p.engine;
}

PublishedScorecard score_published(const std::vector<PublishedRow>& rows, const std::string& split,
                                   const std::map<std::string, std::string>& engine_for) {
  PublishedScorecard card;
  Models models;
  for (const PublishedRow& p : rows) {
    if (split != "all" && p.split != split) continue;
    card.rows.push_back(score_row(p, models, engine_for_row(engine_for, p)));
    if (!card.rows.back().failure.empty()) ++card.failed;
  }
  add_groups(card);
  return card;
}

}  // namespace ridgeline
