// Perfetto / Chrome trace of a serving run: process 1 "engine" with one slice a step (name
// "prefill+decode" / "decode" / "prefill", args: tokens, decodes, prefills, running, waiting,
// kv_used; under pipeline parallelism a step is a batch from launch to return, on the track of
// its slot: batches in flight together overlap, each slot's never do), and process 2 "requests"
// with one track a request: "queued" from arrival to its first step, "prefill" to its first token,
// "decode" to its finish. Times in microseconds. Events are written one at a time (the bytes of one
// dump() of the whole document), so that the requests come from the run's request log without a
// document of all of them in memory.
#include "cli/views/serve_views.h"

#include <nlohmann/json.hpp>

namespace ridgeline {

void write_serve_trace(std::ostream& os, const ServeSubject& s, const ServeRun& run) {
  using ojson = nlohmann::ordered_json;
  bool first = true;
  auto emit = [&](const ojson& e) {
    os << (first ? "{\"traceEvents\":[" : ",") << e.dump();
    first = false;
  };
  emit({{"name", "process_name"},
        {"ph", "M"},
        {"pid", 1},
        {"args", {{"name", s.engine + " engine on " + s.gpu + ": " + s.model}}}});
  emit({{"name", "process_name"}, {"ph", "M"}, {"pid", 2}, {"args", {{"name", "requests"}}}});
  for (const StepRecord& st : run.sim.steps) {
    std::string name = st.prefills && st.decodes ? "prefill+decode"
                       : st.prefills             ? "prefill"
                                                 : "decode";
    emit({{"name", name},
          {"ph", "X"},
          {"pid", 1},
          {"tid", st.slot + 1},
          {"ts", st.start_s * 1e6},
          {"dur", (st.end_s - st.start_s) * 1e6},
          {"args",
           {{"tokens", st.tokens},
            {"padded_tokens", st.padded_tokens},
            {"decodes", st.decodes},
            {"prefills", st.prefills},
            {"running", st.running},
            {"waiting", st.waiting},
            {"kv_used", st.kv_used}}}});
  }
  for_each_request(run, [&](const RequestRecord& q) {
    int tid = (int)q.id + 1;
    auto slice = [&](const char* name, double a, double b) {
      emit({{"name", name},
            {"ph", "X"},
            {"pid", 2},
            {"tid", tid},
            {"ts", a * 1e6},
            {"dur", (b - a) * 1e6},
            {"args",
             {{"id", q.id},
              {"input_tokens", q.input_tokens},
              {"output_tokens", q.output_tokens},
              {"preemptions", q.preemptions}}}});
    };
    slice("queued", q.arrival_s, q.first_scheduled_s);
    slice("prefill", q.first_scheduled_s, q.first_token_s);
    slice("decode", q.first_token_s, q.finish_s);
  });
  os << "],\"displayTimeUnit\":\"ms\"}\n";
}

}  // namespace ridgeline
