// Properties of strategies on clusters (`ridgeline predict --cluster`, what `search` ranks):
// random models, strategies (tp, pp, dp, cp, ep, sp, ZeRO, recompute, schedule) that pass
// check_parallel_config on each cluster preset, for training, prefill and decode. Every
// prediction is finite and positive with consistent parts; a faster GPU or faster links never
// slow it; a larger global batch or longer sequence never speeds it up; memory per GPU grows
// with the micro-batch and the sequence.
#include "generators.h"

#include "model/parallel_predict.h"
#include "workloads/sharding.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

using namespace ridgeline;
using namespace ridgeline::prop;

namespace {

constexpr double kRel = 1e-9;

struct Case {
  ModelConfig model;
  RunConfig run;
  ParallelConfig par;
  std::string cluster;
};

// A model small enough to price quickly, and a strategy that passes on a random cluster.
bool random_case(Property& p, Case& c) {
  c.model = p.coin(0.7) ? small_model(p, p.coin(0.3)) : random_model(p, true, true);
  c.cluster = p.pick(cluster_names());
  Phase phase = (Phase)p.uniform(0, 2);
  return random_strategy(p, c.model, cluster(c.cluster), phase, c.run, c.par);
}

std::string describe(const Case& c) {
  std::ostringstream s;
  const ParallelConfig& q = c.par;
  s << c.model.name << " (h " << c.model.hidden << ", layers " << c.model.layers << ", experts "
    << c.model.moe.experts << ") " << phase_name(c.run.phase) << " seq " << c.run.seq << " kv "
    << c.run.kv_len << " on " << c.cluster << ": gpus " << q.gpus << " tp " << q.tp << " pp "
    << q.pp << " dp " << q.dp << " cp " << q.cp << " ep " << q.ep << (q.sp ? " sp" : "") << " zero "
    << q.zero << " mb " << q.microbatch << " gb " << q.global_batch << " "
    << schedule_name(q.schedule) << " recompute " << recompute_name(q.recompute);
  return s.str();
}

ParallelPrediction predict(const Case& c, const GpuSpec& g, const ClusterSpec& cl) {
  return predict_parallel(c.model, c.run, c.par, cl, g);
}

ParallelPrediction predict(const Case& c) {
  return predict(c, cluster_gpu(c.cluster), cluster(c.cluster));
}

}  // namespace

TEST_CASE("property: every strategy's prediction is finite, positive and consistent",
          "[property]") {
  Property p("strategy finite, positive; stages; streams <= total; memory parts", 100);
  for (int i = 0; i < p.cases(); ++i) {
    Case c;
    if (!random_case(p, c)) {
      p.exempt("no valid strategy drawn");
      continue;
    }
    ParallelPrediction r = predict(c);
    INFO("case " << i << ": " << describe(c));
    REQUIRE(std::isfinite(r.total_us));
    REQUIRE(r.total_us > 0);
    REQUIRE(r.tokens_per_s > 0);
    REQUIRE((r.mfu > 0 && r.mfu <= 1));
    // Megatron's bubble fraction is wait over work: (p - 1) / m for GPipe, above 1 when m < p - 1.
    REQUIRE((std::isfinite(r.bubble_fraction) && r.bubble_fraction >= 0));
    REQUIRE((int64_t)r.stages.size() == c.par.pp);
    for (const StageTime& s : r.stages)
      REQUIRE((s.forward_us > 0 && std::isfinite(s.backward_us) && s.backward_us >= 0));
    for (int g = 0; g < kCommGroups; ++g) {
      REQUIRE((std::isfinite(r.comm_us[g]) && r.comm_us[g] >= 0));
      REQUIRE(r.exposed_comm_us[g] >= 0);
    }
    for (double t : r.time_by_stream_us) REQUIRE((std::isfinite(t) && t >= 0));
    REQUIRE(r.time_by_stream_us[(int)Stream::Compute] <= r.total_us * (1 + kRel));
    const ParallelMemory& m = r.memory;
    for (double b : {m.weights_bytes, m.gradient_bytes, m.optimizer_bytes, m.activation_bytes,
                     m.kv_cache_bytes, m.comm_buffer_bytes, m.reserved_bytes})
      REQUIRE((std::isfinite(b) && b >= 0));
    REQUIRE(m.weights_bytes > 0);
    REQUIRE(m.fits() == m.reason.empty());
  }
}

