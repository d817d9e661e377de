// Views of a strategy search and of a comparison (search_views.h): a table for people, JSON and
// CSV for tools with round-trippable numbers. Each strategy reads the same way in all three:
// its settings, iteration time, MFU, bubble, exposed communication per group, memory per GPU.
#include "cli/views/search_views.h"

#include "cli/views/parallel_views.h"
#include "cli/views/strategy_fields.h"

#include "cli/views/views.h"

#include <nlohmann/json.hpp>

#include <iomanip>

namespace ridgeline {

namespace {

using nlohmann::ordered_json;

ordered_json loss_json(const LossReason& r) {
  ordered_json d = ordered_json::array();
  for (const auto& x : r.differs)
    d.push_back({{"key", x.key}, {"this", x.slower}, {"above", x.faster}});
  return {{"part", time_part_name(r.part)},
          {"group", comm_group_name(r.group)},
          {"delta_us", r.delta_us},
          {"memory_bytes", r.memory_bytes},
          {"differs", d}};
}

// prediction_fields' writer for the views: streams and groups by name.
struct ViewFields {
  ordered_json& j;
  void operator()(const char* key, double x) { j[key] = x; }
  void streams(const char* key, const std::array<double, kStreams>& t) { j[key] = streams_json(t); }
  void groups(const char* key, const GroupTimes& t) { j[key] = groups_json(t); }
};

ordered_json row_json(const StrategyRow& r, bool ranked_after_first) {
  ordered_json j;
  j["strategy"] = parallel_config_json(r.parallel);
  if (r.timed) {
    ViewFields v{j};
    prediction_fields(r.prediction, v);
  }
  j["memory_per_gpu"] = memory_per_gpu_json(r.memory);
  if (ranked_after_first) {
    j["behind_us"] = r.behind_us;
    j["loses_because"] = loss_json(r.loses_because);
  }
  return j;
}

std::string exposed_text(const GroupTimes& t) {
  std::string s;
  for (CommGroup g : kListedCommGroups)
    if (t[(int)g] > 0)
      s += std::string(s.empty() ? "" : " ") + comm_group_name(g) + " " + human_us(t[(int)g]);
  return s.empty() ? "-" : s;
}

void table_header(std::ostream& os) {
  os << std::left << std::setw(5) << "rank" << std::setw(4) << "tp" << std::setw(4) << "pp"
     << std::setw(4) << "vp" << std::setw(6) << "dp" << std::setw(4) << "cp" << std::setw(4) << "ep"
     << std::setw(5) << "sp" << std::setw(5) << "zero" << std::setw(4) << "mb" << std::setw(10)
     << "recompute" << std::setw(12) << "iteration" << std::setw(7) << "MFU" << std::setw(8)
     << "bubble" << std::setw(10) << "memory"
     << "exposed comm\n";
}

void table_row(std::ostream& os, const std::string& rank, const StrategyRow& r) {
  // Each column wide enough for its header and a 1024-GPU strategy.
  const ParallelConfig& p = r.parallel;
  os << std::left << std::setw(5) << rank << std::setw(4) << p.tp << std::setw(4) << p.pp
     << std::setw(4) << p.vp << std::setw(6) << p.dp << std::setw(4) << p.cp << std::setw(4)
     << (std::to_string(p.ep) + (p.moe_folded() ? "f" : ""))  // f: MoE parallel folding, etp 1
     << std::setw(5) << (p.sp ? "on" : "off") << std::setw(5) << p.zero << std::setw(4)
     << p.microbatch << std::setw(10) << recompute_name(p.recompute);
  if (r.timed)
    os << std::setw(12) << human_us(r.prediction.total_us) << std::setw(7)
       << (fixed(100 * r.prediction.mfu, 1) + "%") << std::setw(8)
       << (fixed(100 * r.prediction.bubble_fraction, 1) + "%");
  else
    os << std::setw(12) << "-" << std::setw(7) << "-" << std::setw(8) << "-";
  os << std::setw(10) << (human_bytes(r.memory.total()) + (r.memory.fits() ? "" : "!"))
     << (r.timed ? exposed_text(r.prediction.exposed_comm_us) : "-") << "\n";
}

std::string refused_text(const std::map<std::string, int64_t>& refused) {
  std::string s;
  for (const auto& [flag, n] : refused)
    s += (s.empty() ? "" : ", ") + flag + " " + std::to_string(n);
  return s;
}

void print_search_table(std::ostream& os, const SearchReport& rep) {
  const SearchResult& r = rep.result;
  int64_t refused = 0;
  for (const auto& [flag, n] : r.refused) refused += n;
  os << rep.description << "\n"
     << "strategies " << r.candidates << " enumerated: " << refused << " refused"
     << (refused ? " (" + refused_text(r.refused) + ")" : "") << ", " << r.not_fitting
     << " do not fit in memory, " << r.ranked.size() << " ranked\n";
  if (r.valid == 0) {
    os << "no valid strategy: check_parallel_config refused every candidate\n";
    return;
  }
  if (r.ranked.empty()) {
    os << "no strategy fits"
       << (r.not_fitting_rows.empty() ? "" : ": " + r.not_fitting_rows[0].memory.reason) << "\n";
    return;
  }
  table_header(os);
  size_t n = std::min(r.ranked.size(), (size_t)rep.top);
  for (size_t i = 0; i < n; ++i) {
    table_row(os, std::to_string(i + 1), r.ranked[i]);
    if (i > 0)
      os << "     +" << human_us(r.ranked[i].behind_us) << " behind #" << i << ": "
         << loss_text(r.ranked[i].loses_because) << "\n";
  }
  if (rep.all)
    for (const auto& row : r.not_fitting_rows) {
      table_row(os, "-", row);
      os << "     does not fit: " << row.memory.reason << "\n";
    }
}

void print_search_json(std::ostream& os, const SearchReport& rep) {
  const SearchResult& r = rep.result;
  ordered_json j;
  j["description"] = rep.description;
  j["model"] = r.model;
  j["cluster"] = r.cluster;
  j["gpu"] = r.gpu;
  j["gpus"] = r.space.gpus;
  j["global_batch"] = r.space.global_batch;
  j["counts"] = {{"enumerated", r.candidates},
                 {"refused", r.candidates - r.valid},
                 {"valid", r.valid},
                 {"not_fitting", r.not_fitting},
                 {"ranked", r.ranked.size()}};
  j["refused_by_flag"] = r.refused;
  j["ranked"] = ordered_json::array();
  size_t n = std::min(r.ranked.size(), (size_t)rep.top);
  for (size_t i = 0; i < n; ++i) j["ranked"].push_back(row_json(r.ranked[i], i > 0));
  if (rep.all) {
    j["not_fitting"] = ordered_json::array();
    for (const auto& row : r.not_fitting_rows) j["not_fitting"].push_back(row_json(row, false));
  }
  os << j.dump(2) << "\n";
}

void csv_header(std::ostream& os) {
  os << "rank,tp,pp,vp,dp,cp,ep,sp,zero,microbatch,recompute,schedule,total_us,mfu,"
        "bubble_fraction,exposed_tp_us,exposed_pp_us,exposed_dp_us,exposed_cp_us,exposed_ep_us,"
        "memory_bytes,fits,behind_us,loses_because\n";
}

std::string csv_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void csv_row(std::ostream& os, const std::string& rank, const StrategyRow& r, bool behind) {
  const ParallelConfig& p = r.parallel;
  os << rank << "," << p.tp << "," << p.pp << "," << p.vp << "," << p.dp << "," << p.cp << ","
     << p.ep << "," << (p.sp ? 1 : 0) << "," << p.zero << "," << p.microbatch << ","
     << recompute_name(p.recompute) << "," << schedule_name(p.schedule) << ",";
  if (r.timed) {
    os << exact(r.prediction.total_us) << "," << exact(r.prediction.mfu) << ","
       << exact(r.prediction.bubble_fraction);
    for (CommGroup g : kListedCommGroups) os << "," << exact(r.prediction.exposed_comm_us[(int)g]);
  } else {
    os << ",,,,,,,";
  }
  os << "," << exact(r.memory.total()) << "," << (r.memory.fits() ? 1 : 0) << ",";
  if (behind)
    os << exact(r.behind_us) << "," << csv_quote(loss_text(r.loses_because));
  else if (!r.memory.fits())
    os << "," << csv_quote(r.memory.reason);
  else
    os << ",";
  os << "\n";
}

void print_search_csv(std::ostream& os, const SearchReport& rep) {
  const SearchResult& r = rep.result;
  os << "# " << rep.description << "\n# enumerated," << r.candidates << "\n# valid," << r.valid
     << "\n# not_fitting," << r.not_fitting << "\n";
  for (const auto& [flag, n] : r.refused) os << "# refused " << flag << "," << n << "\n";
  csv_header(os);
  size_t n = std::min(r.ranked.size(), (size_t)rep.top);
  for (size_t i = 0; i < n; ++i) csv_row(os, std::to_string(i + 1), r.ranked[i], i > 0);
  if (rep.all)
    for (const auto& row : r.not_fitting_rows) csv_row(os, "", row, false);
}

void print_compare_table(std::ostream& os, const CompareReport& rep) {
  os << rep.description << "\n";
  table_header(os);
  for (size_t i = 0; i < rep.rows.size(); ++i) {
    table_row(os, std::to_string(i + 1), rep.rows[i]);
    if (!rep.rows[i].memory.fits())
      os << "     does not fit: " << rep.rows[i].memory.reason << "\n";
    if (i == 0) continue;
    const StrategyRow& r = rep.rows[i];
    if (r.behind_us >= 0)
      os << "     +" << human_us(r.behind_us) << " vs #1: " << loss_text(r.loses_because) << "\n";
    else
      os << "     -" << human_us(-r.behind_us) << " vs #1; #1 loses by "
         << loss_text(r.loses_because) << "\n";
  }
}

void print_compare_json(std::ostream& os, const CompareReport& rep) {
  ordered_json j;
  j["description"] = rep.description;
  j["strategies"] = ordered_json::array();
  for (size_t i = 0; i < rep.rows.size(); ++i) {
    ordered_json r = row_json(rep.rows[i], i > 0);
    r["given"] = rep.texts[i];
    j["strategies"].push_back(r);
  }
  os << j.dump(2) << "\n";
}

void print_compare_csv(std::ostream& os, const CompareReport& rep) {
  os << "# " << rep.description << "\n";
  csv_header(os);
  for (size_t i = 0; i < rep.rows.size(); ++i)
    csv_row(os, std::to_string(i + 1), rep.rows[i], i > 0);
}

}  // namespace

std::string loss_text(const LossReason& r) {
  if (r.part == TimePart::None) return "";
  std::string s = time_part_name(r.part);
  if (r.part == TimePart::Memory)
    s = "same time, memory " + std::string(r.memory_bytes >= 0 ? "+" : "-") +
        human_bytes(std::abs(r.memory_bytes)) + " per GPU";
  else if (r.part == TimePart::ExposedComm)
    s = std::string("exposed ") + comm_group_name(r.group) + " comm";
  if (r.part != TimePart::Memory)
    s += (r.delta_us >= 0 ? " +" : " -") + human_us(std::abs(r.delta_us));
  std::string d;
  for (size_t i = 0; i < r.differs.size() && i < 3; ++i)
    d += (d.empty() ? "" : ", ") + r.differs[i].key + " " + r.differs[i].slower + " vs " +
         r.differs[i].faster;
  return d.empty() ? s : s + " (" + d + ")";
}

const ViewSet<SearchReport>& search_views() {
  static const ViewSet<SearchReport> v = {
      {"table", print_search_table}, {"json", print_search_json}, {"csv", print_search_csv}};
  return v;
}

const ViewSet<CompareReport>& compare_views() {
  static const ViewSet<CompareReport> v = {
      {"table", print_compare_table}, {"json", print_compare_json}, {"csv", print_compare_csv}};
  return v;
}

}  // namespace ridgeline
