// Serving replicas (see serve_replica.h).
#include "cli/serve_replica.h"

#include "common/errors.h"
#include "hardware/gpu_load.h"
#include "serve/gpu_step_model.h"
#include "serve/parallel_step_model.h"

#include <cstdlib>
#include <sstream>

namespace ridgeline {

void add_replica_flags(CLI::App& cmd, ReplicaFlags& f, bool tp_list) {
  cmd.add_option("--cluster", f.cluster, "A cluster preset or file: its GPU and links (with --tp)");
  cmd.add_option("--tp", f.tp,
                 tp_list ? "Tensor-parallel sizes to compare, comma-separated (with --cluster)"
                         : "Tensor-parallel GPUs a replica (with --cluster)");
  cmd.add_option("--pp", f.pp,
                 "Pipeline-parallel stages of --tp GPUs each, that many batches in flight (with "
                 "--cluster; vllm, trtllm, sglang)");
  cmd.add_option("--ep", f.ep,
                 "Attention-data-parallel ranks with the experts spread over them (TensorRT-LLM's "
                 "DEP N; with --tp 1 and --cluster)");
}

std::vector<int64_t> replica_tp_sizes(const ReplicaFlags& f, const CLI::App& cmd, bool gpu_given) {
  bool cluster = !f.cluster.empty();
  for (const char* flag : {"--tp", "--pp", "--ep"})
    if (cmd.count(flag) > 0 && !cluster)
      throw InputError(std::string(flag) +
                       ": a multi-GPU replica needs --cluster C (its GPUs and the links its "
                       "collectives cross)");
  if (cluster && gpu_given)
    throw InputError("--gpu: with --cluster the GPUs are the cluster's; drop --gpu");
  if (!cluster && !gpu_given)
    throw InputError("--gpu G or --cluster C: say what the replica runs on");
  std::vector<int64_t> out;
  std::stringstream in(f.tp);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || end != item.c_str() + item.size() || v < 1)
      throw InputError("--tp " + f.tp + ": expected GPUs a replica (integers >= 1)");
    out.push_back(v);
  }
  if (out.empty()) throw InputError("--tp " + f.tp + ": expected GPUs a replica (integers >= 1)");
  if (f.pp < 1) throw InputError("--pp " + std::to_string(f.pp) + ": must be >= 1");
  if (f.ep < 1) throw InputError("--ep " + std::to_string(f.ep) + ": must be >= 1");
  return out;
}

std::string ReplicaGpus::label() const {
  if (ep > 1) return gpu.name + " dep" + std::to_string(ep);
  if (tp * pp == 1) return gpu.name;
  return gpu.name + " tp" + std::to_string(tp) + (pp > 1 ? " pp" + std::to_string(pp) : "");
}

void check_replica_engine(const ReplicaGpus& r, const EngineConfig& engine) {
  if (r.pp <= 1) return;
  std::string pp = "--pp " + std::to_string(r.pp);
  if (engine.policy == "hf_cb")
    throw InputError(pp + ": engine " + engine.name +
                     " (transformers' continuous batching) runs the model in one process, with no "
                     "pipeline stages; vllm, trtllm and sglang have them");
  if (r.ep > 1)
    throw InputError(pp + " with --ep " + std::to_string(r.ep) +
                     ": attention data parallelism beside pipeline stages is not simulated; use "
                     "one of them");
}

std::string ReplicaGpus::long_label() const {
  return cluster ? label() + " (" + cluster->name + ")" : label();
}

ReplicaGpus load_replica(const ReplicaFlags& f, const std::string& gpu, int64_t tp) {
  ReplicaGpus r;
  r.tp = tp;
  r.pp = f.pp;
  r.ep = f.ep;
  if (f.cluster.empty()) {
    r.gpu = load_gpu(gpu);
    return r;
  }
  r.cluster = load_cluster(f.cluster);
  r.gpu = load_gpu(r.cluster->gpu);
  return r;
}

DisaggSpec replica_disaggregation(const std::string& text, const ReplicaGpus& r) {
  if (!r.cluster)
    throw InputError("--disaggregate " + text +
                     ": needs --cluster C (the links the KV cache crosses between the pools)");
  DisaggSpec d = parse_disaggregate("--disaggregate", text);
  d.gpus_per_replica = r.tp * r.pp * r.ep;
  d.gpus_per_node = (int64_t)r.cluster->gpus_per_node.value;
  int64_t gpus = (d.prefill + d.decode) * d.gpus_per_replica;
  if ((double)gpus > r.cluster->max_gpus())
    throw InputError("--disaggregate " + text + ": " + std::to_string(gpus) + " GPUs, more than " +
                     r.cluster->name + " has (" + std::to_string((int64_t)r.cluster->max_gpus()) +
                     ")");
  d.transfer_s = cluster_kv_transfer(*r.cluster);
  return d;
}

std::unique_ptr<StepModel> make_replica_step_model(const ReplicaGpus& r, const ModelConfig& model,
                                                   const RunConfig& run) {
  if (!r.cluster || (r.tp == 1 && r.pp == 1 && r.ep == 1))
    return std::make_unique<GpuStepModel>(r.gpu, model, run);
  ParallelConfig p;
  p.tp = r.tp;
  p.pp = r.pp;
  p.ep = r.ep;
  return std::make_unique<ParallelStepModel>(r.gpu, *r.cluster, model, run, p);
}

}  // namespace ridgeline
