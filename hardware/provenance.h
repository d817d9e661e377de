// Where a hardware figure came from. Every number in a GPU description carries one of these,
// written in the JSON as `"source": "<kind>: <text>"`:
//   datasheet: NVIDIA H100 whitepaper, Table 3
//   measured: H100 SXM5, 2026-11-29: ridgeline validate/measure, 8 GB D2D copy
//   fitted: H100 SXM5, 2026-11-29: least squares over the fit split of validate/data/...
//   published: te42kyfo/gpu-benches gpu-l2-cache, H100 PCIe (someone else's measurement)
//   assumed: prior from shared/reference/microbenchmarks.md C5
//   derived: 132 SMs x 4096 FLOP/clk x 1830 MHz
//   what-if: --set memory.hbm.bandwidth_GBps=4800
// "measured" and "fitted" must name a date (YYYY-MM-DD), so a reader can judge their age.
#pragma once

#include <string>

namespace ridgeline {

enum class SourceKind { Datasheet, Measured, Fitted, Published, Assumed, Derived, WhatIf };

struct Provenance {
  SourceKind kind = SourceKind::Assumed;
  std::string text;  // everything after "<kind>: "
};

// A number with its provenance.
struct Fact {
  double value = 0;
  Provenance source;
};

const char* source_kind_name(SourceKind kind);
// Parses "<kind>: <text>"; returns an error message (empty on success) instead of throwing,
// so the caller can name the JSON path.
std::string parse_provenance(const std::string& text, Provenance& out);
std::string to_string(const Provenance& p);

}  // namespace ridgeline
