// The scheduler (see timeline.h): a list schedule of one section repeat over its streams, in
// launch order. On one stream with edges only to earlier nodes it reduces to kernels back to
// back, start = the previous kernel's end, which is the sum the single-stream model always used.
#include "model/timeline.h"

#include "common/errors.h"

#include <algorithm>
#include <array>

namespace ridgeline {

namespace {

bool on_device(Stream s) {
  return s != Stream::Host;
}

}  // namespace

SectionTimeline schedule_section(const GraphSection& section, int section_index,
                                 const std::vector<double>& duration_us, double host_issue_us) {
  const OpDag& dag = section.dag();
  require_invariant(duration_us.size() == boost::num_vertices(dag),
                    "schedule_section: one duration per node");
  SectionTimeline st;
  st.repeat = section.repeat;
  st.first_layer = section.first_layer;
  std::array<double, kStreams> free_at{};  // when each stream is next free
  std::vector<double> end(duration_us.size(), 0);
  st.events.reserve(duration_us.size() * (host_issue_us > 0 ? 2 : 1));
  int64_t launches = 0;
  for (OpVertex v : launch_order(section)) {
    const Stream stream = dag[v].stream;
    const NodeId id{section_index, v};
    if (host_issue_us > 0) {
      require_invariant(on_device(stream), "schedule_section: eager launch of a host node");
      // The host issues launch after launch; the GPU's order is unchanged (see timeline.h).
      st.events.push_back({id, 0, st.first_layer, Stream::Host, host_issue_us * (double)launches,
                           host_issue_us * (double)(launches + 1)});
      ++launches;
    }
    double start = free_at[(int)stream];
    auto [in, in_end] = boost::in_edges(v, dag);
    for (; in != in_end; ++in) start = std::max(start, end[boost::source(*in, dag)]);
    end[v] = start + duration_us[v];
    free_at[(int)stream] = end[v];
    st.events.push_back({id, 0, st.first_layer, stream, start, end[v]});
    if (on_device(stream)) st.device_end_us = std::max(st.device_end_us, end[v]);
  }
  st.host_end_us = std::max(free_at[(int)Stream::Host], host_issue_us * (double)launches);
  st.repeat_us = std::max(st.device_end_us, st.host_end_us);
  return st;
}

SectionTimeline schedule_section(const GraphSection& section, int section_index,
                                 const std::vector<double>& duration_us, double host_lead_us,
                                 const std::vector<double>& host_launch_us) {
  const OpDag& dag = section.dag();
  require_invariant(
      duration_us.size() == boost::num_vertices(dag) && host_launch_us.size() == duration_us.size(),
      "schedule_section: one duration and one host launch per node");
  SectionTimeline st;
  st.repeat = section.repeat;
  st.first_layer = section.first_layer;
  std::array<double, kStreams> free_at{};
  std::vector<double> end(duration_us.size(), 0);
  st.events.reserve(duration_us.size() * 2);
  double host = host_lead_us;  // the host's clock: its next launch starts here
  for (OpVertex v : launch_order(section)) {
    const Stream stream = dag[v].stream;
    const NodeId id{section_index, v};
    require_invariant(on_device(stream), "schedule_section: eager launch of a host node");
    st.events.push_back({id, 0, st.first_layer, Stream::Host, host, host + host_launch_us[v]});
    host += host_launch_us[v];
    double start = free_at[(int)stream];
    auto [in, in_end] = boost::in_edges(v, dag);
    for (; in != in_end; ++in) start = std::max(start, end[boost::source(*in, dag)]);
    end[v] = start + duration_us[v];
    free_at[(int)stream] = end[v];
    st.events.push_back({id, 0, st.first_layer, stream, start, end[v]});
    st.device_end_us = std::max(st.device_end_us, end[v]);
  }
  st.host_end_us = host;
  st.repeat_us = std::max(st.device_end_us, st.host_end_us);
  return st;
}

void graph_replay_lead(SectionTimeline& st, double lead_us) {
  if (lead_us <= 0 || st.events.empty()) return;
  for (TimelineEvent& e : st.events) {
    e.start_us += lead_us;
    e.end_us += lead_us;
  }
  TimelineEvent host = st.events.front();
  host.stream = Stream::Host;
  host.start_us = 0;
  host.end_us = lead_us;
  st.events.insert(st.events.begin(), host);
  st.lead_us = lead_us;
  st.host_end_us = std::max(st.host_end_us, lead_us);
  st.repeat_us += lead_us;
}

std::vector<TimelineEvent> Timeline::events() const {
  std::vector<TimelineEvent> all;
  for_each_event([&](const TimelineEvent& e) { all.push_back(e); });
  return all;
}

bool Timeline::uses(Stream s) const {
  for (const SectionTimeline& st : sections) {
    for (const TimelineEvent& e : st.events)
      if (e.stream == s) return true;
  }
  return false;
}

}  // namespace ridgeline
