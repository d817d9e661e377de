// A runtime profile: which kernels an implementation (Hugging Face transformers in eager PyTorch,
// a serving engine, ...) launches for each part of a block, and how. It is data: a JSON file
// under workloads/runtimes/ (built into the binary like the model presets) or a user's file,
// read strictly (unknown keys and unknown choices are errors naming the file and JSON path).
// The graph builders read the choices; a runtime that recombines existing kernels is one file
// and no C++. docs/runtimes.md describes every key and the kernels each choice launches.
#pragma once

#include "workloads/model_config.h"
#include "workloads/op.h"

#include <string>
#include <vector>

namespace ridgeline {

// Whether the residual add is its own kernel or read by the next norm (add + norm in one pass).
enum class ResidualAdd { Separate, FusedIntoNorm };
// q, k, v as three GEMMs or one over the concatenated weight (a model whose weights are stored
// fused, GPT-2's c_attn, always launches one).
enum class QkvProjection { Separate, Fused };
// RoPE as Hugging Face's rotate_half (mul, neg, cat, mul, add on q and on k) or one kernel.
enum class RopeImpl { HfRotateHalf, Fused };
// How K and V reach the cache: a copy (a cast) each, inside the fused RoPE kernel, or no kernel.
enum class CacheUpdate { CopyPerKv, FusedWithRope, None };
// How attention reads a cache stored in another dtype: cast back whole before attention, or
// dequantized block by block inside the attention kernel.
enum class CacheRead { DequantizeBefore, InKernel };
enum class GateUpProjection { Separate, Fused };  // gate and up as two GEMMs or one
enum class MlpActivation { Separate, Fused };     // silu then mul, or one silu_mul kernel
enum class MoeImpl { HfGroupedMm, FusedMoe };     // transformers' grouped_mm, vLLM's fused_moe

// The kernels of one decoder block (and of the head's norm).
struct BlockChoices {
  RowImpl norm_impl = RowImpl::PyTorch;
  ResidualAdd residual_add = ResidualAdd::Separate;
  QkvProjection qkv_projection = QkvProjection::Separate;
  RopeImpl rope = RopeImpl::HfRotateHalf;
  CacheUpdate cache_update = CacheUpdate::CopyPerKv;
  CacheRead cache_read = CacheRead::DequantizeBefore;
  GateUpProjection gate_up = GateUpProjection::Separate;
  MlpActivation activation = MlpActivation::Separate;
  MoeImpl moe = MoeImpl::HfGroupedMm;
  bool operator==(const BlockChoices&) const = default;
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

  const BlockChoices& choices_for(const ModelConfig& m) const;
};

// A preset name ("pytorch-eager", "fused") or a path to a runtime JSON file.
RuntimeProfile load_runtime(const std::string& name_or_path);
// Parses runtime JSON text as if it were the file `label`.
RuntimeProfile load_runtime_text(const std::string& text, const std::string& label);
std::vector<std::string> runtime_preset_names();
// The runtime a RunConfig starts with: the pytorch-eager preset (read once).
const RuntimeProfile& default_runtime();

}  // namespace ridgeline
