// Intervals of outputs made of many predictions (validate/output_intervals.h): the propagation
// rules of serving intervals (times scale by the ratio, rates by its inverse, both sides), the
// cluster step's combination (kernels and exposed collectives, nothing for hidden ones), and the
// search shard records (cli/search_records.h) that must give `merge` back every number exactly.
#include "parallel_fixture.h"
#include "test_helpers.h"

#include "cli/search_records.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "validate/output_intervals.h"
#include "workloads/model_config.h"

using namespace ridgeline;
using ridgeline::test::dgx;
using ridgeline::test::dgx_gpu;
using ridgeline::test::strategy;
using ridgeline::test::tiny;
using ridgeline::test::train_run;

TEST_CASE("serving intervals: a time scales by the ratio, both sides", "[intervals][serve]") {
  ValueRange v = propagate_time(10.0, {0.9, 1.2});
  CHECK(v.p10 == Approx(9.0));
  CHECK(v.p90 == Approx(12.0));
  ValueRange one = propagate_time(10.0, {1.0, 1.0});
  CHECK(one.p10 == 10.0);
  CHECK(one.p90 == 10.0);
}

TEST_CASE("serving intervals: a rate scales by the inverse ratio, bounds swapped",
          "[intervals][serve]") {
  ValueRange v = propagate_rate(120.0, {0.8, 1.2});
  CHECK(v.p10 == Approx(100.0));  // steps 1.2x as long: 1/1.2 of the rate
  CHECK(v.p90 == Approx(150.0));  // steps 0.8x as long
  CHECK_THROWS_AS(propagate_rate(1.0, {0.0, 1.0}), InternalError);
}

TEST_CASE("serving intervals: the envelope takes the wider side of each", "[intervals][serve]") {
  RatioRange e = envelope({0.9, 1.05}, {0.95, 1.3});
  CHECK(e.low == 0.9);
  CHECK(e.high == 1.3);
  RatioRange r = ratio_range(PredictionInterval{9, 12, "", "", "", 1}, 10);
  CHECK(r.low == Approx(0.9));
  CHECK(r.high == Approx(1.2));
  RatioRange none = ratio_range(PredictionInterval{9, 12, "", "", "", 1}, 0);
  CHECK(none.low == 1);
  CHECK(none.high == 1);
}

TEST_CASE("serving intervals: prefill and decode steps each bracket their prediction",
          "[intervals][serve]") {
  ServingIntervals s = serving_intervals(builtin_interval_table(), test::h100(),
                                         load_model("llama-3-8b"), RunConfig{}, 512, 16, 640);
  CHECK(s.prefill_ratio.low < s.prefill_ratio.high);
  CHECK(s.decode_ratio.low < s.decode_ratio.high);
  CHECK(s.any_ratio.low == std::min(s.prefill_ratio.low, s.decode_ratio.low));
  CHECK(s.prefill_us > s.decode_us / 16);
  CHECK(s.basis.find("queue") != std::string::npos);
}

TEST_CASE("cluster interval: one GPU's step has no collective part", "[intervals][parallel]") {
  ParallelConfig p = strategy(1, 1, 1, 8);
  ParallelPrediction pr = predict_parallel(tiny(), train_run(), p, dgx(), dgx_gpu());
  PredictionInterval i = kernel_cluster_interval(builtin_interval_table(), dgx_gpu(), dgx(), tiny(),
                                                 train_run(), p, pr);
  CHECK(i.p10_us < pr.total_us);
  CHECK(i.p90_us > pr.total_us);
  CHECK(i.category == "cluster step combined");
  CHECK(i.basis.find("collectives") == std::string::npos);
  CHECK(i.calibration == "own");
}

TEST_CASE("cluster interval: exposed collectives join the combination", "[intervals][parallel]") {
  ParallelConfig p = strategy(2, 1, 4, 8);
  ParallelPrediction pr = predict_parallel(tiny(), train_run(), p, dgx(), dgx_gpu());
  double exposed = 0;
  for (double e : pr.exposed_comm_us) exposed += e;
  REQUIRE(exposed > 0);
  PredictionInterval i = kernel_cluster_interval(builtin_interval_table(), dgx_gpu(), dgx(), tiny(),
                                                 train_run(), p, pr);
  CHECK(i.p10_us < pr.total_us);
  CHECK(i.p90_us > pr.total_us);
  CHECK(i.basis.find("and the exposed collectives") != std::string::npos);
  CHECK(i.calibration == "own+none");
}

TEST_CASE("search records: a fitting row comes back with every number exact", "[search][shard]") {
  ParallelConfig p = strategy(2, 2, 2, 8);
  p.sp = true, p.zero = 1, p.schedule = PipelineSchedule::OneFOneB;
  StrategyRow row = price_strategy(tiny(), train_run(), p, dgx(), dgx_gpu());
  REQUIRE(row.timed);
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(strategy_row_record(row).dump());
  StrategyRow back = strategy_row_from(j, "t");
  CHECK(strategy_text(back.parallel) == strategy_text(row.parallel));
  CHECK(back.parallel.gpus == 8);
  CHECK(back.prediction.total_us == row.prediction.total_us);
  CHECK(back.prediction.mfu == row.prediction.mfu);
  CHECK(back.prediction.exposed_comm_us == row.prediction.exposed_comm_us);
  CHECK(back.prediction.time_by_stream_us == row.prediction.time_by_stream_us);
  CHECK(back.prediction.pipeline.stage_busy_us == row.prediction.pipeline.stage_busy_us);
  CHECK(back.memory.total() == row.memory.total());
  CHECK(part_us(back.prediction, TimePart::Bubble, CommGroup::None) ==
        part_us(row.prediction, TimePart::Bubble, CommGroup::None));
}

TEST_CASE("search records: a missing key names the record and key", "[search][shard]") {
  StrategyRow row = price_strategy(tiny(), train_run(), strategy(1, 1, 8, 8), dgx(), dgx_gpu());
  nlohmann::ordered_json j = strategy_row_record(row);
  j.erase("timed");
  test::require_input_error([&] { strategy_row_from(j, "s.jsonl:2"); },
                            {"s.jsonl:2: /timed: missing or of the wrong type"});
}
