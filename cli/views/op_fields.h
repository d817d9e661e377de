// The fields of one `ridgeline op` result, in output order, written once for two writers: the
// nlohmann builder behind op_result_json (the JSON view, the CSV and the Python package) and
// the direct text writer of the JSONL view (op_jsonl_writer.cpp), which prints the same bytes
// as nlohmann's dump() ~10x faster. A field added here appears in both.
#pragma once

#include "cli/op_runner.h"
#include "cli/views/interval_views.h"
#include "workloads/op.h"

namespace ridgeline {

// `Out` has field(key, value) for strings, integers and doubles, and begin(key) / end() around
// a nested object.
// A predicted op: `interval` (of c.time_us) may be null.
template <class Out>
void op_cost_fields(const std::string& id, const Op& op, const OpCost& c,
                    const PredictionInterval* interval, Out& o) {
  o.field("id", id);
  o.field("op", op_family(op));
  if (c.impl) o.field("impl", c.impl);  // the implementation that ran, where there is a choice
  o.field("time_us", c.time_us);
  if (interval) {  // the 80% interval of time_us (validate/intervals.h)
    o.begin("interval");
    interval_fields(*interval, o);
    o.end();
  }
  o.field("bottleneck", bottleneck_name(c.bottleneck));
  o.field("flops", c.flops());
  o.begin("flops_by_unit");
  o.field("matrix", c.matrix_flops);
  o.field("vector", c.vector_flops);
  o.field("sfu_ops", c.sfu_ops);
  o.end();
  o.begin("bytes");
  o.field("hbm", c.bytes.hbm);
  o.field("l2", c.bytes.l2);
  o.field("smem", c.bytes.smem);
  o.end();
  o.begin("terms_us");
  o.field("compute", c.compute_us);
  o.field("hbm", c.hbm_us);
  o.field("l2", c.l2_us);
  o.field("smem", c.smem_us);
  o.field("overhead", c.overhead_us);
  o.end();
  o.field("roofline_us", c.roofline_us);
  o.field("achieved_tflops", c.flops() / c.time_us / 1e6);
  o.field("achieved_hbm_GBps", c.bytes.hbm / c.time_us / 1e3);
  const LaunchShape& d = c.detail;
  o.begin("launch");
  o.field("tile_m", d.tile_m);
  o.field("tile_n", d.tile_n);
  o.field("split", d.split);
  o.field("ctas", d.ctas);
  o.field("waves", d.waves);
  o.field("wave_efficiency", d.wave_efficiency);
  o.field("alignment_bytes", d.alignment_bytes);
  o.field("active_sms", d.active_sms);
  o.field("l2_hit_fraction", d.l2_hit_fraction);
  o.end();
}

template <class Out>
void op_result_fields(const OpResult& r, Out& o) {
  if (!r.error.empty() || !r.cost) {
    o.field("id", r.id);
    o.field("error", r.error);
    return;
  }
  op_cost_fields(r.id, *r.op, *r.cost, r.interval ? &*r.interval : nullptr, o);
}

}  // namespace ridgeline
