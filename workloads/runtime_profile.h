// A runtime profile: which kernels an implementation (Hugging Face transformers in eager PyTorch,
// a serving engine, ...) launches for each part of a block, and how. It is data: a JSON file
// under workloads/runtimes/ (built into the binary like the model presets) or a user's file,
// read strictly (unknown keys and unknown choices are errors naming the file and JSON path).
// The graph builders read the choices; a runtime that recombines existing kernels is one file
// and no C++. docs/runtimes.md describes every key and the kernels each choice launches.
#pragma once

#include "workloads/model_config.h"
#include "workloads/op.h"

#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

// Whether the residual add is its own kernel or read by the next norm (add + norm in one pass).
enum class ResidualAdd { Separate, FusedIntoNorm };
// q, k, v as three GEMMs or one over the concatenated weight (a model whose weights are stored
// fused, GPT-2's c_attn, always launches one).
enum class QkvProjection { Separate, Fused };
// RoPE as Hugging Face's rotate_half (mul, neg, cat, mul, add on q and on k), one kernel, or
// TorchInductor's fusions (inductor_kernels.cpp): one kernel on q and one on k that compute
// cos/sin inline, the k kernel also writing K into a StaticCache in decode (V's write its own).
enum class RopeImpl { HfRotateHalf, Fused, Inductor };
// How K and V reach the cache: a copy (a cast) each, inside the fused RoPE kernel, no kernel,
// transformers' DynamicCache (torch.cat of the whole cache with the new tokens, per layer and
// step) or StaticCache (index_copy_ into a preallocated cache that attention reads whole).
enum class CacheUpdate { CopyPerKv, FusedWithRope, None, DynamicCat, StaticIndexCopy };
// A norm as one kernel (its RowImpl), or transformers' LlamaRMSNorm written out in PyTorch ops:
// to fp32, pow, mean, add eps, rsqrt, mul, to bf16, mul by the weight (eight kernels).
enum class NormKernels { OneKernel, HfFp32Decomposed };
// RoPE's cos/sin tables: read from a cached table (no kernel), or recomputed by every forward
// (transformers' LlamaRotaryEmbedding: inv_freq x positions, cat, cos, sin, scale, casts).
// Inductor (inline_per_forward): the fp32 freqs bmm (an extern cuBLAS call) once a forward, the
// rest computed inside the RoPE kernels.
enum class RopeTables { Cached, RecomputedPerForward, InlinePerForward };
// The attention mask: none (causal or none inside the kernel), or transformers' mask creation
// per forward (positions, compare) and, where a mask reaches SDPA (a StaticCache decode), the
// mask's conversion per layer and K/V repeated to every head (GQA is not used with a mask).
// Inductor (inductor_sdpa): transformers' mask traced and compiled, one mask kernel and K/V
// repeated to every head per layer, in prefill as in decode, and SDPA over the masked span.
enum class AttentionMask { None, HfSdpa, InductorSdpa };
// The host's cost to issue a kernel in eager launch: the GPU description's one figure
// (launch.python_eager_us) for every kernel, or this runtime's table per op kind.
enum class HostCost { GpuFigure, PerOpKind };
// How attention reads a cache stored in another dtype: cast back whole before attention, or
// dequantized block by block inside the attention kernel.
enum class CacheRead { DequantizeBefore, InKernel };
enum class GateUpProjection { Separate, Fused };  // gate and up as two GEMMs or one
enum class MlpActivation { Separate, Fused };     // silu then mul, or one silu_mul kernel
// transformers' grouped_mm (and its batched_mm, which generate()'s decode steps switch to),
// vLLM's fused_moe, Megatron-Core's MoE layer with Transformer Engine (the published NeMo /
// Megatron-Bridge training runs: moe_megatron.cpp)
enum class MoeImpl { HfGroupedMm, HfBatchedMm, FusedMoe, MegatronTe };
// Multi-head latent attention (mla_config.h): transformers' expand_kv (the cached latent
// decompressed by kv_b for every cached token, every step, then SDPA over full K/V per head), or a
// serving engine's absorbed form (FlashMLA: W_UK folded into q, attention over the latent cache
// shared by all heads, W_UV after it; prefill decompresses K/V once for the prompt).
enum class MlaImpl { HfExpandKv, Absorbed };

