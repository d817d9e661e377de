// Model configs: the shape of a decoder-only transformer, read from a Hugging Face config.json
// (or a built-in preset, which is a config.json under workloads/models/). Plain data; graph
// builders turn it into kernels.
#pragma once

#include "workloads/mla_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ridgeline {

enum class NormKind { RmsNorm, LayerNorm };
// SwiGLU (Llama family), GELU (GPT-2), GeGLU: down(gelu_tanh(gate) * up) (Gemma 2/3), or
// squared ReLU without a gate: down(relu(up)^2) (Nemotron).
enum class MlpKind { GatedSilu, Gelu, GatedGelu, Relu2 };
// A gate projection beside the up projection (SwiGLU, GeGLU); GELU and squared ReLU have none.
inline bool gated_mlp(MlpKind k) {
  return k == MlpKind::GatedSilu || k == MlpKind::GatedGelu;
}
enum class PositionKind { Rope, Learned, None };  // None: a NoPE layer (Llama 4)
// Where a block's norms sit: before attention and MLP (Llama), after them (OLMo 2), or both
// (Gemma 2/3: four norms a block).
enum class NormPlacement { Pre, Post, PreAndPost };
// A norm on q and k after their projections: RMSNorm over each head (Qwen3, Gemma 3), RMSNorm
// over all heads at once (OLMo 2), or a weightless L2 norm over each head (Llama 4).
enum class QkNorm { None, PerHead, AllHeads, L2 };

struct MoeConfig {
  int64_t experts = 0;  // 0: a dense MLP
  int64_t top_k = 0;    // experts per token
  int64_t expert_intermediate = 0;
  int64_t shared_intermediate = 0;  // a shared expert beside the routed ones (0: none)
  bool shared_gate = false;     // sigmoid(Linear(hidden, 1)) scales the shared expert (Qwen2-MoE)
  bool expert_bias = false;     // biases on the experts' projections and the router (gpt-oss)
  bool norm_topk = true;        // the top-k weights renormalised to sum to 1 (norm_topk_prob)
  bool sigmoid_router = false;  // Llama 4: sigmoid of the top-k logits scales each token's input
  bool clamped_swiglu = false;  // gpt-oss: clamp(gate), clamp(up), gate*sigmoid(a*gate)*(up+1)
  bool mxfp4_experts = false;   // expert weights stored as MXFP4 (gpt-oss's quantization_config)
  // transformers' own expert code runs every expert on every token (Llama4TextExperts: the
  // input repeated per expert, scaled by its router score, two bmm over all experts); runtimes
  // of transformers' code (moe impl hf_grouped_mm) launch that, serving engines do not.
  bool hf_dense_experts = false;
};

// One decoder layer where layers differ (alternating sliding/global attention, MoE interleaved
// with dense MLPs, NoPE layers): its attention window (sliding or chunked), RoPE, and MLP.
struct LayerKind {
  int64_t window = 0;    // 0: full attention
  bool chunked = false;  // the window is Llama 4's attention chunk, not a sliding window
  bool rope = true;
  bool moe = false;  // the model's MoE MLP, else the dense one (intermediate)
  bool operator==(const LayerKind&) const = default;
};

// RoPE frequency scaling (config.json's rope_scaling). It changes the rotation angles RoPE
// applies, not the kernels or their sizes, so no cost reads it; it is parsed and checked so that
// a malformed or unknown scaling is an error rather than silently accepted, and shown.
struct RopeScaling {
  std::string type;  // "" (plain RoPE) or "llama3"
  double factor = 0;
  double low_freq_factor = 0;
  double high_freq_factor = 0;
  int64_t original_max_positions = 0;
};

// Where one figure of a ModelConfig came from: the config.json key, or the class default
// applied because the key was absent (or null).
struct FigureSource {
  std::string figure;  // a ModelFigure name, e.g. "head_dim"
  std::string source;  // "head_dim", or "hidden_size / num_attention_heads (head_dim not given)"
};

