// Views of a prediction on many GPUs (`ridgeline predict --cluster`): table, JSON and a Perfetto
// trace with a track per (pipeline stage, stream). See parallel_views.cpp.
#pragma once

#include "cli/views/predict_views.h"
#include "model/parallel_predict.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace ridgeline {

// How MFU's model FLOPs are counted (model/parallel_predict.h), as the JSON states it.
inline constexpr const char* kMfuFormula =
    "model FLOPs / (total_us * gpus * peak): train 3 x (2 N_active tokens + 4 layers tokens seq "
    "heads head_dim / 2 (causal)), inference the forward alone; tokens = global batch x seq; N "
    "counts the LM head, not the embedding lookup; recomputation excluded";

// A parallel configuration as `predict --cluster` (its inputs), `search` and `compare` (each
// strategy) print it in JSON (one shape): the degrees, batches, schedule, recomputation and the
// strategy's one-line text.
nlohmann::ordered_json parallel_config_json(const ParallelConfig& p);
// The communication groups in the order every view lists them.
inline constexpr CommGroup kListedCommGroups[] = {CommGroup::Tp, CommGroup::Pp, CommGroup::Dp,
                                                  CommGroup::Cp, CommGroup::Ep};
// Times per communication group (tp, pp, dp, cp, ep), in one shape for every JSON view.
nlohmann::ordered_json groups_json(const GroupTimes& t);
// Times per stream (compute, comm, host), in one shape for every JSON view.
nlohmann::ordered_json streams_json(const std::array<double, kStreams>& t);

// Memory per GPU as `predict --cluster`, `search` and `compare` print it in JSON (one shape).
nlohmann::ordered_json memory_per_gpu_json(const ParallelMemory& f);

// `interval`: the 80% interval of total_us (validate/output_intervals.h), printed when given.
void print_parallel_table(std::ostream& os, const ParallelPrediction& p,
                          const PredictionInterval* interval = nullptr);
void print_parallel_json(std::ostream& os, const ParallelPrediction& p, const RunSubject& subject,
                         const PredictionInterval* interval = nullptr);
void write_parallel_trace(std::ostream& os, const ParallelPrediction& p);

}  // namespace ridgeline
