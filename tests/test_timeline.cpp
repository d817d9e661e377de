// Scheduler rules (model/timeline.h): a node starts after all its producers end; independent
// nodes of different streams overlap and nodes of one stream serialise; an eager repeat takes
// the slower of the host's launches and the GPU's work; repeats are placed by offset; and a
// prediction names its nodes by id and reads every time from its timeline.
#include "model/node_cost.h"
#include "model/prediction.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"

#include <sstream>

using namespace ridgeline;

namespace {

// A section of nodes with the given streams; edges are added by the test.
GraphSection section_of(std::initializer_list<Stream> streams) {
  GraphSection s(SectionKind::DecoderBlock, "s", 1, -1);
  int i = 0;
  for (Stream st : streams) {
    OpVertex v =
        add_kernel(s, role::gemm(Projection::Q), std::to_string(i++), test::gemm(64, 64, 64), {});
    s.dag()[v].stream = st;
  }
  return s;
}

void edge(GraphSection& s, OpVertex from, OpVertex to) {
  boost::add_edge(from, to, s.dag());
}

const TimelineEvent& event_of(const SectionTimeline& t, OpVertex v, Stream s) {
  for (const auto& e : t.events)
    if (e.node.vertex == v && e.stream == s) return e;
  FAIL("no event for the node on that stream");
  return t.events.front();
}

}  // namespace

TEST_CASE("timeline: a node starts when the last of its producers ends", "[timeline]") {
  // n0 (compute, 5 us) and n1 (comm, 9 us) both feed n2 (compute).
  GraphSection s = section_of({Stream::Compute, Stream::Comm, Stream::Compute});
  edge(s, 0, 2);
  edge(s, 1, 2);
  SectionTimeline t = schedule_section(s, 0, {5, 9, 2}, 0);
  CHECK(event_of(t, 2, Stream::Compute).start_us == 9);  // waits for the comm producer
  CHECK(event_of(t, 2, Stream::Compute).end_us == 11);
  CHECK(t.repeat_us == 11);
  // The other side: a shorter comm producer leaves the compute stream's order in charge.
  SectionTimeline u = schedule_section(s, 0, {5, 3, 2}, 0);
  CHECK(event_of(u, 2, Stream::Compute).start_us == 5);
}

TEST_CASE("timeline: independent nodes overlap on different streams, serialise on one",
          "[timeline]") {
  GraphSection two = section_of({Stream::Compute, Stream::Comm});
  SectionTimeline t = schedule_section(two, 0, {4, 6}, 0);
  CHECK(event_of(t, 0, Stream::Compute).start_us == 0);
  CHECK(event_of(t, 1, Stream::Comm).start_us == 0);  // overlaps n0
  CHECK(t.repeat_us == 6);

  GraphSection one = section_of({Stream::Compute, Stream::Compute});
  SectionTimeline u = schedule_section(one, 0, {4, 6}, 0);
  CHECK(event_of(u, 1, Stream::Compute).start_us == 4);  // after n0, though it does not read it
  CHECK(u.repeat_us == 10);
  CHECK(u.device_end_us == 10);
  CHECK(u.host_end_us == 0);  // graph launch: no host events
  CHECK(u.events.size() == 2);
}

TEST_CASE("timeline: an eager repeat takes the host's time when the host is slower", "[timeline]") {
  GraphSection s = section_of({Stream::Compute, Stream::Compute, Stream::Compute});
  // 3 launches of 5 us each against 3 us of GPU work: the host's 15 us.
  SectionTimeline slow_host = schedule_section(s, 0, {1, 1, 1}, 5);
  CHECK(slow_host.repeat_us == 15);
  CHECK(slow_host.device_end_us == 3);
  CHECK(event_of(slow_host, 2, Stream::Host).start_us == 10);
  CHECK(event_of(slow_host, 2, Stream::Host).end_us == 15);
  CHECK(slow_host.events.size() == 6);  // a launch and a kernel per node
  // Just faster than the GPU (3 x 0.9 us < 3 us): the GPU's time.
  SectionTimeline fast_host = schedule_section(s, 0, {1, 1, 1}, 0.9);
  CHECK(fast_host.repeat_us == 3);
  CHECK(fast_host.host_end_us == Approx(2.7));
}

