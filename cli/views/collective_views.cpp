// See collective_views.h. JSON and the table read the same numbers; nothing is computed here.
#include "cli/views/collective_views.h"
#include "cli/views/interval_views.h"

#include "cli/views/views.h"

#include <cmath>
#include <iomanip>

namespace ridgeline {

nlohmann::ordered_json collective_result_json(const CollectiveResult& r) {
  nlohmann::ordered_json j;
  j["id"] = r.id;
  if (!r.error.empty() || !r.cost) {
    j["error"] = r.error;
    return j;
  }
  const CollectiveOp& op = *r.op;
  const CollectiveCost& c = *r.cost;
  j["op"] = collective_kind_name(op.kind);
  j["gpus"] = op.ranks;
  j["gpus_per_node"] = r.gpus_per_node;
  j["nodes"] = r.nodes;
  if (op.bytes == std::floor(op.bytes) && op.bytes < 9e15)
    j["bytes"] = (long long)op.bytes;
  else
    j["bytes"] = op.bytes;
  j["time_us"] = c.time_us;
  if (r.interval) j["interval"] = interval_json(*r.interval);
  j["algbw_GBps"] = c.algbw_GBps;
  j["busbw_GBps"] = c.busbw_GBps;
  j["algorithm"] = algorithm_name(c.algorithm);
  j["protocol"] = protocol_name(c.protocol);
  j["channels"] = c.channels;
  return j;
}

namespace {

void print_collective_table(std::ostream& os, const CollectiveReport& rep) {
  os << "cluster " << rep.cluster.name << " (" << rep.cluster.full_name << ")\n";
  os << std::left << std::setw(12) << "id" << std::setw(16) << "op" << std::right << std::setw(6)
     << "gpus" << std::setw(7) << "nodes" << std::setw(12) << "bytes" << std::setw(12) << "time"
     << std::setw(11) << "algbw" << std::setw(11) << "busbw"
     << "  " << std::left << std::setw(14) << "algorithm" << std::setw(8) << "proto" << std::right
     << std::setw(4) << "ch"
     << "\n";
  for (const auto& r : rep.results) {
    os << std::left << std::setw(12) << r.id.substr(0, 11);
    if (!r.error.empty() || !r.cost) {
      os << "error: " << r.error << "\n";
      continue;
    }
    const CollectiveCost& c = *r.cost;
    os << std::setw(16) << collective_kind_name(r.op->kind) << std::right << std::setw(6)
       << r.op->ranks << std::setw(7) << r.nodes << std::setw(12) << human_bytes(r.op->bytes)
       << std::setw(12) << human_us(c.time_us) << std::setw(11) << fixed(c.algbw_GBps, 1)
       << std::setw(11) << fixed(c.busbw_GBps, 1) << "  " << std::left << std::setw(14)
       << algorithm_name(c.algorithm) << std::setw(8) << protocol_name(c.protocol) << std::right
       << std::setw(4) << c.channels << "\n";
  }
  os << "(algbw = bytes / time, busbw = algbw x nccl-tests' bus factor; GB/s)\n";
}

void print_collective_json(std::ostream& os, const CollectiveReport& rep) {
  if (rep.results.size() == 1) {
    os << collective_result_json(rep.results[0]).dump(2) << "\n";
    return;
  }
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& r : rep.results) all.push_back(collective_result_json(r));
  os << all.dump(2) << "\n";
}

void print_collective_jsonl(std::ostream& os, const CollectiveReport& rep) {
  for (const auto& r : rep.results) os << collective_result_json(r).dump() << "\n";
}

double nvlink_GBps(const ClusterSpec& c) {
  return c.scale_up.links_per_gpu.value * c.scale_up.link_GBps_per_direction.value;
}

void print_cluster_list(std::ostream& os, const std::vector<ClusterSpec>& all) {
  os << std::left << std::setw(14) << "name" << std::setw(16) << "gpu" << std::right << std::setw(9)
     << "per node" << std::setw(10) << "max GPUs"
     << "  " << std::left << std::setw(10) << "scale-up" << std::right << std::setw(12)
     << "NVLink GB/s" << std::setw(9) << "domain" << std::setw(7) << "NVLS" << std::setw(12)
     << "NICs x Gb/s"
     << "\n";
  for (const auto& c : all) {
    os << std::left << std::setw(14) << c.name << std::setw(16) << c.gpu << std::right
       << std::setw(9) << fixed(c.gpus_per_node.value, 0) << std::setw(10) << fixed(c.max_gpus(), 0)
       << "  " << std::left << std::setw(10) << scale_up_kind_name(c.scale_up.kind) << std::right
       << std::setw(12) << fixed(nvlink_GBps(c), 1) << std::setw(9)
       << fixed(c.scale_up.domain_gpus.value, 0) << std::setw(7)
       << (c.collective.nvls_enabled ? "on" : (c.scale_up.nvls_available ? "off" : "-"))
       << std::setw(12)
       << (fixed(c.scale_out.nics_per_node.value, 0) + " x " + fixed(c.scale_out.nic_Gbps.value, 0))
       << "\n";
  }
  os << "(NVLink GB/s per GPU and direction, as NCCL counts it; NVLS: NVLink SHARP used)\n";
}

nlohmann::ordered_json fact_json(const Fact& f) {
  return {{"value", f.value}, {"source", to_string(f.source)}};
}

nlohmann::ordered_json cluster_json(const ClusterSpec& c) {
  nlohmann::ordered_json j;
  j["name"] = c.name;
  j["full_name"] = c.full_name;
  j["file"] = c.file;
  j["gpu"] = c.gpu;
  j["architecture"] = c.architecture;
  j["gpus_per_node"] = fact_json(c.gpus_per_node);
  j["max_nodes"] = fact_json(c.max_nodes);
  const ScaleUpSpec& u = c.scale_up;
  j["scale_up"] = {{"kind", scale_up_kind_name(u.kind)},
                   {"nvlink_generation", fact_json(u.nvlink_generation)},
                   {"links_per_gpu", fact_json(u.links_per_gpu)},
                   {"link_GBps_per_direction", fact_json(u.link_GBps_per_direction)},
                   {"domain_gpus", fact_json(u.domain_gpus)},
                   {"pcie_GBps_per_direction", fact_json(u.pcie_GBps_per_direction)},
                   {"nvls_available", u.nvls_available}};
  const ScaleOutSpec& o = c.scale_out;
  j["scale_out"] = {{"nics_per_node", fact_json(o.nics_per_node)},
                    {"nic_Gbps", fact_json(o.nic_Gbps)},
                    {"latency_us", fact_json(o.latency_us)},
                    {"rail_optimized", o.rail_optimized}};
  nlohmann::ordered_json m;
  m["nvls_enabled"] = c.collective.nvls_enabled;
  visit_collective_fields(c.collective, [&](const std::string& path, const Fact& f, FieldRule) {
    m[nlohmann::ordered_json::json_pointer("/" + path)] = fact_json(f);
  });
  j["collective_model"] = m;
  return j;
}

void fact_row(std::ostream& os, const std::string& path, const Fact& f) {
  os << "  " << std::left << std::setw(48) << path << std::right << std::setw(10)
     << fixed(f.value, f.value == (long long)f.value ? 0 : 3) << "   " << to_string(f.source)
     << "\n";
}

void print_cluster_show(std::ostream& os, const ClusterSpec& c) {
  os << c.name << ": " << c.full_name << "\n";
  os << "file " << c.file << ", GPU " << c.gpu << " (" << c.architecture << ")\n\n";
  fact_row(os, "gpus_per_node", c.gpus_per_node);
  fact_row(os, "max_nodes", c.max_nodes);
  const ScaleUpSpec& u = c.scale_up;
  os << "  scale_up/kind " << scale_up_kind_name(u.kind) << ", nvls_available "
     << (u.nvls_available ? "true" : "false") << "\n";
  fact_row(os, "scale_up/nvlink_generation", u.nvlink_generation);
  fact_row(os, "scale_up/links_per_gpu", u.links_per_gpu);
  fact_row(os, "scale_up/link_GBps_per_direction", u.link_GBps_per_direction);
  fact_row(os, "scale_up/domain_gpus", u.domain_gpus);
  fact_row(os, "scale_up/pcie_GBps_per_direction", u.pcie_GBps_per_direction);
  const ScaleOutSpec& o = c.scale_out;
  os << "  scale_out/rail_optimized " << (o.rail_optimized ? "true" : "false") << "\n";
  fact_row(os, "scale_out/nics_per_node", o.nics_per_node);
  fact_row(os, "scale_out/nic_Gbps", o.nic_Gbps);
  fact_row(os, "scale_out/latency_us", o.latency_us);
  os << "\nCollective model (collective_model/...), nvls_enabled "
     << (c.collective.nvls_enabled ? "true" : "false") << "\n";
  visit_collective_fields(c.collective, [&](const std::string& path, const Fact& f, FieldRule) {
    fact_row(os, path, f);
  });
}

}  // namespace

const ViewSet<CollectiveReport>& collective_views() {
  static const ViewSet<CollectiveReport> views = {{"table", print_collective_table},
                                                  {"json", print_collective_json},
                                                  {"jsonl", print_collective_jsonl}};
  return views;
}

const ViewSet<std::vector<ClusterSpec>>& cluster_list_views() {
  static const ViewSet<std::vector<ClusterSpec>> views = {
      {"table", print_cluster_list},
      {"json", [](std::ostream& os, const std::vector<ClusterSpec>& all) {
         nlohmann::ordered_json j = nlohmann::ordered_json::array();
         for (const auto& c : all) j.push_back(cluster_json(c));
         os << j.dump(2) << "\n";
       }}};
  return views;
}

const ViewSet<ClusterSpec>& cluster_show_views() {
  static const ViewSet<ClusterSpec> views = {{"table", print_cluster_show},
                                             {"json", [](std::ostream& os, const ClusterSpec& c) {
                                                os << cluster_json(c).dump(2) << "\n";
                                              }}};
  return views;
}

}  // namespace ridgeline
