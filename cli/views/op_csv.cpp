// CSV view of `ridgeline op` results: one row per input line, errors in their own column; impl
// (before error) is empty for op kinds without an implementation choice (GEMM, reduce).
#include "cli/views/views.h"

namespace ridgeline {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

void print_op_csv(std::ostream& os, const std::vector<OpResult>& results) {
  os << "id,op,time_us,bottleneck,flops,bytes_hbm,bytes_l2,bytes_smem,compute_us,hbm_us,l2_us,"
        "smem_us,overhead_us,roofline_us,tile_m,tile_n,split,waves,impl,error\n";
  for (const auto& r : results) {
    nlohmann::ordered_json j = op_result_json(r);
    os << csv_field(r.id) << ",";
    if (j.contains("error")) {
      os << ",,,,,,,,,,,,,,,,,," << csv_field(r.error) << "\n";
      continue;
    }
    const auto& t = j["terms_us"];
    const auto& b = j["bytes"];
    const auto& l = j["launch"];
    os << j["op"].get<std::string>() << "," << j["time_us"] << ","
       << j["bottleneck"].get<std::string>() << "," << j["flops"] << "," << b["hbm"] << ","
       << b["l2"] << "," << b["smem"] << "," << t["compute"] << "," << t["hbm"] << "," << t["l2"]
       << "," << t["smem"] << "," << t["overhead"] << "," << j["roofline_us"] << "," << l["tile_m"]
       << "," << l["tile_n"] << "," << l["split"] << "," << l["waves"] << ","
       << (j.contains("impl") ? j["impl"].get<std::string>() : "") << ",\n";
  }
}

}  // namespace ridgeline
