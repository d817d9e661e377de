// Views of a prediction on many GPUs (model/parallel_predict.h): a table for people, JSON for
// tools, and a Chrome / Perfetto trace with one process per pipeline stage and a track per stream
// of it (compute: forward and backward slots, the optimizer step; comm: sends, gradient buckets,
// parameter gathers). They print the prediction's numbers and compute none.
//
//   gpt3-175b train, global batch 1536 (micro-batch 1, 24 per pipeline), seq 2048 on 1024 x ...
//   iteration 9.12 s   345k tokens/s   MFU 48.1% ...
//   pipeline, time by stream, communication per group, memory per GPU, stages
#include "cli/views/parallel_views.h"

#include "cli/views/interval_views.h"

#include "cli/views/views.h"
#include "model/strategy_search.h"

#include <iomanip>

namespace ridgeline {

nlohmann::ordered_json groups_json(const GroupTimes& t) {
  nlohmann::ordered_json j;
  for (CommGroup g : kListedCommGroups) j[comm_group_name(g)] = t[(int)g];
  return j;
}

nlohmann::ordered_json streams_json(const std::array<double, kStreams>& t) {
  return {{"compute", t[(int)Stream::Compute]},
          {"comm", t[(int)Stream::Comm]},
          {"host", t[(int)Stream::Host]}};
}

nlohmann::ordered_json parallel_config_json(const ParallelConfig& p) {
  nlohmann::ordered_json j = {{"gpus", p.gpus},
                              {"tp", p.tp},
                              {"pp", p.pp},
                              {"vp", p.vp},
                              {"dp", p.dp},
                              {"cp", p.cp},
                              {"ep", p.ep},
                              {"sp", p.sp},
                              {"zero", p.zero},
                              {"microbatch", p.microbatch},
                              {"global_batch", p.global_batch},
                              {"schedule", schedule_name(p.schedule)},
                              {"recompute", recompute_name(p.recompute)},
                              {"text", strategy_text(p)}};
  if (p.fsdp_shard > 0) j["fsdp_shard"] = p.fsdp_shard;   // HSDP only: the key is new
  if (p.etp > 0) j["etp"] = p.etp;                        // given only: likewise
  if (p.split_counts_embedding || p.split_counts_loss) {  // likewise
    nlohmann::ordered_json counts = nlohmann::ordered_json::array();
    if (p.split_counts_embedding) counts.push_back("embedding");
    if (p.split_counts_loss) counts.push_back("loss");
    j["pipeline_split_counts"] = counts;
  }
  return j;
}

nlohmann::ordered_json memory_per_gpu_json(const ParallelMemory& f) {
  return {{"stage", f.stage},
          {"weights_bytes", f.weights_bytes},
          {"gradient_bytes", f.gradient_bytes},
          {"optimizer_bytes", f.optimizer_bytes},
          {"activation_bytes", f.activation_bytes},
          {"kv_cache_bytes", f.kv_cache_bytes},
          {"comm_buffer_bytes", f.comm_buffer_bytes},
          {"reserved_bytes", f.reserved_bytes},
          {"total_bytes", f.total()},
          {"capacity_bytes", f.capacity_bytes},
          {"in_flight", f.in_flight},
          {"fits", f.fits()},
          {"reason", f.reason}};
}

void print_parallel_json(std::ostream& os, const ParallelPrediction& p, const RunSubject& subject,
                         const PredictionInterval* interval) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json inputs = run_inputs_json(p.run, subject);
  inputs["cluster"] = p.cluster;
  inputs["parallel"] = parallel_config_json(p.parallel);
  if (p.fp8.on) {  // only FP8 runs say so: bf16 outputs stay as they were
    inputs["precision"] = "fp8";
    inputs["fp8_recipe"] = fp8_recipe_name(p.fp8.recipe);
    inputs["fp8_param_gather"] = p.fp8.param_gather;
  }
  j["inputs"] = inputs;
  j["description"] = p.description;
  j["total_us"] = p.total_us;
  if (interval) j["interval"] = interval_json(*interval);
  j["tokens_per_s"] = p.tokens_per_s;
  j["mfu"] = p.mfu;
  j["mfu_formula"] = kMfuFormula;
  j["model_flops"] = p.model_flops;
  j["hardware_flops_per_s"] = p.hardware_flops_per_s;
  j["peak_flops_per_s"] = p.peak_flops_per_s;
  j["microbatches"] = p.microbatches;
  j["bubble_fraction"] = p.bubble_fraction;
  j["nccl_sm_share"] = p.nccl_sm_share;
  j["time_by_stream_us"] = streams_json(p.time_by_stream_us);
  j["comm_us"] = groups_json(p.comm_us);
  j["exposed_comm_us"] = groups_json(p.exposed_comm_us);
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (size_t s = 0; s < p.stages.size(); ++s)
    stages.push_back({{"stage", s},
                      {"forward_us", p.stages[s].forward_us},
                      {"backward_us", p.stages[s].backward_us},
                      {"send_us", p.stages[s].send_us}});
  j["stages"] = stages;
  j["memory_per_gpu"] = memory_per_gpu_json(p.memory);
  os << j.dump(2) << "\n";
}

