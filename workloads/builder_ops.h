// Internal to workloads/: one-line constructors of the ops graph builders emit, and the shared
// pieces of a transformer layer (attention shapes, MLP, MoE) for the forward pass.
#pragma once

#include "workloads/model_config.h"
#include "workloads/op_graph.h"
#include "workloads/run_config.h"

namespace ridgeline {

Op gemm_op(int64_t m, int64_t n, int64_t k, DType d, int64_t batch = 1);
// A GEMM against a weight matrix [n, k], in the run's weight precision (and quantization).
Op weight_gemm(int64_t m, int64_t n, int64_t k, const RunConfig& run);
// The same against a routed expert's weights: MXFP4 ones (mxfp4_experts) are read at 4.25 bits
// by a GEMM in the 16-bit activations' dtype.
Op expert_weight_gemm(int64_t m, int64_t n, int64_t k, const RunConfig& run);
// The LM head's GEMM: 16-bit weights and math when the decoder's are quantized
// (table_weight_dtype), else as weight_gemm.
Op head_weight_gemm(int64_t m, int64_t n, int64_t k, const RunConfig& run);
Op ew_op(ElementwiseKind kind, int64_t numel, DType d);
// A single-pass row op (set .impl for ATen's), launched as the runtime launches row kernels.
Op row_op(RowOpKind kind, int64_t rows, int64_t cols, DType d, const RowLaunch& launch);

// Emits kernels into one section, each after the previous one unless told otherwise.
struct Emitter {
  GraphSection& section;
  DType act;  // activation dtype
  OpVertex last = 0;
  bool any = false;

