// Strategy search (model/strategy_search.h): the enumeration counted by hand on a small case,
// every strategy it emits passes check_parallel_config, the ranking puts the fastest first and
// names the largest difference, and --strategy texts parse (one test per error message).
#include "hardware/cluster_spec.h"
#include "model/strategy_search.h"
#include "test_helpers.h"

#include <algorithm>
#include <cmath>

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

// 6 heads (so TP 4 does not divide them), 4 layers.
ModelConfig six_heads() {
  ModelConfig m = load_model(RIDGELINE_SOURCE_DIR "/examples/models/tiny-llama.json");
  m.heads = m.kv_heads = 6;
  m.head_dim = 64;
  m.hidden = 384;
  m.layers = 4;
  return m;
}

RunConfig train_run() {
  RunConfig r;
  r.phase = Phase::Train;
  r.seq = 128;
  r.optimizer = Optimizer::AdamW;
  return r;
}

SearchSpace small_space() {
  SearchSpace s;
  s.gpus = 4;
  s.global_batch = 4;
  s.max_microbatch = 2;
  s.zero = {0, 1};
  s.recompute = {Recompute::None};
  return s;
}

const ClusterLimits node4{"node4", 4, 4};

}  // namespace

TEST_CASE("search: 4 GPUs, global batch 4 -- 34 candidates, 26 valid (hand count)", "[search]") {
  // tp 1: pp 1 (dp 4): 2 zero x 2 mb = 4, mb 2 refused (4 % 8); pp 2 (dp 2): 1f1b + vp 2 = 2
  // layouts x 2 zero x 2 mb = 8, interleaved with mb 2 refused (1 micro-batch, not a multiple of
  // pp 2); pp 4 (dp 1): zero 0 only x 2 mb = 2. tp 2: pp 1 (dp 2): 2 sp x 2 zero x 2 mb = 8;
  // pp 2 (dp 1): 2 layouts x 2 sp x 2 mb = 8. tp 4 (dp 1): 2 sp x 2 mb = 4, refused (6 heads).
  Enumeration e = enumerate_strategies(six_heads(), train_run(), small_space(), node4);
  CHECK(e.candidates == 34);
  CHECK(e.valid.size() == 26);
  CHECK(e.refused.at("--global-batch") == 4);
  CHECK(e.refused.at("--tp") == 4);
  CHECK(e.refused.size() == 2);
}

TEST_CASE("search: every emitted strategy passes check_parallel_config", "[search]") {
  SearchSpace s = small_space();
  s.gpus = 8;
  s.global_batch = 16;
  s.max_microbatch = 4;
  s.zero = {0, 1, 2, 3};
  s.recompute = {Recompute::None, Recompute::Selective, Recompute::Full};
  ClusterLimits node8{"node8", 8, 8};
  Enumeration e = enumerate_strategies(six_heads(), train_run(), s, node8);
  REQUIRE(!e.valid.empty());
  for (const auto& p : e.valid)
    CHECK_NOTHROW(check_parallel_config(p, six_heads(), strategy_run(train_run(), p), node8));
  // ZeRO > 0 is never tried with one data-parallel rank (the same strategy as ZeRO 0).
  for (const auto& p : e.valid) CHECK((p.zero == 0 || p.dp > 1));
}

TEST_CASE("search: limits cut the space on both sides", "[search]") {
  SearchSpace s = small_space();
  s.max_tp = 2;
  Enumeration e = enumerate_strategies(six_heads(), train_run(), s, node4);
  CHECK(e.refused.count("--tp") == 0);  // tp 4 not tried
  CHECK(e.candidates == 30);
  s.max_tp = 0;
  s.max_pp = 1;
  e = enumerate_strategies(six_heads(), train_run(), s, node4);
  for (const auto& p : e.valid) CHECK(p.pp == 1);
}

TEST_CASE("search: a space without a choice is an error naming the flag", "[search][errors]") {
  SearchSpace s = small_space();
  s.gpus = 0;
  require_input_error([&] { enumerate_strategies(six_heads(), train_run(), s, node4); },
                      {"--gpus", "at least 1, got 0"});
  s = small_space();
  s.max_tp = -1;
  require_input_error([&] { enumerate_strategies(six_heads(), train_run(), s, node4); },
                      {"--max-tp", "0 (no limit) or more, got -1"});
  s = small_space();
  s.gpus = 8;
  require_input_error([&] { enumerate_strategies(six_heads(), train_run(), s, node4); },
                      {"--gpus: 8 GPUs, but node4 has at most 4"});
  s = small_space();
  s.max_microbatch = 0;
  require_input_error([&] { enumerate_strategies(six_heads(), train_run(), s, node4); },
                      {"--max-microbatch", "at least 1, got 0"});
  s = small_space();
  s.recompute.clear();
  require_input_error([&] { enumerate_strategies(six_heads(), train_run(), s, node4); },
                      {"--recompute", "no recompute setting"});
  s = small_space();
  s.schedules.clear();
  require_input_error([&] { enumerate_strategies(six_heads(), train_run(), s, node4); },
                      {"--schedule", "no pipeline schedule"});
  s = small_space();
  s.sp_on = s.sp_off = false;
  require_input_error([&] { enumerate_strategies(six_heads(), train_run(), s, node4); },
                      {"--sp", "no sequence-parallel setting"});
  s = small_space();
  s.zero.clear();
  require_input_error([&] { enumerate_strategies(six_heads(), train_run(), s, node4); },
                      {"--zero", "no ZeRO stage"});
}

