// Chrome / Perfetto trace of a predicted step (Trace Event Format, "X" complete events, times in
// microseconds), drawn from the prediction's Timeline: one track (thread) per stream that has
// events, "compute stream" (tid 1), "comm stream" (tid 2) and "host" (tid 3: the CPU's eager
// launches), with one slice per node of every layer, and a "layers" track (tid 4) with one
// slice per layer (or section). Open the file in ui.perfetto.dev or chrome://tracing.
#include "cli/views/predict_views.h"

#include <nlohmann/json.hpp>

namespace ridgeline {

namespace {

constexpr int kLayersTid = kStreams + 1;

int stream_tid(Stream s) {
  return 1 + (int)s;
}

std::string track_name(Stream s) {
  return s == Stream::Host ? "host" : std::string(stream_name(s)) + " stream";
}

nlohmann::ordered_json track(int tid, const std::string& name) {
  return {
      {"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", {{"name", name}}}};
}

nlohmann::ordered_json slice(const Prediction& p, const TimelineEvent& e) {
  const KernelPrediction& k = p.kernel(e.node);
  nlohmann::ordered_json args{{"layer", e.layer}};
  if (e.stream != Stream::Host) {
    args = {{"bottleneck", bottleneck_name(k.cost.bottleneck)},
            {"flops", k.cost.flops()},
            {"hbm_bytes", k.cost.bytes.hbm},
            {"layer", e.layer}};
  }
  return {{"name", k.name},
          {"cat", e.stream == Stream::Host ? "launch" : k.family},
          {"ph", "X"},
          {"pid", 1},
          {"tid", stream_tid(e.stream)},
          {"ts", e.start_us},
          {"dur", e.end_us - e.start_us},
          {"args", args}};
}

}  // namespace

void write_chrome_trace(std::ostream& os, const Prediction& p) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"args", {{"name", p.gpu + ": " + p.description}}}});
  for (Stream s : {Stream::Compute, Stream::Comm, Stream::Host}) {
    if (p.timeline.uses(s)) events.push_back(track(stream_tid(s), track_name(s)));
  }
  events.push_back(track(kLayersTid, "layers"));
  p.timeline.for_each_repeat([&](int section, int64_t, int64_t layer, double start_us,
                                 double end_us) {
    std::string label = layer >= 0 ? "layer " + std::to_string(layer) : p.sections[section].name;
    events.push_back({{"name", label},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", kLayersTid},
                      {"ts", start_us},
                      {"dur", end_us - start_us}});
  });
  p.timeline.for_each_event([&](const TimelineEvent& e) { events.push_back(slice(p, e)); });
  nlohmann::ordered_json doc{{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  os << doc.dump() << "\n";
}

}  // namespace ridgeline