struct ModelConfig {
  std::string name;        // preset name, or the file's name
  std::string source;      // where it was read from
  std::string family;      // HF model_type: llama, mistral, mixtral, qwen2, gpt2
  std::string provenance;  // the file's "_ridgeline_source" text (where its numbers came from)
  int64_t hidden = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;      // hidden / heads unless the config says otherwise
  int64_t intermediate = 0;  // dense MLP width (for MoE, the config's intermediate_size too)
  int64_t vocab = 0;
  int64_t max_positions = 0;
  bool tied_embeddings = false;
  bool qkv_bias = false;          // Qwen2, GPT-2
  bool attn_out_bias = false;     // bias on the attention output projection: GPT-2, Llama with
                                  // attention_bias (Qwen2 has q/k/v biases only)
  bool mlp_bias = false;          // GPT-2
  bool fused_qkv_weight = false;  // q, k and v stored as one weight matrix (GPT-2's c_attn, Phi-3)
  bool fused_gate_up_weight = false;  // gate and up as one weight matrix (Phi-3's gate_up_proj)
  int64_t sliding_window = 0;         // 0: full attention (Mistral's window is honoured when set)
  NormKind norm = NormKind::RmsNorm;
  NormPlacement norm_placement = NormPlacement::Pre;
  QkNorm qk_norm = QkNorm::None;
  double attn_softcap = 0;       // Gemma 2: scores = cap * tanh(scores / cap); 0: none
  double final_softcap = 0;      // the same on the logits
  bool attention_sinks = false;  // gpt-oss: a learned logit per head in the softmax's denominator
  bool embedding_scale = false;  // Gemma: the embeddings times sqrt(hidden)
  // One entry a layer where layers differ; empty when every layer is the same (then
  // sliding_window and moe say what each is).
  std::vector<LayerKind> layer_kinds;
  MlpKind mlp = MlpKind::GatedSilu;
  PositionKind position = PositionKind::Rope;
  MoeConfig moe;
  RopeScaling rope_scaling;
  DeepseekConfig deepseek;  // MLA and DeepSeek's MoE layout (mla_config.h); unset elsewhere
  std::vector<FigureSource> sources;  // filled by the parser, one per figure it sets
};

// One figure of a config as `ridgeline models show` prints it: name, value, where it came from.
struct ModelFigure {
  std::string name;
  std::string value;
  std::string source;
};
// Every figure of `m`, in a fixed order (shape, biases, window, MoE, RoPE scaling).
std::vector<ModelFigure> model_figures(const ModelConfig& m);

// A preset name ("llama-3-8b"), a path to a Hugging Face config.json, or a folder holding one
// (a Hugging Face hub snapshot, .../models--ORG--NAME/snapshots/<hash>/, is named NAME).
ModelConfig load_model(const std::string& name_or_path);
// Parses config.json text as if it were the file `label`.
ModelConfig load_model_text(const std::string& text, const std::string& label);
std::vector<std::string> model_preset_names();

// Parameters (weights) of the whole model, embeddings and LM head included (once when tied).
int64_t parameter_count(const ModelConfig& m);
// Parameters one token's forward pass uses: top_k experts of each MoE layer instead of all.
int64_t active_parameter_count(const ModelConfig& m);
// Parameters of one decoder block (attention, the MLP or every expert and the router, norms);
// where layers differ, the mean over the layers.
int64_t block_parameter_count(const ModelConfig& m);

// Layers of one kind as a uniform model: `model` has that kind's window, position and MLP (and
// an empty layer_kinds); `first` is the first such layer's index, `count` how many there are.
struct LayerGroup {
  ModelConfig model;
  int64_t first = 0;
  int64_t count = 0;
};
// The first `layers` layers of `m` grouped by kind, in order of their first layer (one group
// for a uniform model).
std::vector<LayerGroup> layer_groups(const ModelConfig& m, int64_t layers);
// Layers [first, end) of `m` grouped by kind as layer_groups() groups them (the same kinds in the
// same order as layer_groups(m, layers) for end <= layers), each group's `count` the layers of
// that kind in the range, 0 where it has none (`first` then -1).
std::vector<LayerGroup> layer_groups_in(const ModelConfig& m, int64_t layers, int64_t first,
                                        int64_t end);
// Weights a step holds in memory, whatever the routing: the whole model, or `blocks` decoder
// blocks alone when blocks > 0 (`--blocks N`).
int64_t weight_parameter_count(const ModelConfig& m, int64_t blocks);
// The embedding table(s) and the LM head (one table when tied; learned positions too) of the whole
// model; 0 for `blocks` > 0 (decoder blocks only).
int64_t table_parameter_count(const ModelConfig& m, int64_t blocks);
// Parameters of one layer's routed experts (gate, up and down of each; 0 without experts), for a
// model of one layer kind (a LayerGroup's); and of the first `blocks` layers' (all when 0).
double routed_expert_parameters(const ModelConfig& m);
double routed_expert_parameter_count(const ModelConfig& m, int64_t blocks);
// KV-cache bytes one token adds over all layers (K and V), at `bytes_per_element`.
double kv_cache_bytes_per_token(const ModelConfig& m, double bytes_per_element);
// KV-cache bytes of one sequence of `positions` over the first `layers` layers (all when 0): a
// sliding or chunked layer holds at most its window.
double kv_cache_bytes(const ModelConfig& m, double positions, int64_t layers,
                      double bytes_per_element);
// The same over layer groups (layer_groups, layer_groups_in): each group's count of layers, each
// holding at most its window.
double kv_cache_bytes(const std::vector<LayerGroup>& groups, double positions,
                      double bytes_per_element);

}  // namespace ridgeline
