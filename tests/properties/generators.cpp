// Generators of the property suite (generators.h). Sizes are drawn log-uniformly so small,
// skinny and large shapes all appear; every draw comes from the property's own generator.
#include "generators.h"

#include "hardware/derived.h"
#include "hardware/gpu_load.h"
#include "workloads/runtime_profile.h"

#include <map>
#include <mutex>

namespace ridgeline::prop {

namespace {

struct Presets {
  std::vector<std::string> gpu_names;
  std::map<std::string, GpuSpec> gpus;
  std::map<std::string, ClusterSpec> clusters;
  std::map<std::string, GpuSpec> cluster_gpus;
  std::map<std::string, ModelConfig> models;
  std::map<std::string, RuntimeProfile> runtimes;
};

const Presets& presets() {
  static const Presets p = [] {
    Presets s;
    s.gpu_names = gpu_preset_names();
    for (const auto& n : s.gpu_names) s.gpus.emplace(n, load_gpu(n));
    for (const auto& n : cluster_names()) {
      ClusterSpec c = load_cluster(n);
      s.cluster_gpus.emplace(n, load_gpu(c.gpu));
      s.clusters.emplace(n, std::move(c));
    }
    for (const auto& n : model_preset_names()) s.models.emplace(n, load_model(n));
    for (const auto& n : runtime_preset_names()) s.runtimes.emplace(n, load_runtime(n));
    return s;
  }();
  return p;
}

template <class Map>
const typename Map::mapped_type& at(const Map& m, const std::string& key) {
  auto it = m.find(key);
  if (it == m.end()) throw std::out_of_range("no preset " + key);
  return it->second;
}

}  // namespace

void preload_presets() {
  (void)presets();
}
const std::vector<std::string>& gpu_names() {
  return presets().gpu_names;
}
const GpuSpec& gpu(const std::string& name) {
  return at(presets().gpus, name);
}
const ClusterSpec& cluster(const std::string& name) {
  return at(presets().clusters, name);
}
const GpuSpec& cluster_gpu(const std::string& name) {
  return at(presets().cluster_gpus, name);
}
const ModelConfig& model_preset(const std::string& name) {
  return at(presets().models, name);
}
const RuntimeProfile& runtime(const std::string& name) {
  return at(presets().runtimes, name);
}

const char* knob_name(Knob k) {
  switch (k) {
    case Knob::Hbm:
      return "HBM bandwidth";
    case Knob::L2:
      return "L2 bandwidth";
    case Knob::Smem:
      return "shared-memory bandwidth";
    case Knob::Clock:
      return "clock";
    case Knob::Peak:
      return "peak FLOP/s";
    case Knob::Launch:
      return "launch cost";
  }
  return "?";
}

GpuSpec faster(const GpuSpec& g, Knob k, double factor) {
  GpuSpec f = g;
  switch (k) {
    case Knob::Hbm:
      f.memory.hbm.bandwidth_GBps.value *= factor;
      break;
    case Knob::L2:
      f.memory.l2.bandwidth_GBps.value *= factor;
      break;
    case Knob::Smem:
      f.memory.smem_bytes_per_clk_per_sm.value *= factor;
      break;
    case Knob::Clock:
      f.compute.max_clock_MHz.value *= factor;
      f.compute.tensor_clock_MHz.value *= factor;
      break;
    case Knob::Peak:
      for (auto& ops : f.compute.ops_per_clk_per_sm)
        if (ops) ops->value *= factor;
      f.compute.sfu_ops_per_clk_per_sm.value *= factor;
      break;
    case Knob::Launch:
      f.launch.graph_us.value /= factor;
      f.launch.stream_us.value /= factor;
      f.launch.python_eager_us.value /= factor;
      break;
  }
  return f;
}

ClusterSpec faster(const ClusterSpec& c, LinkKnob k, double factor) {
  ClusterSpec f = c;
  if (k == LinkKnob::ScaleUp) {
    f.scale_up.link_GBps_per_direction.value *= factor;
    f.scale_up.pcie_GBps_per_direction.value *= factor;
    f.collective.channel_GBps.value *= factor;
    f.collective.nvls_channel_GBps.value *= factor;
  } else {
    f.scale_out.nic_Gbps.value *= factor;
  }
  return f;
}

DType dtype_for(Property& p, const GpuSpec& g) {
  std::vector<DType> ds = {DType::Bf16, DType::Fp16, DType::Bf16, DType::Fp32, DType::Tf32};
  if (has_unit(g, MathUnit::TensorFp8)) ds.push_back(DType::Fp8);
  return p.pick(ds);
}

Op random_gemm(Property& p, const GpuSpec& g) {
  GemmOp m;
  m.m = p.log_uniform(1, 16384);
  m.n = p.log_uniform(1, 16384);
  m.k = p.log_uniform(1, 16384);
  m.batch = p.coin(0.2) ? p.log_uniform(1, 64) : 1;
  m.dtype = dtype_for(p, g);
  return Op{"gemm", m, false};
}

Op random_attention(Property& p, const GpuSpec& g) {
  AttentionOp a;
  a.batch = p.log_uniform(1, 64);
  a.kv_heads = p.pick(std::vector<int64_t>{1, 2, 4, 8, 16, 32});
  a.heads = a.kv_heads * p.pick(std::vector<int64_t>{1, 1, 2, 4, 8});
  a.head_dim = p.pick(std::vector<int64_t>{64, 80, 96, 128, 128, 256});
  bool decode = p.coin(0.4);
  a.q_len = decode ? 1 : p.log_uniform(1, 8192);
  a.kv_len = a.q_len + (p.coin(0.3) ? 0 : p.log_uniform(1, 32768));
  a.causal = p.coin(0.6);
  a.dtype = p.coin(0.8) ? DType::Bf16 : DType::Fp16;
  if (has_unit(g, MathUnit::TensorFp8) && p.coin(0.15)) a.kv_dtype = DType::Fp8;
  a.backward = !decode && p.coin(0.2);
  return Op{"attention", a, false};
}

Op random_op(Property& p, const GpuSpec& g) {
  DType d = p.coin(0.8) ? DType::Bf16 : (p.coin() ? DType::Fp16 : DType::Fp32);
  switch (p.uniform(0, 5)) {
    case 0:
      return random_gemm(p, g);
    case 1:
      return random_attention(p, g);
    case 2: {
      auto kind = (ElementwiseKind)p.uniform(0, (int)ElementwiseKind::Cat);
      ElementwiseOp e{kind, p.log_uniform(1, 1 << 28), d, p.coin(0.2), {}};
      return Op{"elementwise", e, p.coin(0.2)};
    }
    case 3: {
      ReduceOp r{(ReduceKind)p.uniform(0, 2), p.log_uniform(1, 1 << 28), d,
                 default_runtime().launch.reduction};
      return Op{"reduce", r, false};
    }
    default: {
      RowOp r{(RowOpKind)p.uniform(0, (int)RowOpKind::SoftmaxBackward),
              p.log_uniform(1, 32768),
              p.log_uniform(1, 32768),
              d,
              p.coin() ? RowImpl::SinglePass : RowImpl::PyTorch,
              default_runtime().launch.rows};
      return Op{"row", r, p.coin(0.2)};
    }
  }
}

CollectiveOp random_collective(Property& p, const ClusterSpec& c) {
  CollectiveOp op;
  op.kind = (CollectiveKind)p.uniform(0, (int)CollectiveKind::SendRecv);
  auto per_node = (int64_t)c.gpus_per_node.value;
  int64_t nodes =
      p.coin(0.5) ? 1 : p.log_uniform(1, std::min<int64_t>(16, (int64_t)c.max_nodes.value));
  int64_t in_node = p.pick(std::vector<int64_t>{1, 2, 4, 8, per_node});
  in_node = std::min(in_node, per_node);
  if (in_node * nodes < 2) in_node = std::min<int64_t>(2, per_node), nodes = in_node >= 2 ? 1 : 2;
  if (op.kind == CollectiveKind::SendRecv) {
    in_node = per_node >= 2 && p.coin() ? 2 : 1;
    nodes = in_node == 2 ? 1 : 2;
  }
  op.ranks = (int)(in_node * nodes);
  op.ranks_per_node = (int)in_node;
  op.bytes = (double)p.log_uniform(1, (int64_t)1 << 32);
  op.dtype = DType::Bf16;
  return op;
}

ModelConfig small_model(Property& p, bool moe) {
  int64_t head_dim = p.pick(std::vector<int64_t>{64, 128});
  int64_t kv = p.pick(std::vector<int64_t>{1, 2, 4, 8});
  int64_t heads = kv * p.pick(std::vector<int64_t>{1, 2, 4});
  int64_t hidden = heads * head_dim;
  std::string text =
      R"({"model_type": ")" + std::string(moe ? "mixtral" : "llama") + R"(", "hidden_size": )" +
      std::to_string(hidden) + R"(, "num_hidden_layers": )" + std::to_string(p.uniform(1, 8) * 2) +
      R"(, "num_attention_heads": )" + std::to_string(heads) + R"(, "num_key_value_heads": )" +
      std::to_string(kv) + R"(, "intermediate_size": )" + std::to_string(hidden * p.uniform(2, 4)) +
      R"(, "vocab_size": )" + std::to_string(p.uniform(4, 64) * 1024) +
      R"(, "max_position_embeddings": 65536, "rms_norm_eps": 1e-5, "hidden_act": "silu",
                     "rope_theta": 10000.0, "torch_dtype": "bfloat16",
                     "tie_word_embeddings": )" +
      (p.coin(0.3) ? "true" : "false");
  if (moe) text += R"(, "num_local_experts": 8, "num_experts_per_tok": 2)";
  text += "}";
  return load_model_text(text, "small.json");
}