namespace {

StrategyRow row(double total, double compute, double bubble_fraction, double busy,
                double exposed_dp, const ParallelConfig& p) {
  StrategyRow r;
  r.timed = true;
  r.parallel = p;
  r.prediction.parallel = p;
  r.prediction.total_us = total;
  r.prediction.time_by_stream_us[(int)Stream::Compute] = compute;
  r.prediction.bubble_fraction = bubble_fraction;
  r.prediction.pipeline.stage_busy_us = {busy};
  r.prediction.exposed_comm_us[(int)CommGroup::Dp] = exposed_dp;
  return r;
}

}  // namespace

TEST_CASE("search: ranking puts the fastest first and names the largest difference", "[search]") {
  ParallelConfig a, b, c;
  a.pp = 2, b.pp = 4, c.zero = 3;
  std::vector<StrategyRow> rows = {row(130, 100, 0.2, 100, 10, b), row(100, 100, 0.0, 100, 0, a),
                                   row(120, 100, 0.0, 100, 20, c)};
  rank_strategies(rows);
  REQUIRE(rows.size() == 3);
  for (size_t i = 1; i < rows.size(); ++i)
    CHECK(rows[0].prediction.total_us <= rows[i].prediction.total_us);
  CHECK(rows[0].parallel.pp == 2);
  // zero 3 loses to pp 2 by its exposed dp communication (+20).
  CHECK(rows[1].loses_because.part == TimePart::ExposedComm);
  CHECK(rows[1].loses_because.group == CommGroup::Dp);
  CHECK(rows[1].loses_because.delta_us == Approx(20));
  CHECK(rows[1].loses_because.differs.at(0).key == "zero");
  CHECK(rows[1].behind_us == Approx(20));
  // pp 4 loses to zero 3 by its bubble (0.2 x 100 = 20 more; dp exposed 10 less).
  CHECK(rows[2].loses_because.part == TimePart::Bubble);
  CHECK(rows[2].loses_because.delta_us == Approx(20));
  CHECK(rows[2].loses_because.differs.at(0).key == "pp");
  CHECK(rows[2].loses_because.differs.at(0).slower == "4");
  CHECK(rows[2].loses_because.differs.at(0).faster == "1");
}

TEST_CASE("search: --strategy text round-trips and fills dp and the schedule", "[search]") {
  ParallelConfig p = parse_strategy("tp=8,pp=16,vp=2,zero=1,mb=2,sp=1,recompute=selective", 1024,
                                    1536, "--strategy");
  CHECK((p.tp == 8 && p.pp == 16 && p.vp == 2 && p.dp == 8 && p.zero == 1));
  CHECK(p.microbatch == 2);
  CHECK(p.sp);
  CHECK(p.recompute == Recompute::Selective);
  CHECK(p.schedule == PipelineSchedule::Interleaved);
  CHECK(p.global_batch == 1536);
  ParallelConfig q = parse_strategy(strategy_text(p), 1024, 1536, "--strategy");
  CHECK(strategy_text(q) == strategy_text(p));
}

TEST_CASE("search: --strategy errors name the flag and the item", "[search][errors]") {
  auto bad = [](const std::string& text, std::initializer_list<std::string> parts) {
    require_input_error([&] { parse_strategy(text, 64, 64, "--strategy"); }, parts);
  };
  bad("tp8", {"--strategy \"tp8\"", "\"tp8\": expected key=value"});
  bad("tp=eight", {"--strategy", "tp=eight: expected an integer"});
  bad("tq=8", {"--strategy", "unknown key \"tq\""});
  bad("sp=yes", {"--strategy", "sp=yes: expected 0, 1, on or off"});
  bad("recompute=most", {"--strategy", "recompute=most: expected none, selective or full"});
  bad("schedule=zb", {"--strategy", "schedule=zb: expected gpipe, 1f1b or interleaved"});
}

TEST_CASE("search: with predict_parallel, the top-1 is never slower and every ranked row fits",
          "[search]") {
  ClusterSpec cluster = load_cluster("dgx-h100");
  GpuSpec gpu = load_gpu(cluster.gpu);
  ModelConfig m = load_model(RIDGELINE_SOURCE_DIR "/examples/models/tiny-llama.json");
  RunConfig r = train_run();
  SearchSpace s;
  s.gpus = 8;
  s.global_batch = 16;
  s.max_microbatch = 2;
  int64_t reported = 0;
  SearchProgress progress{10, [&](int64_t done, int64_t total) {
                            reported = done;
                            CHECK(done <= total);
                          }};
  SearchResult res = search_strategies(m, r, s, cluster, gpu, progress);
  REQUIRE(!res.ranked.empty());
  CHECK(res.valid == (int64_t)(res.ranked.size() + res.not_fitting_rows.size()));
  CHECK(reported > 0);
  for (const auto& row : res.ranked) {
    CHECK(row.memory.fits());
    CHECK(std::llround(res.ranked[0].prediction.total_us) <= std::llround(row.prediction.total_us));
  }
  for (const auto& row : res.not_fitting_rows) CHECK(!row.memory.reason.empty());
}
