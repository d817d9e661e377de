// Lookups in a per-rank graph (workloads/sharding.h) for the sharding tests: a section by kind,
// the first node of a role, and the collectives by (group, purpose), each checked to sit on the
// communication stream and every other kernel on the compute stream.
#pragma once

#include "test_helpers.h"
#include "workloads/sharding.h"

#include <map>

namespace ridgeline::test {

inline const GraphSection& section(const OpGraph& g, SectionKind k) {
  for (const auto& s : g.sections)
    if (s.kind == k) return s;
  FAIL("no such section");
  return g.sections.front();
}

inline const GraphNode& find(const GraphSection& s, const KernelRole& role) {
  for (OpVertex v : launch_order(s))
    if (s.dag()[v].role == role) return s.dag()[v];
  FAIL("no node with role " << role_name(role));
  return s.dag()[0];
}

inline std::map<std::pair<CommGroup, CommPurpose>, int> collectives(const GraphSection& s) {
  std::map<std::pair<CommGroup, CommPurpose>, int> out;
  for (OpVertex v : launch_order(s)) {
    const GraphNode& n = s.dag()[v];
    if (n.role.kind != RoleKind::Collective) {
      CHECK(n.stream == Stream::Compute);
      continue;
    }
    CHECK(n.stream == Stream::Comm);
    ++out[{n.role.group, n.role.purpose}];
  }
  return out;
}

}  // namespace ridgeline::test
