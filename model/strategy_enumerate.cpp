// Enumeration of parallel strategies (the loops and the checks); the rules are in
// strategy_search.h.
#include "model/strategy_search.h"

#include "common/errors.h"

#include <algorithm>

namespace ridgeline {

namespace {

std::vector<int64_t> divisors(int64_t n, int64_t limit) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n && (limit <= 0 || d <= limit); ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

void check_space(const SearchSpace& s) {
  auto positive = [](const char* flag, int64_t v) {
    if (v < 1)
      throw InputError(std::string(flag) + ": must be at least 1, got " + std::to_string(v));
  };
  positive("--gpus", s.gpus);
  positive("--global-batch", s.global_batch);
  positive("--max-cp", s.max_cp);
  positive("--max-microbatch", s.max_microbatch);
  const std::pair<const char*, int64_t> limits[] = {{"--max-tp", s.max_tp},
                                                    {"--max-pp", s.max_pp},
                                                    {"--max-vp", s.max_vp},
                                                    {"--max-ep", s.max_ep}};
  for (const auto& [flag, v] : limits)
    if (v < 0)
      throw InputError(std::string(flag) + ": must be 0 (no limit) or more, got " +
                       std::to_string(v));
  if (s.zero.empty()) throw InputError("--zero: no ZeRO stage left to try");
  if (s.recompute.empty()) throw InputError("--recompute: no recompute setting left to try");
  if (s.schedules.empty()) throw InputError("--schedule: no pipeline schedule left to try");
  if (!s.sp_off && !s.sp_on) throw InputError("--sp: no sequence-parallel setting left to try");
}

bool has(const std::vector<PipelineSchedule>& v, PipelineSchedule s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The pipeline layouts of pp stages: (schedule, vp) pairs.
std::vector<std::pair<PipelineSchedule, int64_t>> layouts(int64_t pp, int64_t layers,
                                                          const SearchSpace& s) {
  std::vector<std::pair<PipelineSchedule, int64_t>> out;
  if (pp == 1) return {{PipelineSchedule::OneFOneB, 1}};
  for (PipelineSchedule sch : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB})
    if (has(s.schedules, sch)) out.push_back({sch, 1});
  if (has(s.schedules, PipelineSchedule::Interleaved) && layers % pp == 0)
    for (int64_t vp : divisors(layers / pp, s.max_vp))
      if (vp > 1) out.push_back({PipelineSchedule::Interleaved, vp});
  return out;
}

// The flag check_parallel_config names first in its message ("--tp: ..." -> "--tp").
std::string flag_of(const std::string& message) {
  return message.substr(0, message.find(':'));
}

}  // namespace

RunConfig strategy_run(const RunConfig& run, const ParallelConfig& p) {
  RunConfig r = run;
  if (run.phase == Phase::Train) r.batch = p.microbatch;
  r.recompute = p.recompute;
  return r;
}

Enumeration enumerate_strategies(const ModelConfig& model, const RunConfig& run,
                                 const SearchSpace& s, const ClusterLimits& cluster) {
  check_space(s);
  if (s.gpus > cluster.max_gpus)  // every candidate would be refused for it: say so once
    throw InputError("--gpus: " + std::to_string(s.gpus) + " GPUs, but " + cluster.name +
                     " has at most " + std::to_string(cluster.max_gpus));
  Enumeration e;
  const int64_t layers = run.blocks > 0 ? run.blocks : model.layers;
  const int64_t node =
      s.max_tp > 0 ? std::min(s.max_tp, cluster.gpus_per_node) : cluster.gpus_per_node;
  ParallelConfig p;
  p.gpus = s.gpus;
  p.global_batch = s.global_batch;
  auto consider = [&](const ParallelConfig& q) {
    ++e.candidates;
    try {
      check_parallel_config(q, model, strategy_run(run, q), cluster);
      e.valid.push_back(q);
    } catch (const InputError& err) {
      ++e.refused[flag_of(err.what())];
    }
  };
  for (int64_t tp : divisors(s.gpus, node)) {
    for (int64_t cp : divisors(s.gpus / tp, s.max_cp)) {
      for (int64_t pp : divisors(s.gpus / (tp * cp), s.max_pp)) {
        int64_t dp = s.gpus / (tp * cp * pp);
        std::vector<int64_t> eps =
            model.moe.experts > 0 ? divisors(dp, s.max_ep) : std::vector<int64_t>{1};
        for (auto [schedule, vp] : layouts(pp, layers, s))
          for (int64_t ep : eps)
            for (bool sp : {false, true}) {
              if ((sp && (tp == 1 || !s.sp_on)) || (!sp && tp > 1 && !s.sp_off)) continue;
              for (int zero : s.zero) {
                if (zero > 0 && dp == 1) continue;  // nothing to shard: the same as ZeRO 0
                for (int64_t mb = 1; mb <= s.max_microbatch; mb *= 2)
                  for (Recompute rc : s.recompute) {
                    p.tp = tp, p.cp = cp, p.pp = pp, p.dp = dp, p.vp = vp, p.ep = ep, p.sp = sp;
                    p.schedule = schedule, p.zero = zero, p.microbatch = mb, p.recompute = rc;
                    consider(p);
                  }
              }
            }
      }
    }
  }
  return e;
}

}  // namespace ridgeline
