// The timed fields of a strategy row, in output order, written once for the three places that
// move them: the search/compare JSON view (search_views.cpp: streams and groups by name), and
// the search shard records (cli/search_records.cpp: arrays), written and read back. A field added
// here appears in all three.
#pragma once

#include "model/parallel_predict.h"

namespace ridgeline {

// `P` is ParallelPrediction, const to write; `V` has v(key, double) for a number, and
// v.streams(key, times) and v.groups(key, times) for the per-stream and per-group arrays.
template <class P, class V>
void prediction_fields(P& p, V& v) {
  v("total_us", p.total_us);
  v("mfu", p.mfu);
  v("tokens_per_s", p.tokens_per_s);
  v("bubble_fraction", p.bubble_fraction);
  v.streams("time_by_stream_us", p.time_by_stream_us);
  v.groups("comm_us", p.comm_us);
  v.groups("exposed_comm_us", p.exposed_comm_us);
}

}  // namespace ridgeline
