// Strategies as text (--strategy "tp=8,pp=16,zero=1") and the comparison of two predictions that
// says why one loses to the other; see strategy_search.h.
#include "model/strategy_search.h"

#include "common/errors.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

namespace ridgeline {

namespace {
// Iteration times that round to the same microsecond are a tie (a strict weak order to sort by).
long long tie_key(double us) {
  return std::llround(us);
}
}  // namespace

const char* time_part_name(TimePart p) {
  switch (p) {
    case TimePart::None:
      return "";
    case TimePart::Compute:
      return "compute";
    case TimePart::Bubble:
      return "bubble";
    case TimePart::ExposedComm:
      return "exposed comm";
    case TimePart::Host:
      return "host";
    case TimePart::Memory:
      return "memory";
  }
  return "?";
}

std::string strategy_text(const ParallelConfig& p) {
  auto n = [](int64_t v) { return std::to_string(v); };
  return "tp=" + n(p.tp) + ",pp=" + n(p.pp) + ",vp=" + n(p.vp) + ",dp=" + n(p.dp) +
         ",cp=" + n(p.cp) + ",ep=" + n(p.ep) + (p.etp > 0 ? ",etp=" + n(p.etp) : "") +
         ",sp=" + (p.sp ? "1" : "0") + ",zero=" + n(p.zero) + ",mb=" + n(p.microbatch) +
         ",recompute=" + recompute_name(p.recompute) + ",schedule=" + schedule_name(p.schedule);
}

namespace {

int64_t integer_of(const std::string& key, const std::string& value, const std::string& where) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size())
    throw InputError(where + ": " + key + "=" + value + ": expected an integer");
  return v;
}

}  // namespace

ParallelConfig parse_strategy(const std::string& text, int64_t gpus, int64_t global_batch,
                              const std::string& flag) {
  const std::string where = flag + " \"" + text + "\"";
  ParallelConfig p;
  p.gpus = gpus;
  p.global_batch = global_batch;
  bool dp_given = false, schedule_given = false;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw InputError(where + ": \"" + item +
                       "\": expected key=value (tp, pp, vp, dp, cp, ep, etp, sp, "
                       "zero, mb, recompute, schedule)");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "tp")
      p.tp = integer_of(key, value, where);
    else if (key == "pp")
      p.pp = integer_of(key, value, where);
    else if (key == "vp")
      p.vp = integer_of(key, value, where);
    else if (key == "dp")
      p.dp = integer_of(key, value, where), dp_given = true;
    else if (key == "cp")
      p.cp = integer_of(key, value, where);
    else if (key == "ep")
      p.ep = integer_of(key, value, where);
    else if (key == "etp") {
      p.etp = integer_of(key, value, where);
      if (p.etp < 1) throw InputError(where + ": etp=" + value + ": expected 1 or the tp");
    } else if (key == "zero")
      p.zero = (int)integer_of(key, value, where);
    else if (key == "mb" || key == "microbatch")
      p.microbatch = integer_of(key, value, where);
    else if (key == "sp") {
      if (value != "0" && value != "1" && value != "on" && value != "off")
        throw InputError(where + ": sp=" + value + ": expected 0, 1, on or off");
      p.sp = value == "1" || value == "on";
    } else if (key == "recompute") {
      if (value == "none")
        p.recompute = Recompute::None;
      else if (value == "selective")
        p.recompute = Recompute::Selective;
      else if (value == "full")
        p.recompute = Recompute::Full;
      else
        throw InputError(where + ": recompute=" + value + ": expected none, selective or full");
    } else if (key == "schedule") {
      schedule_given = true;
      if (value == "gpipe")
        p.schedule = PipelineSchedule::GPipe;
      else if (value == "1f1b")
        p.schedule = PipelineSchedule::OneFOneB;
      else if (value == "interleaved")
        p.schedule = PipelineSchedule::Interleaved;
      else
        throw InputError(where + ": schedule=" + value + ": expected gpipe, 1f1b or interleaved");
    } else {
      throw InputError(where + ": unknown key \"" + key +
                       "\" (tp, pp, vp, dp, cp, ep, etp, sp, zero, mb, "
                       "recompute, schedule)");
    }
  }
  if (!schedule_given && p.vp > 1) p.schedule = PipelineSchedule::Interleaved;
  int64_t rest = p.tp * p.pp * p.cp;
  if (!dp_given && rest > 0 && gpus % rest == 0) p.dp = gpus / rest;
  return p;
}