ModelConfig random_model(Property& p, bool allow_moe, bool for_cluster) {
  if (p.coin(0.5)) return small_model(p, allow_moe && p.coin(0.3));
  std::vector<std::string> names;
  for (const auto& n : model_preset_names()) {
    const ModelConfig& m = model_preset(n);
    if (for_cluster && (m.deepseek.mla.enabled() || m.deepseek.moe.enabled())) continue;
    if (allow_moe || m.moe.experts == 0) names.push_back(n);
  }
  return model_preset(p.pick(names));
}

RunConfig random_run(Property& p, const ModelConfig& m, Phase phase) {
  RunConfig r;
  r.phase = phase;
  r.runtime = runtime(p.pick(runtime_preset_names()));
  r.launch = p.coin(0.7) ? LaunchMode::Graph : LaunchMode::Eager;
  r.blocks = m.layers > 4 && p.coin(0.7) ? p.uniform(1, 2) : 0;
  int64_t limit = std::min<int64_t>(m.max_positions, 8192);
  if (phase == Phase::Decode) {
    r.batch = p.log_uniform(1, 128);
    r.kv_len = p.log_uniform(1, limit - 1);
  } else {
    r.batch = p.log_uniform(1, phase == Phase::Train ? 4 : 8);
    r.seq = p.log_uniform(1, limit / 2);
    if (phase == Phase::Train) {
      r.optimizer = p.coin() ? Optimizer::AdamW : Optimizer::None;
      r.recompute = (Recompute)p.uniform(0, 2);
    }
  }
  if (phase != Phase::Train && p.coin(0.2)) r.kv_cache = DType::Fp8;
  check_run_config(r, m);
  return r;
}

