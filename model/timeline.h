// The schedule of a step: when every node of the graph runs, on which stream. Scheduling is its
// own step between costing the nodes (node_cost.h) and summarising them (prediction.h), and every
// view (table, JSON, CSV, trace) reads times from here instead of re-deriving them.
//
// schedule_section() places one repeat of a section: in launch order, a node starts when its
// stream is free and all its producers (the DAG's edges) have ended, so nodes of one stream run
// back to back and nodes of different streams overlap unless an edge orders them. With eager
// launch the host issues one node per `host_issue_us` on the host stream, running ahead of the
// GPU, and the repeat ends when both are done: the GPU waits for a slower host
// (max(device, host) per repeat; per-kernel issue dependencies are not modelled). Repeats and
// sections run one after another, so identical repeats (80 decoder blocks) are scheduled once
// and placed by offset: a Timeline holds one repeat's events per section, and for_each_event()
// yields every event of the step with its absolute times.
//
//   Timeline t = ...;  // Prediction::timeline
//   t.for_each_event([](const TimelineEvent& e) { e.node, e.layer, e.stream, e.start_us ... });
#pragma once

#include "workloads/op_graph.h"

#include <vector>

namespace ridgeline {

struct TimelineEvent {
  NodeId node;         // the node that runs (on the host stream: that it launches)
  int64_t repeat = 0;  // which repeat of its section
  int64_t layer = -1;  // decoder layer, -1 outside the decoder stack
  Stream stream = Stream::Compute;
  double start_us = 0, end_us = 0;  // from the start of the step (of the repeat, in a section)
};

// One section's schedule: its first repeat's events, with times from the repeat's start.
struct SectionTimeline {
  int64_t repeat = 1;
  int64_t first_layer = -1;
  double repeat_us = 0;      // one repeat, from its start until every stream is done
  double device_end_us = 0;  // one repeat: when the GPU's last node ends
  double host_end_us = 0;    // one repeat: when the host has issued its last launch (eager)
  // One repeat: the host's time before the GPU's first node while the GPU idles (a CUDA graph's
  // replay lead, graph_replay_lead()); the device events start after it, and device_end_us counts
  // the GPU's own time from it.
  double lead_us = 0;
  std::vector<TimelineEvent> events;  // launch order; a node's host launch before the node
};

struct Timeline {
  std::vector<SectionTimeline> sections;  // in step order, one per OpGraph section

  // f(section_index, repeat, layer, start_us, end_us) for every repeat of every section.
  template <class F>
  void for_each_repeat(F&& f) const;
  // f(event) for every event of the step, repeat by repeat, with times from the step's start.
  template <class F>
  void for_each_event(F&& f) const;
  std::vector<TimelineEvent> events() const;  // every event (for_each_event's), materialised
  bool uses(Stream s) const;                  // whether any event runs on s
};

// One repeat of `section` (OpGraph::sections[section_index]) on its streams. duration_us: each
// node's time, by vertex. host_issue_us: the host's time to launch one node (eager launch), 0
// when the GPU replays a CUDA graph (no host events).
SectionTimeline schedule_section(const GraphSection& section, int section_index,
                                 const std::vector<double>& duration_us, double host_issue_us);
// The same with a host time per launch (by vertex; eager launch with a runtime's host table,
// host_cost.h) after `host_lead_us` of host work that launches nothing (module calls).
SectionTimeline schedule_section(const GraphSection& section, int section_index,
                                 const std::vector<double>& duration_us, double host_lead_us,
                                 const std::vector<double>& host_launch_us);

// Puts `lead_us` of host time before the GPU's first node of a scheduled (graph-launched)
// section: a host event from 0 to lead_us for that node, the device events after it, the repeat
// that much longer (a runtime's graph_replay_us, runtime_profile.h). No-op for lead_us <= 0.
void graph_replay_lead(SectionTimeline& st, double lead_us);

template <class F>
void Timeline::for_each_repeat(F&& f) const {
  double t = 0;
  for (size_t i = 0; i < sections.size(); ++i) {
    const SectionTimeline& s = sections[i];
    for (int64_t r = 0; r < s.repeat; ++r) {
      f((int)i, r, s.first_layer >= 0 ? s.first_layer + r : -1, t, t + s.repeat_us);
      t += s.repeat_us;
    }
  }
}

template <class F>
void Timeline::for_each_event(F&& f) const {
  double t = 0;
  for (const SectionTimeline& s : sections) {
    for (int64_t r = 0; r < s.repeat; ++r) {
      for (TimelineEvent e : s.events) {
        e.repeat = r;
        e.layer = s.first_layer >= 0 ? s.first_layer + r : -1;
        e.start_us += t;
        e.end_us += t;
        f(e);
      }
      t += s.repeat_us;
    }
  }
}

}  // namespace ridgeline