  // A kernel after the given producers (or after the last kernel when none are given).
  OpVertex emit(const KernelRole& role, const std::string& name, const Op& op,
                std::vector<OpVertex> after = {});
};

// The forward kernels of one decoder block; returns its last kernel. `q_len`/`kv_len` shape the
// attention; `cache_write` adds the KV-cache copies of decode. Without `attention` the block
// leaves out the attention kernel (a serving step prices it per request group: serving_step.h).
struct BlockShape {
  int64_t batch, tokens, q_len, kv_len;
  bool causal, cache_write;
  bool attention = true;
};
void emit_block_forward(Emitter& e, const ModelConfig& m, const RunConfig& run,
                        const BlockShape& s);

// The MoE MLP over T tokens (moe_forward.cpp); returns its last kernel.
OpVertex emit_moe_mlp(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                      OpVertex in);

// Family structures (family_ops.cpp). QK-norm on the producers of q and k (none: unchanged).
struct QkProducers {
  OpVertex q, k;
};
QkProducers emit_qk_norm(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                         QkProducers x);
// Whether attention runs as transformers' eager_attention_forward (soft-capping or sinks under a
// runtime that calls SDPA), and its kernels; returns the last. `masked_keys`: the mean keys of
// a's kv_len that the mask hides in each score row (masked_keys_per_row), which the softmax pays.
bool eager_attention(const ModelConfig& m, const RunConfig& run);
OpVertex emit_eager_attention(Emitter& e, const ModelConfig& m, const RunConfig& run,
                              const AttentionOp& a, double masked_keys,
                              std::vector<OpVertex> after);
// The shared expert beside the routed ones over T tokens of `in`, added to `routed`.
OpVertex emit_shared_expert(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                            OpVertex in, OpVertex routed);
// Gemma 2's cap on the logits of `rows` rows (none: `logits`).
OpVertex emit_logit_softcap(Emitter& e, const ModelConfig& m, int64_t rows, OpVertex logits);
// A gated MLP (SwiGLU or GeGLU) of `width` over T tokens, its kernels named with `prefix`.
OpVertex emit_gated_mlp_named(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                              int64_t width, OpVertex in, const std::string& prefix);
// The display name of a norm at `site` ("input_norm", "q_norm", ...).
std::string norm_name_of(NormSite site);

// Norm kind of the model as a row op.
RowOpKind norm_kind(const ModelConfig& m);
// The model's norm at `site` over `rows` rows, as the runtime runs it (its implementation, and
// whether it also adds the residual); returns its vertex.
OpVertex emit_norm(Emitter& e, const ModelConfig& m, const RunConfig& run, NormSite site,
                   int64_t rows, std::vector<OpVertex> after);
// The producers once each, in the order given (a fused kernel may stand for several inputs).
std::vector<OpVertex> distinct(std::vector<OpVertex> producers);
// The same elementwise op on strided or broadcast operands: view_dims as ATen's TensorIterator
// coalesces them (ElementwiseOp::view_dims; RoPE's transposed view by default).
Op strided(Op op, int view_dims = kCalibratedViewDims);
// repeat_kv's copy of K or V to every query head: out_numel written, each cached element read
// once for its n_rep heads (transformers' repeat_kv returns K and V untouched when n_rep is 1:
// callers emit nothing then).
Op repeat_kv_op(int64_t out_numel, int64_t n_rep, DType d);
// A copy from one dtype to another (a cast), or a plain copy when they agree.
Op cast_op(int64_t numel, DType from, DType to);

// transformers' own kernels (hf_kernels.cpp), where a runtime profile chooses them.
// LlamaRMSNorm in fp32 as eight kernels; returns the last.
OpVertex emit_hf_norm(Emitter& e, const ModelConfig& m, const RunConfig& run, NormSite site,
                      int64_t rows, std::vector<OpVertex> after);
// Once a forward, before the blocks: mask creation and RoPE tables, as the runtime chooses.
void emit_hf_forward_prologue(Emitter& e, const ModelConfig& m, const RunConfig& run);
// A StaticCache's length: --max-cache-len, else exactly the positions the step reaches.
int64_t hf_cache_capacity(const RunConfig& run);
// The keys a sliding (or chunked) layer's attention spans outside a decode when transformers
// builds its window mask (the keys reach the window), else 0: attention then runs masked over
// all of them (no causal skipping).
int64_t hf_window_mask_span(const ModelConfig& layer, const RunConfig& run, int64_t q_len,
                            int64_t kv_len);
// Whether a mask reaches SDPA (a StaticCache decode): K/V then repeated to every head, and
// attention spans the whole cache.
bool hf_mask_reaches_attention(const BlockChoices& c, const RunConfig& run);
// The producers of K and V as attention meets them.
struct CacheKv {
  OpVertex k, v;
};
// DynamicCache's cat or StaticCache's index_copy_ (with the mask and repeat_kv kernels).
CacheKv emit_hf_cache_update(Emitter& e, const ModelConfig& m, const RunConfig& run,
                             const BlockShape& s, CacheKv x);
// The heads attention's K and V are repeated over.
struct KvHeads {
  int64_t batch, heads, kv_heads, head_dim;
};
// transformers' repeat_kv over `keys` positions, K's copy after `after` too; K and V as they
// are when every query head has its own.
CacheKv emit_hf_repeat_kv(Emitter& e, const KvHeads& h, int64_t keys, CacheKv x, OpVertex after);

// TorchInductor's kernels (inductor_kernels.cpp), where a runtime profile chooses them.
struct InductorQkv {
  OpVertex q, k, v;
};
// Whether the block's attention is Inductor's compiled set (mask "inductor_sdpa").
bool inductor_attention(const BlockChoices& c);
// RoPE on k (writing K into the cache in decode), V's cache write, RoPE on q.
InductorQkv emit_inductor_positions(Emitter& e, const ModelConfig& m, const RunConfig& run,
                                    const BlockShape& s, InductorQkv x);
// repeat_kv of K and V to every head, the mask, and in decode the cache position's update.
InductorQkv emit_inductor_mask(Emitter& e, const ModelConfig& m, const RunConfig& run,
                               const BlockShape& s, InductorQkv x);
// The key length SDPA attends over: the StaticCache's in decode, the prompt's otherwise.
int64_t inductor_span(const RunConfig& run, const BlockShape& s);
// Once a forward: the RoPE freqs bmm.
void emit_inductor_forward_prologue(Emitter& e, const ModelConfig& m, const RunConfig& run);

}  // namespace ridgeline