ClusterLimits limits_of(const ClusterSpec& c) {
  auto per_node = (int64_t)c.gpus_per_node.value;
  return {c.name, per_node, per_node * (int64_t)c.max_nodes.value};
}

bool random_strategy(Property& p, const ModelConfig& m, const ClusterSpec& c, Phase phase,
                     RunConfig& run, ParallelConfig& par, int tries) {
  auto per_node = (int64_t)c.gpus_per_node.value;
  for (int i = 0; i < tries; ++i) {
    ParallelConfig s;
    s.tp = std::min(per_node, p.pick(std::vector<int64_t>{1, 2, 4, 8}));
    s.pp = p.pick(std::vector<int64_t>{1, 1, 2, 4});
    s.dp = p.pick(std::vector<int64_t>{1, 2, 4});
    s.cp = phase == Phase::Train && p.coin(0.2) ? 2 : 1;
    s.ep = m.moe.experts > 0 && s.dp > 1 && p.coin() ? 2 : 1;
    s.sp = s.tp > 1 && p.coin(0.3);
    s.gpus = s.tp * s.pp * s.dp * s.cp;
    s.microbatch = p.uniform(1, 2);
    int64_t m_count = phase == Phase::Train ? p.uniform(1, 8) : 1;
    s.global_batch = s.microbatch * s.dp * m_count;
    if (phase == Phase::Train) {
      s.zero = (int)p.uniform(0, s.dp > 1 ? 3 : 0);
      s.schedule = p.coin(0.5) ? PipelineSchedule::OneFOneB : PipelineSchedule::GPipe;
      s.recompute = (Recompute)p.uniform(0, 2);
    }
    RunConfig r;
    r.phase = phase;
    r.runtime = runtime("fused");
    r.batch = s.microbatch;  // as predict --cluster sets it (per data-parallel replica)
    if (phase == Phase::Decode)
      r.kv_len = p.log_uniform(16, 4096);
    else
      r.seq = 256 * p.log_uniform(1, 16);
    if (phase == Phase::Train) r.recompute = s.recompute;
    try {
      check_run_config(r, m);
      check_parallel_config(s, m, r, limits_of(c));
    } catch (const std::exception&) {
      continue;
    }
    run = r;
    par = s;
    return true;
  }
  return false;
}