// OPEN FINDING (reported, not fixed): the pipeline group's exposed time exceeds its
// communication time whenever pp > 1. comm_us[pp] counts one GPU's own sends (m x V x send, x2 in
// training) while exposed_comm_us[pp] is pipeline_end - no_send_end, the delay of the whole step,
// to which the sends of every stage on the critical path add: (pp - 1) sends in inference, so
// exposed = 3 x comm at pp 4 (seed 20261201, case 48: an 8-layer h=4096 model decoding on
// dgx-a100 with pp 4: comm 13.81 us, exposed 41.44 us). The contract says exposed is "the part of
// it nothing hides"; which side to change is the parallel model owner's call. Tagged
// [!mayfail]: it prints its failures without failing the suite.
TEST_CASE("property: exposed comm <= comm per group; comm stream <= total",
          "[property][!mayfail]") {
  Property p("exposed comm <= comm per group (open finding: pp group when pp > 1)", 100);
  for (int i = 0; i < p.cases(); ++i) {
    Case c;
    if (!random_case(p, c)) continue;
    ParallelPrediction r = predict(c);
    for (int g = 0; g < kCommGroups; ++g) {
      INFO("case " << i << ": " << describe(c) << "; group " << g << ": comm " << r.comm_us[g]
                   << " exposed " << r.exposed_comm_us[g] << " us");
      CHECK(r.exposed_comm_us[g] <= r.comm_us[g] * (1 + kRel) + 1e-9);
    }
    // The comm stream's busy time sums every group's collectives; where they run at once (on
    // their own communicators) the sum can outgrow the iteration (seed 1, case 32).
    INFO("case " << i << ": " << describe(c) << "; streams " << r.time_by_stream_us[0] << " "
                 << r.time_by_stream_us[1] << " " << r.time_by_stream_us[2] << " total "
                 << r.total_us);
    CHECK(r.time_by_stream_us[(int)Stream::Comm] <= r.total_us * (1 + kRel));
  }
}

TEST_CASE("property: a faster GPU or faster links never make a strategy slower", "[property]") {
  Property p("faster HBM/clock/peak or NVLink/network never slows a strategy", 100);
  for (int i = 0; i < p.cases(); ++i) {
    Case c;
    if (!random_case(p, c)) continue;
    const GpuSpec& g = cluster_gpu(c.cluster);
    const ClusterSpec& cl = cluster(c.cluster);
    double factor = p.real(1.01, 3);
    int what = (int)p.uniform(0, 4);
    std::vector<Knob> gpu_knobs = {Knob::Hbm, Knob::Clock, Knob::Peak};
    ParallelPrediction a = predict(c, g, cl);
    ParallelPrediction b =
        what < 3
            ? predict(c, faster(g, gpu_knobs[what], factor), cl)
            : predict(c, g, faster(cl, what == 3 ? LinkKnob::ScaleUp : LinkKnob::ScaleOut, factor));
    const char* names[] = {"HBM", "clock", "peak", "scale-up links", "network"};
    INFO("case " << i << ": " << describe(c) << ", " << names[what] << " x" << factor << ": "
                 << a.total_us << " -> " << b.total_us << " us");
    REQUIRE(b.total_us <= a.total_us * (1 + kRel));
  }
}

TEST_CASE("property: more work never makes a strategy faster; memory grows with it", "[property]") {
  Property p("larger global batch / seq / kv never faster; memory per GPU monotone", 100);
  for (int i = 0; i < p.cases(); ++i) {
    Case c;
    if (!random_case(p, c)) continue;
    Case more = c;
    std::string what;
    switch (p.uniform(0, 2)) {
      case 0:  // more micro-batches (training) or a larger batch per replica (inference)
        if (c.run.phase == Phase::Train) {
          more.par.global_batch *= 2;
          what = "global batch";
        } else {
          more.run.batch *= 2, more.par.microbatch *= 2, more.par.global_batch *= 2;
          what = "batch";
        }
        break;
      case 1:
        more.run.batch *= 2, more.par.microbatch *= 2, more.par.global_batch *= 2;
        what = "micro-batch";
        break;
      default:
        if (c.run.phase == Phase::Decode)
          more.run.kv_len *= 2, what = "kv_len";
        else
          more.run.seq *= 2, what = "seq";
    }
    if (step_positions(more.run) > c.model.max_positions) continue;
    ParallelPrediction a = predict(c), b = predict(more);
    INFO("case " << i << ": " << describe(c) << ", doubled " << what << ": " << a.total_us << " -> "
                 << b.total_us << " us, memory " << a.memory.total() << " -> " << b.memory.total());
    REQUIRE(b.memory.total() >= a.memory.total() * (1 - kRel));
    if (b.total_us >= a.total_us * (1 - kRel)) continue;
    // Faster with more work: every rank kernel that got faster must be explained by a named rule
    // (the rank graphs of both, priced on the cluster, kernel by kernel).
    const ClusterSpec& cl = cluster(c.cluster);
    const GpuSpec& g = cluster_gpu(c.cluster);
    Prediction ka = predict_workload(build_rank_graph(c.model, c.run, c.par, limits_of(cl)),
                                     c.model, c.run, g, &cl);
    Prediction kb =
        predict_workload(build_rank_graph(more.model, more.run, more.par, limits_of(cl)),
                         more.model, more.run, g, &cl);
    for (const std::string& rule : explain_speedup(ka, kb)) {
      INFO(rule);
      REQUIRE(rule.rfind("UNEXPLAINED", 0) != 0);
      p.exempt(rule);
    }
    REQUIRE(!explain_speedup(ka, kb).empty());
  }
}
