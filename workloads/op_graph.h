// The operator graph of a workload: sections (embedding, one decoder block, head, optimizer),
// each a Boost.Graph DAG of kernels run `repeat` times in a row. Identical decoder blocks are
// one section with repeat = layers, so a 126-layer model is as cheap to predict as one layer,
// while views can still list every kernel of every layer. Every node has a typed role and every
// section a typed kind (kernel_role.h); names are for display only.
#pragma once

#include "workloads/kernel_role.h"
#include "workloads/op.h"

#include <boost/graph/adjacency_list.hpp>

#include <memory>
#include <string>
#include <vector>

namespace ridgeline {

// The stream a node runs on. Kernels of one stream run one after another; nodes of different
// streams overlap unless an edge orders them (model/timeline.h schedules them). Compute: the
// GPU's kernels (every builder's nodes today); comm: collectives, beside compute; host: the
// CPU's work (the scheduler puts eager launches there).
enum class Stream { Compute, Comm, Host };
constexpr int kStreams = 3;
const char* stream_name(Stream s);  // "compute", "comm", "host"

struct GraphNode {
  std::string name;  // e.g. "q_proj", "attention", "mlp.down_proj.dgrad"; display only
  Op op;
  Stream stream = Stream::Compute;
  KernelRole role;  // what the kernel is for; decides numbers where the name never does
};

using OpDag = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, GraphNode>;
using OpVertex = boost::graph_traits<OpDag>::vertex_descriptor;

struct GraphSection {
  SectionKind kind = SectionKind::DecoderBlock;
  std::string name;  // for display: "embedding", "decoder_block", "head", "optimizer", ...
  int64_t repeat = 1;
  int64_t first_layer = -1;  // layer index of the first repeat, -1 outside the decoder stack

  GraphSection() = default;
  GraphSection(SectionKind kind_, std::string name_, int64_t repeat_, int64_t first_layer_)
      : kind(kind_), name(std::move(name_)), repeat(repeat_), first_layer(first_layer_) {}
  // Boost's adjacency_list has no real move (its swap copies), so the DAG lives on the heap:
  // sections move for the price of a pointer and copy deeply.
  GraphSection(const GraphSection& o)
      : kind(o.kind),
        name(o.name),
        repeat(o.repeat),
        first_layer(o.first_layer),
        dag_(std::make_unique<OpDag>(*o.dag_)) {}
  GraphSection& operator=(const GraphSection& o) {
    if (this != &o) *this = GraphSection(o);
    return *this;
  }
  GraphSection(GraphSection&&) noexcept = default;
  GraphSection& operator=(GraphSection&&) noexcept = default;

  OpDag& dag() { return *dag_; }
  const OpDag& dag() const { return *dag_; }

 private:
  std::unique_ptr<OpDag> dag_ = std::make_unique<OpDag>();
};

struct OpGraph {
  std::string description;
  std::vector<GraphSection> sections;
};

// A node of a graph: its section's index in OpGraph::sections and its vertex in that section's
// DAG. Predictions and timelines refer to nodes this way, never by pointer.
struct NodeId {
  int section = 0;
  OpVertex vertex = 0;
  bool operator==(const NodeId&) const = default;
};
const GraphNode& node(const OpGraph& graph, NodeId id);  // throws when id is not in graph

// Adds a kernel with its role to `section`, after `after` (its producers); returns its vertex.
OpVertex add_kernel(GraphSection& section, const KernelRole& role, const std::string& name,
                    const Op& op, const std::vector<OpVertex>& after);
// The kernels of a section in launch order (a topological order that keeps insertion order).
std::vector<OpVertex> launch_order(const GraphSection& section);

}  // namespace ridgeline