std::vector<std::string> explain_speedup(const Prediction& a, const Prediction& b) {
  std::vector<std::string> rules;
  if (a.sections.size() != b.sections.size()) return {"UNEXPLAINED: the graphs differ"};
  for (size_t s = 0; s < a.sections.size(); ++s) {
    const auto &ka = a.sections[s].kernels, &kb = b.sections[s].kernels;
    if (ka.size() != kb.size()) return {"UNEXPLAINED: the graphs differ"};
    for (size_t v = 0; v < ka.size(); ++v) {
      const OpCost &x = ka[v].cost, &y = kb[v].cost;
      if (y.time_us >= x.time_us * (1 - 1e-9)) continue;
      if (x.detail.split != y.detail.split)
        rules.push_back("split-K/split-KV choice changed");
      else if ((x.detail.tile_m != y.detail.tile_m || x.detail.tile_n != y.detail.tile_n) &&
               y.time_us >= x.time_us * 0.995)
        rules.push_back("GEMM tile tie (0.5%)");
      else if (y.detail.alignment_bytes > x.detail.alignment_bytes)
        rules.push_back("GEMM row alignment improved");
      else if (y.detail.active_sms > x.detail.active_sms && x.detail.tile_m == 0)
        rules.push_back("more active SMs");
      else
        rules.push_back("UNEXPLAINED: " + ka[v].name + " " + std::to_string(x.time_us) + " -> " +
                        std::to_string(y.time_us) + " us");
    }
  }
  return rules;
}

Workload small_workload(Property& p, int count, int64_t lo, int64_t hi) {
  Workload w;
  for (int i = 0; i < count; ++i)
    w.requests.push_back(Request{i, 0, p.log_uniform(lo, hi), p.log_uniform(1, hi / 4 + 1)});
  return w;
}

}  // namespace ridgeline::prop
