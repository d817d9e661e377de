// JSON and CSV views of a prediction. JSON holds total_us, tokens_per_s, time by bound, a
// per-layer list, a per-op list (every kernel of every layer: name, section, layer, time_us,
// bottleneck, flops, bytes by level, and from the timeline its stream and start_us in the step;
// impl where the op kind has implementations: the attention backend, aten/triton norms) and
// memory (weights, KV cache, activations, gradients, optimizer state, total, capacity, fits,
// max_batch).
#include "cli/views/interval_views.h"
#include "cli/views/predict_views.h"
#include "cli/views/views.h"
#include "workloads/op.h"

#include <nlohmann/json.hpp>

namespace ridgeline {

namespace {

nlohmann::ordered_json memory_json(const MemoryFootprint& m) {
  return {{"weights_bytes", m.weights_bytes},
          {"kv_cache_bytes", m.kv_cache_bytes},
          {"activation_bytes", m.activation_bytes},
          {"gradient_bytes", m.gradient_bytes},
          {"optimizer_bytes", m.optimizer_bytes},
          {"reserved_bytes", m.reserved_bytes},
          {"total_bytes", m.total()},
          {"capacity_bytes", m.capacity_bytes},
          {"fits", m.fits()},
          {"max_batch", m.max_batch}};
}

}  // namespace

void print_prediction_json(std::ostream& os, const Prediction& p) {
  nlohmann::ordered_json j;
  j["gpu"] = p.gpu;
  j["profile"] = p.gpu_profile;
  j["model"] = p.model;
  j["description"] = p.description;
  j["phase"] = phase_name(p.run.phase);
  j["launch"] = launch_name(p.run.launch);
  j["runtime"] = runtime_name(p.run.runtime);
  j["inputs"] = prediction_inputs_json(p);
  j["total_us"] = p.total_us;
  if (p.interval) j["interval"] = interval_json(*p.interval);
  j["tokens_per_s"] = p.tokens_per_s;
  j["kernels"] = p.kernels;
  j["flops"] = p.flops;
  j["hbm_bytes"] = p.hbm_bytes;
  for (int i = 0; i < kTimeClasses; ++i)
    if (time_class_shown(p.time_by_class_us, i))
      j["time_by_bound_us"][time_class_name(i)] = p.time_by_class_us[i];
  j["layers"] = nlohmann::ordered_json::array();
  p.timeline.for_each_repeat([&](int section, int64_t, int64_t layer, double, double) {
    j["layers"].push_back({{"section", p.sections[section].name},
                           {"layer", layer},
                           {"time_us", p.timeline.sections[section].repeat_us}});
  });
  j["ops"] = nlohmann::ordered_json::array();
  for_each_kernel(
      p, [&](const SectionPrediction& s, const TimelineEvent& e, const KernelPrediction& k) {
        j["ops"].push_back(
            {{"name", k.name},
             {"section", s.name},
             {"layer", e.layer},
             {"op", k.family},
             {"time_us", k.device_us},
             {"bottleneck", bottleneck_name(k.cost.bottleneck)},
             {"flops", k.cost.flops()},
             {"bytes",
              {{"hbm", k.cost.bytes.hbm}, {"l2", k.cost.bytes.l2}, {"smem", k.cost.bytes.smem}}},
             {"stream", stream_name(e.stream)},
             {"start_us", e.start_us}});
        if (k.cost.impl) j["ops"].back()["impl"] = k.cost.impl;  // where there is a choice
      });
  j["memory"] = memory_json(p.memory);
  os << j.dump(2) << "\n";
}

void print_prediction_csv(std::ostream& os, const Prediction& p) {
  // The run's inputs as comment lines (pandas: read_csv(..., comment="#")), then one row per
  // kernel of every layer, then a "total" row for the whole step.
  const nlohmann::ordered_json inputs = prediction_inputs_json(p);
  for (auto it = inputs.begin(); it != inputs.end(); ++it) {
    os << "# " << it.key() << "," << (it->is_string() ? it->get<std::string>() : it->dump())
       << "\n";
  }
  os << "section,layer,name,op,start_us,time_us,bottleneck,flops,bytes_hbm,bytes_l2,impl\n";
  double flops = 0, hbm = 0, l2 = 0;
  for_each_kernel(
      p, [&](const SectionPrediction& s, const TimelineEvent& e, const KernelPrediction& k) {
        os << s.name << "," << e.layer << "," << k.name << "," << k.family << ","
           << exact(e.start_us) << "," << exact(k.device_us) << ","
           << bottleneck_name(k.cost.bottleneck) << "," << exact(k.cost.flops()) << ","
           << exact(k.cost.bytes.hbm) << "," << exact(k.cost.bytes.l2) << ","
           << (k.cost.impl ? k.cost.impl : "") << "\n";
        flops += k.cost.flops();
        hbm += k.cost.bytes.hbm;
        l2 += k.cost.bytes.l2;
      });
  os << "total,-1,step,step,0," << exact(p.total_us) << ",-," << exact(flops) << "," << exact(hbm)
     << "," << exact(l2) << ",\n";
}

}  // namespace ridgeline
