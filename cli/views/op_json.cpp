// JSON and JSONL views of `ridgeline op` results. Field names follow the contract in
// ARCHITECTURE.md: id, time_us, bottleneck, flops, bytes (by level), plus the terms of the
// model and the launch shape so that a user can see why, and the 80% interval of time_us
// (validate/intervals.h) where the interval table has one for the op's category.
#include "cli/views/interval_views.h"
#include "cli/views/views.h"
#include "workloads/op.h"

namespace ridgeline {

nlohmann::ordered_json op_result_json(const OpResult& r) {
  nlohmann::ordered_json j;
  j["id"] = r.id;
  if (!r.error.empty() || !r.cost) {
    j["error"] = r.error;
    return j;
  }
  const OpCost& c = *r.cost;
  j["op"] = op_family(*r.op);
  j["time_us"] = c.time_us;
  if (r.interval) j["interval"] = interval_json(*r.interval);
  j["bottleneck"] = bottleneck_name(c.bottleneck);
  j["flops"] = c.flops();
  j["flops_by_unit"] = {
      {"matrix", c.matrix_flops}, {"vector", c.vector_flops}, {"sfu_ops", c.sfu_ops}};
  j["bytes"] = {{"hbm", c.bytes.hbm}, {"l2", c.bytes.l2}, {"smem", c.bytes.smem}};
  j["terms_us"] = {{"compute", c.compute_us},
                   {"hbm", c.hbm_us},
                   {"l2", c.l2_us},
                   {"smem", c.smem_us},
                   {"overhead", c.overhead_us}};
  j["roofline_us"] = c.roofline_us;
  j["achieved_tflops"] = c.flops() / c.time_us / 1e6;
  j["achieved_hbm_GBps"] = c.bytes.hbm / c.time_us / 1e3;
  const LaunchShape& d = c.detail;
  j["launch"] = {{"tile_m", d.tile_m},
                 {"tile_n", d.tile_n},
                 {"split", d.split},
                 {"ctas", d.ctas},
                 {"waves", d.waves},
                 {"wave_efficiency", d.wave_efficiency},
                 {"alignment_bytes", d.alignment_bytes},
                 {"active_sms", d.active_sms},
                 {"l2_hit_fraction", d.l2_hit_fraction}};
  return j;
}

void print_op_jsonl(std::ostream& os, const std::vector<OpResult>& results) {
  for (const auto& r : results) os << op_result_json(r).dump() << "\n";
}

void print_op_json(std::ostream& os, const GpuSpec& gpu, const std::vector<OpResult>& results) {
  nlohmann::ordered_json j;
  j["gpu"] = gpu.name;
  j["what_ifs"] = what_if_labels(gpu);
  j["profile"] = gpu.profile;
  j["results"] = nlohmann::ordered_json::array();
  for (const auto& r : results) j["results"].push_back(op_result_json(r));
  os << j.dump(2) << "\n";
}

}  // namespace ridgeline