TEST_CASE("timeline: repeats and sections are placed one after another by offset", "[timeline]") {
  GraphSection a = section_of({Stream::Compute, Stream::Compute});
  a.repeat = 3;
  a.first_layer = 0;
  GraphSection b = section_of({Stream::Compute});
  Timeline t;
  t.sections.push_back(schedule_section(a, 0, {1, 2}, 0));
  t.sections.push_back(schedule_section(b, 1, {4}, 0));
  std::vector<TimelineEvent> all = t.events();
  REQUIRE(all.size() == 7);  // one repeat's events are kept, every repeat's are yielded
  CHECK(t.sections[0].events.size() == 2);
  CHECK(all[2].node == NodeId{0, 0});
  CHECK(all[2].repeat == 1);
  CHECK(all[2].layer == 1);
  CHECK(all[3].start_us == 4);  // n1 of layer 1: 3 us into its repeat at 3 us
  CHECK(all[3].end_us == 6);
  CHECK(all[6].node == NodeId{1, 0});
  CHECK(all[6].layer == -1);
  CHECK(all[6].start_us == 9);
  std::vector<double> starts;
  t.for_each_repeat([&](int, int64_t, int64_t, double start, double) { starts.push_back(start); });
  CHECK(starts == std::vector<double>{0, 3, 6, 9});
  CHECK(t.uses(Stream::Compute));
  CHECK(!t.uses(Stream::Host));
}

TEST_CASE("timeline: a prediction's kernels and events name their nodes by id", "[timeline]") {
  const ModelConfig m =
      load_model(std::string(RIDGELINE_SOURCE_DIR) + "/examples/models/tiny-llama.json");
  RunConfig r;
  r.phase = Phase::Decode;
  r.batch = 1;
  r.kv_len = 128;
  r.launch = LaunchMode::Eager;
  OpGraph g = build_graph(m, r);
  Prediction p = predict_workload(g, m, r, test::h100());
  int host = 0, device = 0;
  p.timeline.for_each_event([&](const TimelineEvent& e) {
    const KernelPrediction& k = p.kernel(e.node);
    CHECK(k.node == e.node);
    CHECK(k.name == node(g, e.node).name);
    (e.stream == Stream::Host ? host : device)++;
  });
  CHECK(host == device);  // eager: one launch on the host per kernel
  // The tiny model's kernels are shorter than a launch: every repeat is the host's time.
  for (size_t i = 0; i < p.sections.size(); ++i) {
    CHECK(p.sections[i].repeat_us == p.timeline.sections[i].host_end_us);
    CHECK(p.sections[i].repeat_us > p.sections[i].device_us);
  }
  CHECK_THROWS_AS(node(g, NodeId{(int)g.sections.size(), 0}), InternalError);
  CHECK_THROWS_AS(node(g, NodeId{0, boost::num_vertices(g.sections[0].dag())}), InternalError);
}

TEST_CASE("timeline: a kernel after its producer on its stream runs warm, else cold",
          "[timeline]") {
  GraphSection s(SectionKind::DecoderBlock, "s", 1, -1);
  Op add = test::elementwise(ElementwiseKind::Add, 1 << 20);
  OpVertex a = add_kernel(s, role::residual_add(), "a", add, {});
  OpVertex b = add_kernel(s, role::residual_add(), "b", add, {a});  // reads a: warm
  add_kernel(s, role::residual_add(), "c", add, {a});  // does not read b, launched after it: cold
  GemmMemo memo;
  std::vector<OpCost> c = cost_section(s, test::h100(), memo);
  CHECK(c[b].time_us < c[2].time_us);
  CHECK(c[a].time_us == c[b].time_us);  // the first kernel reads what the last section wrote
}

TEST_CASE("timeline: a graph replay lead puts host time before the GPU's first node",
          "[timeline][rule]") {
  GraphSection s = section_of({Stream::Compute, Stream::Compute});
  edge(s, 0, 1);
  SectionTimeline t = schedule_section(s, 0, {4, 6}, 0);
  graph_replay_lead(t, 3);
  CHECK(t.lead_us == 3);
  CHECK(t.repeat_us == Approx(13));
  CHECK(t.device_end_us == Approx(10));  // the GPU's own time, counted from the lead
  CHECK(t.host_end_us == 3);
  CHECK(t.events.front().stream == Stream::Host);
  CHECK(t.events.front().node.vertex == 0);  // the first node's launch
  CHECK(t.events.front().end_us == 3);
  CHECK(event_of(t, 0, Stream::Compute).start_us == Approx(3));
  CHECK(event_of(t, 1, Stream::Compute).end_us == Approx(13));
  SectionTimeline u = schedule_section(s, 0, {4, 6}, 0);
  graph_replay_lead(u, 0);  // no lead: unchanged, no host event
  CHECK(u.repeat_us == Approx(10));
  CHECK(u.events.size() == 2);
}