// The kernels of one decoder block (and of the head's norm).
struct BlockChoices {
  RowImpl norm_impl = RowImpl::PyTorch;
  NormKernels norm_kernels = NormKernels::OneKernel;
  RopeTables rope_tables = RopeTables::Cached;
  AttentionMask mask = AttentionMask::None;
  ResidualAdd residual_add = ResidualAdd::Separate;
  QkvProjection qkv_projection = QkvProjection::Separate;
  RopeImpl rope = RopeImpl::HfRotateHalf;
  CacheUpdate cache_update = CacheUpdate::CopyPerKv;
  CacheRead cache_read = CacheRead::DequantizeBefore;
  GateUpProjection gate_up = GateUpProjection::Separate;
  MlpActivation activation = MlpActivation::Separate;
  MoeImpl moe = MoeImpl::HfGroupedMm;
  MlaImpl mla = MlaImpl::HfExpandKv;
  // "attention/backend": the attention kernel; unset ("sdpa"): the one PyTorch's SDPA picks on
  // the GPU for the dtype (model/attention_impl.h), which outputs name.
  std::optional<AttentionImpl> attention_impl;
  bool operator==(const BlockChoices&) const = default;
};

// The host (Python + PyTorch dispatch) time to issue one kernel of each kind in eager launch,
// and the interpreter's time per decoder block and per forward that issues no kernel (module
// calls, views, reshapes); fitted from the CPU op lists of real profiles (see the preset's
// "source"). Kinds are those of host_op_kind() (workloads/host_op_kind.h).
struct HostOpCosts {
  double gemm_us = 0, attention_us = 0, elementwise_us = 0, reduction_us = 0, cache_update_us = 0;
  double moe_us = 0;  // an MoE routing, dispatch or combine kernel
  double block_us = 0, forward_us = 0;
  bool operator==(const HostOpCosts&) const = default;
};

// How the runtime's library launches its reductions and row kernels (ReduceLaunch, RowLaunch).
struct KernelLaunch {
  ReduceLaunch reduction;
  RowLaunch rows;
  bool operator==(const KernelLaunch&) const = default;
};

// Where a runtime learned from a profiler trace (`ridgeline runtime learn`) came from: the file's
// optional "learned" object, {"trace", "sha256", "match_score", "unmatched_kernels": [{"name",
// "count"}], "notes": [...]}; read strictly, kept for `ridgeline runtime show`.
struct LearnedFrom {
  std::string trace, sha256;
  double match_score = 0;
  std::vector<std::pair<std::string, long long>> unmatched_kernels;  // name, count
  std::vector<std::string> notes;
};

struct RuntimeProfile {
  std::string name;  // the preset's or the file's name without ".json": "pytorch-eager"
  std::string file;  // where it was read from
  std::string description;
  BlockChoices block;  // for models with rotary positions
  // For models with learned position embeddings (GPT-2): `block` with the file's
  // "learned_position_models" overrides applied.
  BlockChoices learned_positions;
  double reserved_bytes = 0;  // CUDA context, library workspaces, allocator slack
  HostCost host = HostCost::GpuFigure;
  HostOpCosts host_us;  // with HostCost::PerOpKind
  // With --launch graph: the host's time per forward between the step's start and the graph's
  // launch, while the GPU idles (torch.compile's CUDA-graph trees copy the new inputs into the
  // graph's buffers, then check and launch in Python); /host/graph_replay_us, absent: 0 (the
  // graph replayed directly, torch.cuda.CUDAGraph.replay()).
  double graph_replay_us = 0;
  // A generate() call's host work before its first forward (transformers' generate: the
  // generation config, logits processors and stopping criteria, the cache, the inputs), the GPU
  // idle; added to the time to the first token. /host/generate_setup_us, absent: 0.
  double generate_setup_us = 0;
  KernelLaunch launch;
  std::optional<LearnedFrom> learned;  // a learned runtime's provenance

  const BlockChoices& choices_for(const ModelConfig& m) const;
};

// --kv-cache-impl: transformers' cache class, "dynamic" (DynamicCache: kv_cache/update
// dynamic_cat) or "static" (StaticCache: static_index_copy), for a runtime whose cache is one of
// the two; any other runtime is an InputError naming `flag`.
void select_cache_impl(RuntimeProfile& r, const std::string& impl, const std::string& flag);

// --attention-backend: sdpa (PyTorch's pick), cudnn, flash2, flash3, efficient or math for every
// model of the runtime; an unknown name is an InputError naming `flag`.
void select_attention_backend(RuntimeProfile& r, const std::string& backend,
                              const std::string& flag);

// A preset name ("pytorch-eager", "fused") or a path to a runtime JSON file.
RuntimeProfile load_runtime(const std::string& name_or_path);
// Parses runtime JSON text as if it were the file `label`.
RuntimeProfile load_runtime_text(const std::string& text, const std::string& label);
std::vector<std::string> runtime_preset_names();
// The runtime a RunConfig starts with: the pytorch-eager preset (read once).
const RuntimeProfile& default_runtime();

}  // namespace ridgeline