void print_parallel_table(std::ostream& os, const ParallelPrediction& p,
                          const PredictionInterval* interval) {
  bool train = p.run.phase == Phase::Train;
  os << p.description << "\n";
  os << (train ? "iteration " : "step ") << human_us(p.total_us) << "   "
     << fixed(p.tokens_per_s, 0) << " tokens/s   MFU " << fixed(100 * p.mfu, 1) << "%   "
     << fixed(p.hardware_flops_per_s / 1e12, 1) << " TFLOP/s per GPU of "
     << fixed(p.peak_flops_per_s / 1e12, 0) << " peak\n";
  if (interval) os << "     " << interval_line(*interval) << "\n";
  os << "pipeline  " << p.parallel.pp << " stage(s)";
  if (p.parallel.vp > 1) os << " x " << p.parallel.vp << " chunks";
  os << ", " << p.microbatches << " micro-batch(es), bubble " << fixed(100 * p.bubble_fraction, 1)
     << "% of the busiest stage's work\n";
  os << "time by stream (one GPU of the last stage to finish)   compute "
     << human_us(p.time_by_stream_us[(int)Stream::Compute]) << "   comm "
     << human_us(p.time_by_stream_us[(int)Stream::Comm]) << "   host "
     << human_us(p.time_by_stream_us[(int)Stream::Host]) << "\n";
  os << "\ncommunication  group   time          exposed\n";
  for (CommGroup g : kListedCommGroups) {
    if (p.comm_us[(int)g] <= 0 && p.exposed_comm_us[(int)g] <= 0) continue;
    os << "               " << std::left << std::setw(8) << comm_group_name(g) << std::setw(14)
       << human_us(p.comm_us[(int)g]) << human_us(p.exposed_comm_us[(int)g]) << std::right << "\n";
  }
  os << "\nstage   forward       backward      (one micro-batch)\n";
  for (size_t s = 0; s < p.stages.size(); ++s)
    os << "  " << std::left << std::setw(6) << s << std::setw(14)
       << human_us(p.stages[s].forward_us) << human_us(p.stages[s].backward_us) << std::right
       << "\n";
  const ParallelMemory& f = p.memory;
  os << "\nmemory per GPU (stage " << f.stage << ")  " << human_bytes(f.total()) << " of "
     << human_bytes(f.capacity_bytes) << (f.fits() ? ": fits" : ": does NOT fit") << "\n";
  os << "  weights " << human_bytes(f.weights_bytes) << ", gradients "
     << human_bytes(f.gradient_bytes) << ", optimizer " << human_bytes(f.optimizer_bytes)
     << ", activations " << human_bytes(f.activation_bytes) << " (" << f.in_flight << " in flight)";
  if (f.kv_cache_bytes > 0) os << ", KV cache " << human_bytes(f.kv_cache_bytes);
  os << ", buffers " << human_bytes(f.comm_buffer_bytes) << ", reserved "
     << human_bytes(f.reserved_bytes) << "\n";
  if (!f.reason.empty()) os << "  " << f.reason << "\n";
}

void write_parallel_trace(std::ostream& os, const ParallelPrediction& p) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (size_t s = 0; s < p.stages.size(); ++s) {
    int pid = (int)s + 1;
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"args", {{"name", "stage " + std::to_string(s) + " (" + p.gpu + ")"}}}});
    for (Stream st : {Stream::Compute, Stream::Comm})
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", pid},
                        {"tid", 1 + (int)st},
                        {"args", {{"name", std::string(stream_name(st)) + " stream"}}}});
  }
  for (const PipelineSlot& s : p.pipeline.slots) {
    bool compute = s.kind == SlotKind::Forward || s.kind == SlotKind::Backward ||
                   s.kind == SlotKind::Optimizer;
    std::string name = slot_kind_name(s.kind);
    if (s.kind == SlotKind::Forward || s.kind == SlotKind::Backward || s.kind == SlotKind::Send)
      name += " mb " + std::to_string(s.microbatch) +
              (p.parallel.vp > 1 ? " chunk " + std::to_string(s.chunk) : "");
    events.push_back({{"name", name},
                      {"cat", slot_kind_name(s.kind)},
                      {"ph", "X"},
                      {"pid", s.stage + 1},
                      {"tid", 1 + (int)(compute ? Stream::Compute : Stream::Comm)},
                      {"ts", s.start_us},
                      {"dur", s.end_us - s.start_us}});
  }
  nlohmann::ordered_json doc{{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  os << doc.dump() << "\n";
}

}  // namespace ridgeline