double part_us(const ParallelPrediction& p, TimePart part, CommGroup group) {
  switch (part) {
    case TimePart::Compute:
      return p.time_by_stream_us[(int)Stream::Compute];
    case TimePart::Host:
      return p.time_by_stream_us[(int)Stream::Host];
    case TimePart::ExposedComm:
      return p.exposed_comm_us[(int)group];
    case TimePart::Bubble: {
      double busy = 0;
      for (double b : p.pipeline.stage_busy_us) busy = std::max(busy, b);
      return p.bubble_fraction * busy;
    }
    case TimePart::None:
    case TimePart::Memory:
      break;
  }
  return 0;
}

namespace {

// The settings that move a part, most telling first.
std::vector<std::string> keys_of(TimePart part, CommGroup g) {
  switch (part) {
    case TimePart::Compute:
      return {"recompute", "mb", "tp", "sp", "cp", "ep", "zero"};
    case TimePart::Bubble:
      return {"pp", "vp", "schedule", "mb", "dp"};
    case TimePart::Memory:
      return {"zero", "recompute", "mb", "pp", "tp"};
    case TimePart::ExposedComm:
      if (g == CommGroup::Tp) return {"tp", "sp", "mb"};
      if (g == CommGroup::Pp) return {"pp", "vp", "mb"};
      if (g == CommGroup::Dp) return {"zero", "dp", "pp", "tp"};
      if (g == CommGroup::Cp) return {"cp"};
      if (g == CommGroup::Ep) return {"ep"};
      return {};
    default:
      return {};
  }
}

std::vector<std::pair<std::string, std::string>> settings(const ParallelConfig& p) {
  auto n = [](int64_t v) { return std::to_string(v); };
  return {{"tp", n(p.tp)},
          {"pp", n(p.pp)},
          {"vp", n(p.vp)},
          {"dp", n(p.dp)},
          {"cp", n(p.cp)},
          {"ep", n(p.ep)},
          {"sp", p.sp ? "on" : "off"},
          {"zero", n(p.zero)},
          {"mb", n(p.microbatch)},
          {"recompute", recompute_name(p.recompute)},
          {"schedule", schedule_name(p.schedule)}};
}

}  // namespace

LossReason why_slower(const ParallelPrediction& slower, const ParallelPrediction& faster) {
  LossReason best;
  best.delta_us = -1e300;
  auto consider = [&](TimePart part, CommGroup g) {
    double d = part_us(slower, part, g) - part_us(faster, part, g);
    if (d > best.delta_us) best.part = part, best.group = g, best.delta_us = d;
  };
  consider(TimePart::Compute, CommGroup::None);
  consider(TimePart::Bubble, CommGroup::None);
  for (CommGroup g : {CommGroup::Tp, CommGroup::Pp, CommGroup::Dp, CommGroup::Cp, CommGroup::Ep})
    consider(TimePart::ExposedComm, g);
  consider(TimePart::Host, CommGroup::None);
  if (tie_key(slower.total_us) == tie_key(faster.total_us)) {
    best.part = TimePart::Memory, best.group = CommGroup::None, best.delta_us = 0;
    best.memory_bytes = slower.memory.total() - faster.memory.total();
  }
  auto a = settings(slower.parallel), b = settings(faster.parallel);
  std::vector<SettingDiff> all;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].second != b[i].second) all.push_back({a[i].first, a[i].second, b[i].second});
  for (const std::string& k : keys_of(best.part, best.group))
    for (const SettingDiff& d : all)
      if (d.key == k) best.differs.push_back(d);
  for (const SettingDiff& d : all)
    if (std::none_of(best.differs.begin(), best.differs.end(),
                     [&](const SettingDiff& x) { return x.key == d.key; }))
      best.differs.push_back(d);
  return best;
}

void rank_strategies(std::vector<StrategyRow>& rows) {
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    long long ta = tie_key(rows[a].prediction.total_us), tb = tie_key(rows[b].prediction.total_us);
    if (ta != tb) return ta < tb;
    return rows[a].memory.total() < rows[b].memory.total();
  });
  std::vector<StrategyRow> sorted;
  sorted.reserve(rows.size());
  for (size_t i : order) sorted.push_back(std::move(rows[i]));
  rows = std::move(sorted);
  for (size_t i = 1; i < rows.size(); ++i) {
    rows[i].behind_us = rows[i].prediction.total_us - rows[i - 1].prediction.total_us;
    rows[i].loses_because = why_slower(rows[i].prediction, rows[i - 1].prediction);
  }
}

}  // namespace ridgeline
