// Views of a serving run and of a capacity search (they print; the numbers come from serve/).
//   table: a summary for people; json: the contract of ARCHITECTURE.md "Serving"; csv: one row a
//   request; trace: Perfetto/Chrome trace events, one track of engine steps (with batch sizes
//   and KV use) and one slice a request from arrival to finish (first token marked).
#pragma once

#include "serve/capacity.h"
#include "serve/serve_run.h"
#include "validate/output_intervals.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

struct ServeSubject {
  std::string gpu, model, engine, engine_file, precision, arrivals, workload;
  int64_t seed = 0;
};

// A run's finished requests in id order: its RequestLog (a streaming `serve`), else sim.requests.
void for_each_request(const ServeRun& run, const std::function<void(const RequestRecord&)>& f);
// Words on how the percentiles were taken when not exactly ("" when exact).
std::string percentile_note(const ServeReport& r);

// `intervals`: the run's 80% intervals (validate/output_intervals.h), printed when given.
void print_serve_table(std::ostream& os, const ServeSubject& s, const ServeRun& r,
                       const ServingIntervals* intervals = nullptr);
void print_serve_json(std::ostream& os, const ServeSubject& s, const ServeRun& r,
                      const ServingIntervals* intervals = nullptr);
void print_serve_csv(std::ostream& os, const ServeRun& r);
void write_serve_trace(std::ostream& os, const ServeSubject& s, const ServeRun& r);

struct CapacityRow {
  ServeSubject subject;
  CapacityResult result;
};
// The pieces of the capacity views, a head and one row a configuration (streamed and sharded by
// cli/row_output.h; the JSON rows go under "configurations").
// The gpu column is as wide as the widest of `labels` (the rows' subject.gpu), 13 at least.
int capacity_gpu_width(const std::vector<std::string>& labels);
std::string capacity_table_head(const std::string& slo, double target, int gpu_width);
std::string capacity_table_row(const CapacityRow& row, int gpu_width);
nlohmann::ordered_json capacity_json_head(const std::string& slo, double target);
nlohmann::ordered_json capacity_json_row(const CapacityRow& row);

void print_capacity_table(std::ostream& os, const std::vector<CapacityRow>& rows,
                          const std::string& slo, double target);
void print_capacity_json(std::ostream& os, const std::vector<CapacityRow>& rows,
                         const std::string& slo, double target);

}  // namespace ridgeline
