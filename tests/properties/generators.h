// Generators of the property suite: random ops (GEMM, attention, elementwise, reduce, row ops,
// collectives), dtypes a GPU supports, the GPU and cluster presets (loaded once: call
// preload_presets() before threads start), the runtimes, the model presets and random small
// Llama-style (and Mixtral-style) configs, run configs for every phase, parallel strategies that
// pass check_parallel_config on a cluster, and small serving request sets. Faster hardware is
// made through the library's own structs: a figure of GpuSpec or ClusterSpec times a factor.
#pragma once

#include "hardware/cluster_spec.h"
#include "hardware/gpu_spec.h"
#include "model/prediction.h"
#include "property.h"
#include "serve/request.h"
#include "workloads/model_config.h"
#include "workloads/op.h"
#include "workloads/parallel_config.h"
#include "workloads/run_config.h"

#include <string>
#include <vector>

namespace ridgeline::prop {

void preload_presets();
const std::vector<std::string>& gpu_names();
const GpuSpec& gpu(const std::string& name);  // the preset with its calibrated profile
const ClusterSpec& cluster(const std::string& name);
const GpuSpec& cluster_gpu(const std::string& cluster_name);  // the cluster's GPU preset
const ModelConfig& model_preset(const std::string& name);
const RuntimeProfile& runtime(const std::string& name);

// The hardware figures a property makes better.
enum class Knob { Hbm, L2, Smem, Clock, Peak, Launch };
constexpr Knob kAllKnobs[] = {Knob::Hbm,   Knob::L2,   Knob::Smem,
                              Knob::Clock, Knob::Peak, Knob::Launch};
const char* knob_name(Knob k);
// `g` with the knob's figures times `factor` (> 1; Launch divides the launch costs by it). Peak
// scales every unit's ops per clock (the peak FLOP/s of every dtype).
GpuSpec faster(const GpuSpec& g, Knob k, double factor);
// Links: the scale-up fabric (NVLink per link, NCCL's channel bandwidth, PCIe) or the scale-out
// network (NIC line rate), times `factor`.
enum class LinkKnob { ScaleUp, ScaleOut };
ClusterSpec faster(const ClusterSpec& c, LinkKnob k, double factor);

// A dtype `g` runs GEMMs in (fp8 only where it has fp8 tensor cores).
DType dtype_for(Property& p, const GpuSpec& g);
Op random_op(Property& p, const GpuSpec& g);  // any kernel family but collectives
Op random_gemm(Property& p, const GpuSpec& g);
Op random_attention(Property& p, const GpuSpec& g);
CollectiveOp random_collective(Property& p, const ClusterSpec& c);

// A preset, or a random small dense (or MoE) Llama-style config.
// for_cluster: only presets parallel prediction takes (DeepSeek's MLA and dense-beside-MoE
// layers are refused under --cluster for now).
ModelConfig random_model(Property& p, bool allow_moe = true, bool for_cluster = false);
ModelConfig small_model(Property& p, bool moe);
// A run of `phase` with small random sizes, a random runtime and launch mode, that
// check_run_config accepts for `m`; `blocks` > 0 keeps the graph small.
RunConfig random_run(Property& p, const ModelConfig& m, Phase phase);

// A strategy on `cluster` for `m` that check_parallel_config accepts (and the run it needs), or
// false after `tries` draws found none.
bool random_strategy(Property& p, const ModelConfig& m, const ClusterSpec& c, Phase phase,
                     RunConfig& run, ParallelConfig& par, int tries = 50);
ClusterLimits limits_of(const ClusterSpec& c);

// Where step `b` (more work) is faster than step `a`: each kernel that got faster must be
// explained by a named rule. Returns the rule ("split-K/split-KV choice changed", "row alignment
// improved", "more active SMs") or, for a kernel no rule explains, "UNEXPLAINED: <kernel ...>".
std::vector<std::string> explain_speedup(const Prediction& a, const Prediction& b);

// `count` requests with prompt and output lengths in [lo, hi].
Workload small_workload(Property& p, int count, int64_t lo, int64_t hi);

}  // namespace ridgeline::prop
