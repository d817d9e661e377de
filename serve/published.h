// Scoring the simulator against published serving measurements (validate/data/
// published-serving.json, made by scripts/select_published_serving.py from the shared
// reference): each row names its GPU, model, precision, engine, lengths and arrivals (--rate inf
// with a request count, or a closed-loop concurrency) and what was measured (total output
// tokens/s; TTFT and TPOT). A row runs through run_serving like `ridgeline serve`; the error is
// (predicted - measured) / measured; MAPE is the mean of |error| per source family and metric,
// on the held-out rows and on the fit rows apart. A row that cannot run (its model does not fit)
// is counted as failed with its reason, not scored.
// Rows with "tp" > 1 (validate/data/published-serving-tp.json) run one tensor-parallel replica on
// their "cluster" (serve/parallel_step_model.h), family <family>/tp<N>; they run the engine their
// single-GPU family is mapped to unless their own family is mapped.
// Closed-loop rows send 5 x concurrency requests (at least 100) after a first wave of
// concurrency warm-up requests and compare the simulated mean TTFT and TPOT (aiconfigurator does
// not say which statistic it printed). A row may state how its benchmark ran instead (each with
// its "source"): "server", the engine settings its deployment set over the engine preset's
// (max_num_seqs; max_num_batched_tokens, the step's token budget; max_prefill_tokens, a cap on
// it; mixed_chunk, sglang only), and "client", the benchmark client's request count and
// warm-up requests left out (tool genai-perf).
#pragma once

#include "serve/request.h"
#include "workloads/model_config.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

struct PublishedServer {  // engine settings a row's deployment set (0 / unset: the preset's)
  int64_t max_num_seqs = 0, max_num_batched_tokens = 0, max_prefill_tokens = 0;
  std::optional<bool> mixed_chunk;
};

struct PublishedClient {  // a closed-loop benchmark client: measured and warm-up requests
  int64_t requests = 0, warmup_requests = 0;
};

struct PublishedRow {
  std::string id, split, source_id, family;  // family: trtllm-perf, aiconfigurator-<engine>
  std::string gpu, model, precision, engine;
  std::string model_text;  // the model's HF config when it is not a preset or file (model names it)
  int64_t input_tokens = 0, output_tokens = 0, requests = 0, concurrency = 0;  // 0: rate inf
  int64_t tp = 1;       // GPUs of the tensor-parallel replica
  int64_t ep = 1;       // attention-data-parallel x expert-parallel ranks (TensorRT-LLM's DEP)
  int64_t pp = 1;       // pipeline stages of tp GPUs each
  std::string cluster;  // with tp > 1: the cluster preset whose links the all-reduces cross
  std::map<std::string, double> measured;  // output_tokens_per_s, ttft_ms, tpot_ms, *_p50_ms
  std::vector<Request> trace;              // a measured run's requests (arrivals, lengths)
  std::optional<PublishedServer> server;   // closed loop: the deployment's engine settings
  std::optional<PublishedClient> client;   // closed loop: the benchmark client's counts
};

struct RowScore {
  const PublishedRow* row = nullptr;
  std::map<std::string, double> predicted, error;  // error: signed fraction
  std::string failure;                             // non-empty: not scored
};

struct GroupScore {
  std::string family, metric, split;
  int64_t rows = 0;
  double mape = 0, median_abs_error = 0, mean_signed_error = 0;
};

struct PublishedScorecard {
  std::vector<RowScore> rows;
  std::vector<GroupScore> groups;
  int64_t failed = 0;
};

std::vector<PublishedRow> read_published_serving(const std::string& path);
// Runs measured with validate/measure/measure_hf_cb.py (transformers continuous batching): each
// run record becomes a row replayed as a trace (its requests' arrival times and lengths) on an
// H200 with llama-3-8b in bf16; family hf-cb-<engine> (default, cudagraph); measured: output
// tokens/s and median TTFT and TPOT. The record's own split (sha256 of its id, 30% held out) is
// kept. The file is another tool's format: only the fields used are read.
std::vector<PublishedRow> read_hf_cb_runs(const std::string& path);
// Either kind of file, told apart by its top level ("rows" or "records").
std::vector<PublishedRow> read_serving_data(const std::string& path);

// Scores the rows of `split` (the scores point into `rows`, which must outlive them) ("held_out",
// "fit" or "all"). `engine_for` maps a row's engine name and source family to the engine preset or
// file to run (the caller's choice, stated).
// The row's model: its preset or file, or the HF config a measured file carries (model_text).
ModelConfig load_row_model(const PublishedRow& p);
// The engine a row runs: engine_for's entry for its family, else for the family it belongs to
// (the part before its last '/': a TP size, a measured run's model), else the row's own.
std::string engine_for_row(const std::map<std::string, std::string>& engine_for,
                           const PublishedRow& p);
PublishedScorecard score_published(const std::vector<PublishedRow>& rows, const std::string& split,
                                   const std::map<std::string, std::string>& engine_for);

}  // namespace ridgeline
