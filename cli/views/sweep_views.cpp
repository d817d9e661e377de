// Views of a sweep (sweep_views.h): a table for people (a bad point's row says why it failed),
// JSON and CSV for tools with every input of every point and round-trippable numbers.
#include "cli/views/sweep_views.h"

#include "cli/views/predict_views.h"
#include "cli/views/views.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <sstream>

namespace ridgeline {

size_t SweepResult::failed() const {
  size_t n = 0;
  for (const auto& p : points) n += p.ok ? 0 : 1;
  return n;
}

namespace {

std::string header(const SweepResult& r) {
  std::string s = r.model + " " + phase_name(r.base.phase) + " on " + r.gpu + ", " +
                  runtime_name(r.base.runtime) + ", " + launch_name(r.base.launch) +
                  " launch (profile " + r.profile + ")\nprecision  activations " +
                  dtype_name(r.base.activations) + ", KV cache " + dtype_name(r.base.kv_cache);
  if (!r.what_ifs.empty()) s += "\nwhat-ifs   " + what_if_line(r.what_ifs);
  return s;
}

}  // namespace

std::string sweep_table_head(const SweepResult& r) {
  std::ostringstream os;
  os << header(r) << "\n"
     << std::left << std::setw(8) << "weights" << std::setw(8) << "batch" << std::setw(9) << "seq"
     << std::setw(9) << "kv_len" << std::setw(13) << "step" << std::setw(14) << "tokens/s"
     << std::setw(11) << "memory"
     << "fits\n";
  return os.str();
}

std::string sweep_table_row(const SweepPoint& p) {
  std::ostringstream os;
  os << std::left << std::setw(8) << p.weights << std::setw(8) << p.run.batch << std::setw(9)
     << p.run.seq << std::setw(9) << p.run.kv_len;
  if (!p.ok) {
    os << "error: " << p.error << "\n";
    return os.str();
  }
  os << std::setw(13) << human_us(p.total_us) << std::setw(14) << fixed(p.tokens_per_s, 0)
     << std::setw(11) << human_bytes(p.memory.total()) << (p.memory.fits() ? "yes" : "NO") << "\n";
  return os.str();
}

nlohmann::ordered_json sweep_json_head(const SweepResult& r) {
  nlohmann::ordered_json j;
  j["model"] = r.model;
  j["model_source"] = r.model_source;
  j["gpu"] = r.gpu;
  j["gpu_file"] = r.gpu_file;
  j["profile"] = r.profile;
  j["what_ifs"] = r.what_ifs;
  return j;
}

nlohmann::ordered_json sweep_json_point(const SweepResult& r, const SweepPoint& p) {
  const RunSubject subject{r.model, r.model_source, r.gpu, r.gpu_file, r.profile, r.what_ifs};
  nlohmann::ordered_json point{{"inputs", run_inputs_json(p.run, subject)}, {"ok", p.ok}};
  if (!p.ok) {
    point["error"] = p.error;
  } else {
    point["total_us"] = p.total_us;
    point["tokens_per_s"] = p.tokens_per_s;
    point["memory_bytes"] = p.memory.total();
    point["capacity_bytes"] = p.memory.capacity_bytes;
    point["fits"] = p.memory.fits();
    point["max_batch"] = p.memory.max_batch;
  }
  return point;
}

std::string sweep_csv_head(const SweepResult& r) {
  std::ostringstream os;
  os << "# model," << r.model << "\n# model_source," << r.model_source << "\n# gpu," << r.gpu
     << "\n# gpu_file," << r.gpu_file << "\n# profile," << r.profile << "\n# what_ifs,"
     << what_if_line(r.what_ifs) << "\n";
  os << "phase,runtime,launch,weights,activations,kv_cache,batch,seq,kv_len,blocks,total_us,"
        "tokens_per_s,memory_bytes,capacity_bytes,fits,max_batch,error\n";
  return os.str();
}

std::string sweep_csv_row(const SweepPoint& p) {
  std::ostringstream os;
  os << phase_name(p.run.phase) << "," << runtime_name(p.run.runtime) << ","
     << launch_name(p.run.launch) << "," << p.weights << "," << dtype_name(p.run.activations) << ","
     << dtype_name(p.run.kv_cache) << "," << p.run.batch << "," << p.run.seq << "," << p.run.kv_len
     << "," << p.run.blocks << ",";
  if (p.ok) {
    os << exact(p.total_us) << "," << exact(p.tokens_per_s) << "," << exact(p.memory.total()) << ","
       << exact(p.memory.capacity_bytes) << "," << (p.memory.fits() ? "yes" : "no") << ","
       << p.memory.max_batch << ",\n";
  } else {  // the message quoted, its quotes doubled (RFC 4180)
    std::string e;
    for (char c : p.error) e += c == '"' ? std::string("\"\"") : std::string(1, c);
    os << ",,,,,,\"" << e << "\"\n";
  }
  return os.str();
}

void print_sweep_table(std::ostream& os, const SweepResult& r) {
  os << sweep_table_head(r);
  for (const auto& p : r.points) os << sweep_table_row(p);
}

void print_sweep_json(std::ostream& os, const SweepResult& r) {
  nlohmann::ordered_json j = sweep_json_head(r);
  j["points"] = nlohmann::ordered_json::array();
  for (const auto& p : r.points) j["points"].push_back(sweep_json_point(r, p));
  os << j.dump(2) << "\n";
}

void print_sweep_csv(std::ostream& os, const SweepResult& r) {
  os << sweep_csv_head(r);
  for (const auto& p : r.points) os << sweep_csv_row(p);
}

}  // namespace ridgeline
